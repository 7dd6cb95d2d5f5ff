import { bindApi } from '../../sdk/api.gen';
import { createCaller } from '../../sdk/transport';
import { AgentConfigError, agentDataDir, loadAgentConfig, type AgentConfig } from '../config';
import { type AgentKind, AGENTS, isAgentKind } from './agents';
import { errorText, handleHookEvent, type HookOutput } from './handler';
import { createHookLog } from './log';
import { nodeFetch } from './node-fetch';
import { parseHookEvent } from './payload';
import { HookStateStore } from './state';

/**
 * `lore hook [claude-code|codex] [--forward]`: one agent event as JSON on stdin, the hook's answer
 * (added context, or nothing) on stdout, exit status 0 — always, and within LORE_HOOK_BUDGET_MS
 * (default 900 ms) of the process starting, whatever Lore does. Lore's calls get what is left of
 * the budget; at the deadline the hook answers with what it has and exits. Problems go to
 * <data dir>/logs/hooks.log, never to the agent.
 *
 * By default the event is handled here, with the session's state in a file of the data dir.
 * `--forward` posts it to the running Lore's hook route instead (/v1/hooks/<agent>), so that the
 * few events a host only offers as command hooks share the session state of its HTTP hooks.
 */

export interface HookIo {
  stdin: NodeJS.ReadableStream;
  write: (text: string) => Promise<void>;
  exit: (code: number) => never;
  /** ms since the process started (performance.now()). */
  clock: () => number;
}

const nodeIo: HookIo = {
  stdin: process.stdin,
  write: (text) => new Promise((resolve) => (text === '' ? resolve() : process.stdout.write(text, () => resolve()))),
  exit: (code) => process.exit(code),
  clock: () => performance.now(),
};

/** Lore's calls stop this long before the budget, leaving time to answer. */
const ANSWER_MARGIN_MS = 60;

export interface HookArgs {
  agent: AgentKind;
  forward: boolean;
}

/** `[claude-code|codex] [--forward]`; anything else is logged and the defaults apply (a hook never fails). */
export function parseHookArgs(argv: readonly string[]): { args: HookArgs; problem: string | null } {
  const args: HookArgs = { agent: 'claude-code', forward: false };
  const unknown: string[] = [];
  for (const a of argv) {
    if (a === '--forward') args.forward = true;
    else if (isAgentKind(a)) args.agent = a;
    else unknown.push(a);
  }
  return { args, problem: unknown.length ? `unknown arguments ${unknown.join(' ')} (lore hook [${AGENTS.join('|')}] [--forward])` : null };
}

export async function runHookCli(env: Record<string, string | undefined>, io: HookIo = nodeIo, argv: readonly string[] = []): Promise<never> {
  let log = createHookLog(agentDataDir(env));
  let event: string | null = null;
  let answered = false;
  const answer = async (out: HookOutput | null): Promise<never> => {
    if (!answered) {
      answered = true;
      await io.write(out ? `${JSON.stringify(out)}\n` : '').catch(() => {});
    }
    return io.exit(0);
  };
  const failOpen = (err: unknown) => {
    log.problem(event, errorText(err));
    void answer(null);
  };
  process.on('uncaughtException', failOpen);
  process.on('unhandledRejection', failOpen);

  let config: AgentConfig;
  try {
    config = loadAgentConfig(env);
  } catch (err) {
    log.problem(null, err instanceof AgentConfigError ? err.message : errorText(err));
    return answer(null);
  }
  log = createHookLog(config.dataDir);
  const { args, problem } = parseHookArgs(argv);
  if (problem) log.problem(null, problem);
  const budget = config.hookBudgetMs;
  // The deadline: whatever is still waiting (a slow Lore, a stdin that never closes) is abandoned.
  // A start-up slower than the budget (a very busy machine) still gets a moment to record the event.
  const timer = setTimeout(
    () => {
      log.problem(event, `no answer within ${budget} ms; answered without it`, { elapsed_ms: Math.round(io.clock()) });
      void answer(null);
    },
    Math.max(100, budget - io.clock()),
  );
  timer.unref();

  try {
    const text = await readAll(io.stdin);
    const parsed = parseHookEvent(text);
    if (!parsed.ok) {
      log.problem(null, `malformed hook input: ${parsed.problem}; nothing recorded`, { bytes: text.length });
      return answer(null);
    }
    event = parsed.event.event;
    const remaining = () => Math.max(20, Math.round(budget - ANSWER_MARGIN_MS - io.clock()));
    if (args.forward) return answer(await forward(config, env, args.agent, text, remaining()));
    const out = await handleHookEvent(parsed.event, {
      agent: args.agent,
      contextChars: config.hookContextChars,
      tenant: config.tenant,
      scope: config.scope,
      store: new HookStateStore(config.dataDir),
      log,
      cwd: process.cwd(),
      api: (binding) =>
        bindApi(
          createCaller({
            baseUrl: config.url,
            apiKey: config.apiKey ?? undefined,
            timeoutMs: budget,
            defaults: { ...binding },
            // Each call gets what is left of the budget, not a fixed timeout.
            fetch: (input, init) => nodeFetch(input, { ...init, signal: AbortSignal.timeout(remaining()) }),
          }),
        ),
    });
    return answer(out);
  } catch (err) {
    log.problem(event, errorText(err));
    return answer(null);
  }
}

/**
 * The event posted to Lore's hook route, as an HTTP hook would post it: the same body, JSON, the
 * key, and the tenant and scope when they are configured. The route's answer is the hook's.
 */
async function forward(config: AgentConfig, env: Record<string, string | undefined>, agent: AgentKind, body: string, timeoutMs: number): Promise<HookOutput | null> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  if (env.LORE_MCP_TENANT?.trim()) headers['x-lore-tenant'] = config.tenant;
  if (config.scope) headers['x-lore-scope'] = config.scope;
  const res = await nodeFetch(`${config.url}/v1/hooks/${agent}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (!res.ok) throw new Error(`hook route answered status ${res.status}: ${text.slice(0, 300)}`);
  const out = JSON.parse(text || '{}') as Partial<HookOutput>;
  return out.hookSpecificOutput?.additionalContext ? (out as HookOutput) : null;
}

function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer | string) => chunks.push(typeof c === 'string' ? Buffer.from(c) : c));
    stream.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.once('error', reject);
  });
}
