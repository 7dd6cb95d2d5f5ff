import { AREAS as LOADGEN_AREAS, MODULES as LOADGEN_MODULES, hashSeed, mulberry32 } from '../retrieval/loadgen-docs';

/**
 * Hook-shaped memory for the size benchmarks (bench/memory/size-scale.ts): what a year of coding
 * sessions recorded by agent hooks leaves in one project scope. A session is a `session` node; every
 * prompt and every tool call of it is a `session_event` node (as `sessions/events/append` stores it:
 * runtime key, `session_event_v1` slot, a `part_of` edge to the session), and every turn that ran
 * tools ends with one execution write (client_id `claude-code:<session>:<n>`, tag `claude-code`,
 * goal, steps, target files, outcome), as the Claude Code hooks write it (docs/agents.md). About 110
 * nodes a session. Deterministic for a seed and a session number; texts carry what hook payloads
 * carry: paths, commands, exit codes, error lines, match and line counts, ids.
 */

const AREAS: string[] = LOADGEN_AREAS;
const MODULES: string[] = LOADGEN_MODULES;
const TASKS = [
  'fix the flaky {p} test in {a}',
  'add {p} support to the {a} {m}',
  'refactor the {a} {m} to use the shared {p} helper',
  'why does the {a} {m} fail with {p}',
  'speed up {p} in {a}',
  'review the {a} {m} change for {p}',
  'update the {a} docs about {p}',
  'debug {p} in the {a} worker',
];
const PROBLEMS = [
  'retry backoff',
  'pagination cursor',
  'CSV export encoding',
  'JWT refresh',
  'cache invalidation',
  'webhook signature',
  'timezone parsing',
  'memory leak',
  'race condition',
  'upload size limit',
  'locale fallback',
  'rate limit headers',
  'N+1 query',
  'config defaults',
];
const FOLLOW_UPS = ['yes', 'try again with the clock pinned', 'now run the whole suite', 'continue', 'looks good, commit it', 'also cover the error path'];
const ERRORS = [
  "TypeError: Cannot read properties of undefined (reading '{m}')",
  'AssertionError: expected 3 to equal 2',
  'Error: connect ECONNREFUSED 127.0.0.1:5432',
  'Timeout of 2000ms exceeded',
  'SyntaxError: Unexpected token } in JSON at position {n}',
  'error TS2345: Argument of type string is not assignable to parameter of type number',
];

export interface HookSession {
  sessionId: string;
  /** Milliseconds since the epoch of the session's first event. */
  startMs: number;
  /** The nodes in write order, each with its offset in ms from the session's start. */
  nodes: HookNode[];
}

export interface HookNode {
  kind: 'session' | 'session_event' | 'execution';
  atMs: number;
  clientId: string;
  title: string | null;
  text: string;
  tags: string[];
  slots: Record<string, unknown>;
  /** For execution writes: the hook's execution object (extraction runs on it). */
  execution: Record<string, unknown> | null;
  /** For session events: a part_of edge to the session node. */
  partOf: boolean;
}

const fill = (t: string, v: Record<string, string>) => t.replace(/\{(\w)\}/g, (_, k: string) => v[k] ?? k);

/** Session number `s` of a stream: its nodes, timed from `startMs`. */
export function hookSession(seed: number, s: number, startMs: number): HookSession {
  const rnd = mulberry32(hashSeed(seed, 'hook-session', s));
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  const sessionId = `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  const area = pick(AREAS);
  const nodes: HookNode[] = [];
  let at = 0;
  const sessionTags = ['claude-code'];
  nodes.push({
    kind: 'session',
    atMs: 0,
    clientId: `~session:${sessionId}`,
    title: null,
    text: `Session ${sessionId}`,
    tags: sessionTags,
    slots: { session_v1: { metadata: { host: 'claude-code', cwd: `/home/dev/shop` } } },
    execution: null,
    partOf: false,
  });
  let event = 0;
  const eventNode = (text: string, type: string, metadata: Record<string, unknown>): HookNode => {
    event += 1;
    const eventId = `${sessionId.slice(0, 8)}-${event}`;
    return {
      kind: 'session_event',
      atMs: at,
      clientId: `~event:${sessionId.length}:${sessionId}:${eventId}`,
      title: null,
      text,
      tags: sessionTags,
      slots: { session_event_v1: { session_id: sessionId, event_id: eventId, event_type: type, metadata } },
      execution: null,
      partOf: true,
    };
  };
  const turns = int(3, 14);
  let task = '';
  for (let turn = 1; turn <= turns; turn += 1) {
    const mod = pick(MODULES);
    const problem = pick(PROBLEMS);
    const vars = { a: area, m: mod, p: problem, n: String(int(1, 900)) };
    const prompt = turn === 1 || rnd() < 0.35 ? fill(pick(TASKS), vars) : pick(FOLLOW_UPS);
    if (turn === 1 || prompt.length > 20) task = prompt;
    at += int(20_000, 600_000);
    nodes.push(eventNode(`UserPromptSubmit: ${prompt}`, 'prompt', { hook: 'UserPromptSubmit' }));
    const file = `src/${area}/${mod}.ts`;
    const test = `tests/${area}/${mod}.test.ts`;
    const steps: { tool: string; file_path?: string; command?: string; outcome: string }[] = [];
    const calls = int(2, 16);
    let failed = false;
    for (let c = 0; c < calls; c += 1) {
      at += int(1_000, 40_000);
      const r = rnd();
      let text: string;
      let step: { tool: string; file_path?: string; command?: string; outcome: string };
      if (r < 0.35) {
        const f = rnd() < 0.7 ? file : `src/${area}/${pick(MODULES)}.ts`;
        text = `PostToolUse Read ${f}: ${int(20, 900)} lines`;
        step = { tool: 'Read', file_path: f, outcome: 'success' };
      } else if (r < 0.55) {
        text = `PostToolUse Edit ${file}: replaced ${int(1, 40)} lines with ${int(1, 60)}`;
        step = { tool: 'Edit', file_path: file, outcome: 'success' };
      } else if (r < 0.8) {
        const cmd = rnd() < 0.6 ? `npm test -- ${test}` : pick([`npx tsc --noEmit`, `git diff --stat`, `npm run lint`, `git status`]);
        failed = rnd() < 0.3;
        const err = fill(pick(ERRORS), vars);
        text = failed ? `PostToolUseFailure Bash \`${cmd}\`: exit 1, ${err}` : `PostToolUse Bash \`${cmd}\`: exit 0, ${int(1, 300)} passed in ${int(1, 90)}s`;
        step = { tool: 'Bash', command: cmd, outcome: failed ? 'failed' : 'passed' };
      } else if (r < 0.92) {
        text = `PostToolUse Grep "${pick(['retryDelay', 'cursor', 'encode', 'refreshToken', 'invalidate', 'verifySignature'])}" in src/${area}: ${int(0, 40)} matches`;
        step = { tool: 'Grep', outcome: 'success' };
      } else {
        text = `PostToolUse TodoWrite: ${int(1, 6)} todos, ${int(0, 3)} in progress`;
        step = { tool: 'TodoWrite', outcome: 'success' };
      }
      nodes.push(
        eventNode(text, 'tool_call', { hook: text.startsWith('PostToolUseFailure') ? 'PostToolUseFailure' : 'PostToolUse', tool: step.tool, tool_use_id: `toolu_${hex(20)}` }),
      );
      if (step.tool !== 'TodoWrite') steps.push(step);
    }
    at += int(500, 5_000);
    if (steps.length > 0) {
      const execution = {
        goal: task,
        run_id: `claude-code:${sessionId}:${turn}`,
        steps: steps.slice(0, 200),
        target_files: [...new Set(steps.filter((s) => s.tool === 'Edit').map((s) => s.file_path!))],
        outcome: failed ? 'failure' : 'success',
      };
      nodes.push({
        kind: 'execution',
        atMs: at,
        clientId: `claude-code:${sessionId}:${turn}`,
        title: task.slice(0, 200),
        text: '',
        tags: ['claude-code'],
        slots: {},
        execution,
        partOf: false,
      });
    }
  }
  return { sessionId, startMs, nodes };
}
