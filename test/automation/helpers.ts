import assert from 'node:assert/strict';
import type { TestApi } from '../helpers/app';
import type { Identity } from '../helpers/isolation';
import { pollFor, pollWhileProgressing } from '../helpers/wait';

/** Shared steps of the automation tests: every call goes through HTTP, the engine and the store. */

export const TERMINAL = ['succeeded', 'failed', 'cancelled'];

export { sleep } from '../helpers/wait';

/** Polls fn until it returns a truthy value or the (generous) deadline passes. */
export const waitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 90_000, everyMs = 150): Promise<T> => pollFor(what, fn, timeoutMs, everyMs);

export async function createAutomation(api: TestApi, automation_id: string, graph: unknown, who: Partial<Identity> = {}, extra: Record<string, unknown> = {}) {
  const res = await api.post('/v1/automations/create', { ...who, automation_id, name: automation_id, graph, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.automation;
}

export async function startRun(api: TestApi, automation_id: string, options: Record<string, unknown> = {}, who: Partial<Identity> = {}, extra: Record<string, unknown> = {}) {
  const res = await api.post('/v1/automations/run', { ...who, automation_id, options, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.run_id as string;
}

export async function getRun(api: TestApi, run_id: string, who: Partial<Identity> = {}) {
  const res = await api.post('/v1/automations/runs/get', { ...who, run_id, include_nodes: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.run;
}

export function nodeOf(run: { nodes: { node_id: string }[] }, id: string): any {
  const n = run.nodes.find((x) => x.node_id === id);
  assert.ok(n, `node ${id} is in the run`);
  return n;
}

export async function waitForStatus(api: TestApi, run_id: string, statuses: string[], timeoutMs = 90_000, who: Partial<Identity> = {}) {
  return waitFor(
    `run ${run_id} to be ${statuses.join('|')}`,
    async () => {
      const r = await getRun(api, run_id, who);
      return statuses.includes(r.status) ? r : null;
    },
    timeoutMs,
  );
}

/**
 * Waits for a run to end however long its steps take under load, as long as it keeps moving (a
 * node changes state); fails only when it stalls. For runs of several sandboxed playbooks.
 */
export async function waitForEnd(api: TestApi, run_id: string, who: Partial<Identity> = {}) {
  return pollWhileProgressing(
    `run ${run_id} to end`,
    () => getRun(api, run_id, who),
    (r) => TERMINAL.includes(r.status),
    (r) => `${r.status} ${r.nodes.map((n: { node_id: string; state: string }) => `${n.node_id}:${n.state}`).join(' ')}`,
  );
}

export async function resume(api: TestApi, run_id: string, reason: string, who: Partial<Identity> = {}, extra: Record<string, unknown> = {}) {
  return api.post('/v1/automations/runs/resume', { ...who, run_id, reason, ...extra });
}

/** approve → check (condition on the approval's reason) → yes (on_success) | no (on_false). */
export const branchGraph = (expected: string) => ({
  nodes: [
    { node_id: 'approve', kind: 'approval', approval_key: 'ship' },
    { node_id: 'check', kind: 'condition', condition: { left: '$nodes.approve.reason', op: 'eq', right: expected } },
    { node_id: 'yes', kind: 'approval', approval_key: 'after-yes', inputs: { why: '$nodes.check.result' } },
    { node_id: 'no', kind: 'approval', approval_key: 'after-no' },
  ],
  edges: [
    { from: 'approve', to: 'check', type: 'on_success' },
    { from: 'check', to: 'yes', type: 'on_success' },
    { from: 'check', to: 'no', type: 'on_false' },
  ],
});

/** Waits until the run is paused at exactly these approval nodes (the store may lag a resume by a write). */
export async function waitForPausedAt(api: TestApi, run_id: string, nodeIds: string[], who: Partial<Identity> = {}, timeoutMs = 90_000) {
  return waitFor(
    `run ${run_id} to be paused at ${nodeIds.join(', ')}`,
    async () => {
      const r = await getRun(api, run_id, who);
      if (TERMINAL.includes(r.status)) throw new Error(`run ${run_id} ended ${r.status} before pausing at ${nodeIds.join(', ')}: ${JSON.stringify(r)}`);
      return r.status === 'paused' && [...r.paused_nodes].sort().join() === [...nodeIds].sort().join() ? r : null;
    },
    timeoutMs,
  );
}

/**
 * A promoted playbook made through the replay routes: a recorded run of shell commands (output not
 * matched: `output_match: none`), compiled with `parameters` (each default written literally in the
 * commands becomes {{name}}), promoted active.
 */
export async function makePlaybook(
  api: TestApi,
  playbook_id: string,
  commands: string[],
  parameters: Record<string, string> = {},
  who: Partial<Identity> = {},
  compileExtra: Record<string, unknown> = {},
) {
  const run_id = `rec-${playbook_id}-${Math.random().toString(16).slice(2, 8)}`;
  const call = async (path: string, body: Record<string, unknown>) => {
    const res = await api.post(path, { ...who, ...body });
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await call('/v1/memory/replay/run/start', { run_id, goal: `make ${playbook_id}` });
  for (const [i, cmd] of commands.entries()) {
    await call('/v1/memory/replay/step/before', { run_id, step_index: i, tool_name: 'command', tool_input: { argv: ['sh', '-c', cmd], timeout_ms: 300_000 } });
    await call('/v1/memory/replay/step/after', { run_id, step_index: i, status: 'success', output_signature: { kind: 'stdout', summary: '', output_match: 'none' } });
  }
  await call('/v1/memory/replay/run/end', { run_id, status: 'success', summary: 'recorded' });
  const compiled = await call('/v1/memory/replay/playbooks/compile_from_run', { run_id, playbook_id, name: playbook_id, parameters, ...compileExtra });
  await call('/v1/memory/replay/playbooks/promote', { playbook_id, target_status: 'active', note: 'for automation tests' });
  return compiled.version as number;
}
