/**
 * Agents: what MCP adds to a route call, and how long a coding-agent hook takes.
 *
 *   node --import tsx bench/agents.ts [--url http://127.0.0.1:3001] [--api-key K] [--n 200]
 *        [--sessions 10] [--part mcp|hooks|all]
 *
 * Needs a running Lore (`npm start`, or bench/memory/run-lore.ts). In a fresh scope it writes a
 * few executions, then:
 *   mcp    the same question three ways, N times each, sequentially, after 10 warm-up calls:
 *          the HTTP route itself (recall_text, kickoff/recommendation), the MCP tool over
 *          streamable HTTP at /mcp (the SDK's v1 Client), and over stdio (`lore mcp` spawned
 *          once). Wall time per call, client side.
 *   hooks  the hooks as an agent runs them, for --sessions recorded sessions (SessionStart,
 *          UserPromptSubmit, Pre/PostToolUse × 3, Stop, SessionEnd): command hooks (`lore hook`,
 *          one process per event: wall time per process, Node start-up included) and HTTP hooks
 *          (a POST to /v1/hooks/claude-code: wall time per request), per event kind; then the
 *          same events with Lore unreachable.
 * Prints p50 / p95 / mean / max in ms, and the load average before and after.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { cli, numOr } from './cli';

const HELP = `Agents benchmark: MCP overhead against the same HTTP route, and lore hook latency.

  node --import tsx bench/agents.ts [--url http://127.0.0.1:3001] [--api-key K] [--n 200]
       [--sessions 10] [--part mcp|hooks|all]

  --url        a running Lore (default LORE_URL, else http://127.0.0.1:3001)
  --api-key    its key, when it has LORE_API_KEYS (default LORE_API_KEY)
  --n          calls per MCP row, after 10 warm-up calls (default 200)
  --sessions   recorded sessions replayed through lore hook and through the HTTP hook route,
               10 events each (default 10)
  --part       mcp, hooks, serving or all (default all: mcp and hooks)
               serving: no Lore needed; one 2025-era tools/call served in-process (a canned
               route answer) by the SDK's stateless fallback (SSE) and by Lore's JSON
               transport, interleaved, --n each

Writes into a fresh scope (bench-agents-<time>) of the default tenant.`;

const { values: opts } = cli(HELP, {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  n: { type: 'string' },
  sessions: { type: 'string' },
  part: { type: 'string', default: 'all' },
});
const URL_ = (opts.url ?? process.env.LORE_URL ?? 'http://127.0.0.1:3001').replace(/\/+$/, '');
const KEY = opts['api-key'] ?? process.env.LORE_API_KEY ?? '';
const N = numOr(opts.n, 200);
const SESSIONS = numOr(opts.sessions, 10);
const PART = opts.part;
const LORE_BIN = fileURLToPath(new URL('../bin/lore.mjs', import.meta.url));
const scope = `bench-agents-${Date.now().toString(36)}`;

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  const f = (v: number) => v.toFixed(1);
  return `p50 ${f(q(0.5))}  p95 ${f(q(0.95))}  mean ${f(s.reduce((a, b) => a + b, 0) / s.length)}  max ${f(s.at(-1)!)}  (n=${s.length})`;
}

const headers = (): Record<string, string> => ({ 'content-type': 'application/json', ...(KEY ? { authorization: `Bearer ${KEY}` } : {}) });

async function route(path: string, body: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${URL_}${path}`, { method: 'POST', headers: headers(), body: JSON.stringify({ scope, ...body }) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 10; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

async function mcpPart() {
  for (const goal of ['fix flaky retry in worker.ts', 'fix the flaky retry test for the worker', 'resolve flaky retries in the job worker']) {
    await route('/v1/memory/write', {
      execution: {
        goal,
        outcome: 'success',
        target_files: ['src/jobs/worker.ts'],
        steps: [
          { tool: 'read', file_path: 'src/jobs/worker.ts' },
          { tool: 'edit', file_path: 'src/jobs/worker.ts' },
        ],
      },
    });
  }
  const http = new Client({ name: 'bench', version: '1' });
  await http.connect(new StreamableHTTPClientTransport(new URL(`${URL_}/mcp?scope=${scope}`), { requestInit: { headers: KEY ? { authorization: `Bearer ${KEY}` } : {} } }));
  await http.listTools();
  const stdio = new Client({ name: 'bench', version: '1' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [LORE_BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LORE_URL: URL_, LORE_API_KEY: KEY, LORE_MCP_SCOPE: scope },
    }),
  );
  await stdio.listTools();
  const recall = { query_text: 'intermittent retry failure in the worker', limit: 10 };
  const task = { query_text: 'repair the intermittent retry failure in the worker' };
  const rows: [string, () => Promise<unknown>][] = [
    ['recall  HTTP route  /v1/memory/recall_text', () => route('/v1/memory/recall_text', recall)],
    ['recall  MCP /mcp    recall_memory', () => http.callTool({ name: 'recall_memory', arguments: recall })],
    ['recall  MCP stdio   recall_memory', () => stdio.callTool({ name: 'recall_memory', arguments: recall })],
    ['kickoff HTTP route  /v1/memory/kickoff/recommendation', () => route('/v1/memory/kickoff/recommendation', task)],
    ['kickoff MCP /mcp    start_task', () => http.callTool({ name: 'start_task', arguments: task })],
    ['kickoff MCP stdio   start_task', () => stdio.callTool({ name: 'start_task', arguments: task })],
  ];
  for (const [label, fn] of rows) process.stdout.write(`${label.padEnd(56)} ${stats(await timed(N, fn))}\n`);
  await http.close();
  await stdio.close();
}

/** Why /mcp answers 2025-era requests itself: the SDK's fallback streams (SSE), this answers JSON. */
async function servingPart() {
  const { createMcpHandler, WebStandardStreamableHTTPServerTransport } = await import('@modelcontextprotocol/server');
  const { createLoreMcpServer } = await import('../src/agents/mcp/server');
  const canned = {
    tenant_id: 't',
    scope: 's',
    first_action: null,
    kickoff_recommendation: {
      history_applied: false,
      selected_tool: null,
      file_path: null,
      next_action: null,
      source_kind: null,
      confidence: 0,
      rationale: '',
      evidence_ids: [],
      workflow_id: null,
      alternatives: [],
    },
    uncertainty: { level: 'high', confidence: 0, reasons: [], recommended_actions: [] },
    task_family: null,
  };
  const make = () =>
    createLoreMcpServer({
      binding: { tenant_id: 't', scope: 's', actor: 'mcp' },
      caller: async () => canned,
      env: { sandbox: { enabled: true, available: true, isolation: 'bubblewrap' } },
      version: '0',
    });
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'start_task', arguments: { query_text: 'repair the retry' } } };
  const request = () =>
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify(body),
    });
  const sdk = createMcpHandler(() => make());
  const viaSdk = async () => (await sdk.fetch(request(), { parsedBody: body })).text();
  const viaJson = async () => {
    const server = make();
    const t = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(t);
    const text = await (await t.handleRequest(request(), { parsedBody: body })).text();
    await t.close();
    await server.close();
    return text;
  };
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 20; i++) await Promise.all([viaSdk(), viaJson()]);
  for (let i = 0; i < N; i++) {
    let t0 = performance.now();
    await viaSdk();
    a.push(performance.now() - t0);
    t0 = performance.now();
    await viaJson();
    b.push(performance.now() - t0);
  }
  process.stdout.write(`${'serving: SDK stateless fallback (SSE answer)'.padEnd(56)} ${stats(a)}\n${'serving: Lore, stateless JSON answer'.padEnd(56)} ${stats(b)}\n`);
}

function hook(payload: unknown, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [LORE_BIN, 'hook'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, stdio: ['pipe', 'ignore', 'ignore'] });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`lore hook exited ${code}`))));
    child.stdin.end(JSON.stringify(payload));
  });
}

/** An HTTP hook as Claude Code sends it (the headers `lore hooks install` writes); a refused connection counts as answered. */
async function httpHook(url: string, payload: unknown): Promise<number> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${url}/v1/hooks/claude-code`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}`, 'X-Lore-Tenant': '', 'X-Lore-Scope': scope },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(3000),
    });
    await res.text();
  } catch {
    // Claude Code reports a non-blocking error and goes on.
  }
  return performance.now() - t0;
}

/** One recorded session's events: start, a prompt, Read → Edit → Bash, Stop, end. */
function sessionEvents(s: number, transport: string): Record<string, unknown>[] {
  const base = { session_id: `bench-${transport}-${s}-${Date.now()}`, cwd: '/tmp/bench-project', transcript_path: '/tmp/t.jsonl', permission_mode: 'default' };
  const events: Record<string, unknown>[] = [
    { ...base, hook_event_name: 'SessionStart', source: 'startup' },
    { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'repair the intermittent retry failure in the worker' },
  ];
  const calls: [string, Record<string, unknown>, unknown][] = [
    ['Read', { file_path: '/tmp/bench-project/src/jobs/worker.ts' }, { type: 'text', file: { filePath: '/tmp/bench-project/src/jobs/worker.ts', content: 'x' } }],
    ['Edit', { file_path: '/tmp/bench-project/src/jobs/worker.ts', old_string: 'a', new_string: 'b' }, { filePath: '/tmp/bench-project/src/jobs/worker.ts' }],
    ['Bash', { command: 'npm test' }, { stdout: 'ok', stderr: '', interrupted: false }],
  ];
  calls.forEach(([tool, input, response], i) => {
    events.push({ ...base, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: `t${i}` });
    events.push({ ...base, hook_event_name: 'PostToolUse', tool_name: tool, tool_input: input, tool_response: response, tool_use_id: `t${i}` });
  });
  events.push({ ...base, hook_event_name: 'Stop', stop_hook_active: false }, { ...base, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' });
  return events;
}

/**
 * The same sessions through command hooks (`lore hook`, a process per event) and HTTP hooks (a POST
 * to the hook route), alternating session by session so both see the same machine load.
 */
async function hooksPart(url: string, label: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-hooks-'));
  const env = { LORE_URL: url, LORE_API_KEY: KEY, LORE_MCP_SCOPE: scope, LORE_DATA_DIR: dataDir };
  const byEvent: Record<string, Record<string, number[]>> = { command: {}, http: {} };
  const all: Record<string, number[]> = { command: [], http: [] };
  try {
    for (let s = 0; s < SESSIONS; s++) {
      for (const transport of ['command', 'http'] as const) {
        for (const ev of sessionEvents(s, transport)) {
          const ms = transport === 'command' ? await hook(ev, env) : await httpHook(url, ev);
          (byEvent[transport]![ev.hook_event_name as string] ??= []).push(ms);
          all[transport]!.push(ms);
        }
      }
    }
    let problems: string[] = [];
    try {
      problems = readFileSync(join(dataDir, 'logs', 'hooks.log'), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean);
    } catch {
      // no problems logged
    }
    const late = problems.filter((l) => /no answer within|aborted/.test(l)).length;
    for (const transport of ['command', 'http'] as const) {
      process.stdout.write(`hooks (${transport}), ${label}: all events`.padEnd(56) + ` ${stats(all[transport]!)}\n`);
      for (const [event, xs] of Object.entries(byEvent[transport]!)) process.stdout.write(`  ${event}`.padEnd(56) + ` ${stats(xs)}\n`);
    }
    process.stdout.write(`  command hooks' problems logged: ${problems.length} (${late} calls cut by the budget) of ${all.command!.length} events\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.stdout.write(
  `Lore at ${URL_}, scope ${scope}, load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
if (PART === 'serving') await servingPart();
if (PART === 'mcp' || PART === 'all') await mcpPart();
if (PART === 'hooks' || PART === 'all') {
  await hooksPart(URL_, 'Lore up');
  await hooksPart('http://127.0.0.1:9', 'Lore unreachable');
}
process.stdout.write(
  `load average after ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
