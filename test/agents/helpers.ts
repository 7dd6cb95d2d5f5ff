import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestApi, type TestApi, type TestApiOptions } from '../helpers/app';

/** Shared bits of the agent tests (not a test file itself). */

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const LORE_BIN = fileURLToPath(new URL('../../bin/lore.mjs', import.meta.url));

export interface ListeningApi extends TestApi {
  url: string;
}

/** The real API, listening on a free loopback port (MCP clients and hook processes need a socket). */
export async function startListeningApi(opts: TestApiOptions = {}): Promise<ListeningApi> {
  const api = await startTestApi(opts);
  await api.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = api.app.server.address() as AddressInfo;
  return Object.assign(api, { url: `http://127.0.0.1:${port}` });
}

/** The v1 SDK's Client over streamable HTTP to /mcp. */
export async function mcpOverHttp(url: string, opts: { key?: string; scope?: string; headers?: Record<string, string> } = {}): Promise<Client> {
  const client = new Client({ name: 'lore-test', version: '1.0.0' });
  const target = new URL(`${url}/mcp`);
  if (opts.scope) target.searchParams.set('scope', opts.scope);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  await client.connect(new StreamableHTTPClientTransport(target, { requestInit: { headers } }));
  // As clients do: the listing also arms the client's check of every structuredContent against its tool's output schema.
  await client.listTools();
  return client;
}

export type ToolResult = { content: { type: string; text?: string }[]; structuredContent?: any; isError?: boolean };

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** A call that must succeed: its structuredContent. */
export async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await callTool(client, name, args);
  assert.notEqual(r.isError, true, `${name} failed: ${r.content.map((c) => c.text).join('\n')}`);
  assert.ok(r.structuredContent, `${name} returned no structuredContent`);
  assert.equal(r.content[0]?.type, 'text');
  assert.ok((r.content[0]?.text ?? '').length > 0, `${name} returned no text`);
  return r.structuredContent;
}

export const TASK_FAMILY = ['fix flaky retry in worker.ts', 'fix the flaky retry test for the worker', 'resolve flaky retries in the job worker'];
export const PARAPHRASE = 'the flaky retry in the worker fails again';

/**
 * Proof 1's flow for one connected client (any transport): three write_memory calls for one task
 * family, start_task with a rewording of the task gets the learned file and first tool with evidence ids,
 * recall_memory finds the writes, and a connection bound to another scope sees none of it.
 */
export async function learnThroughMcp(client: Client, stranger: Client): Promise<void> {
  const written: string[] = [];
  for (const [i, goal] of TASK_FAMILY.entries()) {
    const w = await ok(client, 'write_memory', {
      input_text: `${goal}: read and edited src/jobs/worker.ts, npm test passes`,
      execution: {
        goal,
        run_id: `mcp-run-${i}`,
        outcome: 'success',
        target_files: ['src/jobs/worker.ts'],
        steps: [
          { tool: 'read', file_path: 'src/jobs/worker.ts' },
          { tool: 'edit', file_path: 'src/jobs/worker.ts' },
          { tool: 'bash', command: 'npm test -- worker' },
        ],
      },
    });
    assert.equal(w.nodes.length, 1);
    assert.equal('tenant_id' in w, false, 'structuredContent leaves the bound fields out');
    written.push(w.nodes[0].id);
  }

  const start = await ok(client, 'start_task', { query_text: PARAPHRASE });
  assert.ok(start.first_action, `expected a learned first action: ${JSON.stringify(start)}`);
  assert.equal(start.first_action.file_path, 'src/jobs/worker.ts');
  assert.equal(start.first_action.selected_tool, 'read');
  assert.equal(start.first_action.history_applied, true);
  assert.ok(
    written.some((id) => start.first_action.evidence_ids.includes(id)),
    'evidence names the writes it was learned from',
  );

  const recall = await ok(client, 'recall_memory', { query_text: 'flaky retry worker', limit: 10 });
  const found = recall.results.map((r: { id: string }) => r.id);
  for (const id of written) assert.ok(found.includes(id), `recall_memory finds ${id}: ${JSON.stringify(found)}`);
  for (const r of recall.results) {
    assert.ok(r.snippet.length <= 240, 'snippets, not whole nodes');
    assert.equal('text' in r, false);
  }
  const whole = await ok(client, 'get_memory', { id: written[0] });
  assert.equal(whole.node.id, written[0]);
  assert.match(whole.node.text, /worker/);

  // Another scope's connection: nothing recalled, nothing learned, no node by id.
  const theirs = await ok(stranger, 'recall_memory', { query_text: 'flaky retry worker', limit: 10 });
  assert.deepEqual(theirs.results, []);
  const theirStart = await ok(stranger, 'start_task', { query_text: PARAPHRASE });
  assert.equal(theirStart.first_action, null);
  const missing = await callTool(stranger, 'get_memory', { id: written[0] });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0]!.text!, /not_found/);
}

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the whole process, start-up included. */
  ms: number;
}

/**
 * Transpiles the sources for bin/lore.mjs ahead (a fresh checkout has no build yet, and the first
 * `lore hook` would spend seconds building it: a one-time cost, not what the tests measure).
 */
export async function warmLoreBin(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-warm-'));
  try {
    await runHook('', { LORE_DATA_DIR: dataDir, LORE_HOOK_BUDGET_MS: '60000' });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One `lore hook` process: the payload (an object, or raw text) on stdin. */
export function runHook(payload: unknown, env: Record<string, string>): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [LORE_BIN, 'hook'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
    child.stdin.on('error', () => {});
    child.stdin.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
  });
}

type FixtureEvent = Record<string, unknown> & { hook_event_name: string };

/** The recorded Claude Code session (fixtures/claude-code-session.json) with its placeholders filled. */
export function sessionEvents(vars: { session_id: string; cwd: string; prompt: string }): FixtureEvent[] {
  const raw = readFileSync(fileURLToPath(new URL('./fixtures/claude-code-session.json', import.meta.url)), 'utf8');
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(/\{\{(session_id|cwd|prompt)\}\}/g, (_m, k: keyof typeof vars) => vars[k]);
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return (fill(JSON.parse(raw)) as { events: FixtureEvent[] }).events;
}

/** A recorded multi-prompt session (fixtures/sessions/<name>.json) with its placeholders filled. */
export function recordedSession(name: string, vars: { session_id: string; cwd: string }): { agent: string; events: FixtureEvent[] } {
  const raw = readFileSync(fileURLToPath(new URL(`./fixtures/sessions/${name}.json`, import.meta.url)), 'utf8');
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(/\{\{(session_id|cwd)\}\}/g, (_m, k: keyof typeof vars) => vars[k]);
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(JSON.parse(raw)) as { agent: string; events: FixtureEvent[] };
}

/** A project directory (with .git, so the hooks derive its scope from its name) under a fresh temp dir. */
export function tempProject(name: string): { dir: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'lore-agents-'));
  const dir = join(root, name);
  mkdirSync(join(dir, '.git'), { recursive: true });
  return { dir, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
