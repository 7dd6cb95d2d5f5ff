import assert from 'node:assert/strict';
import type { TestApi } from '../helpers/app';
import type { Identity } from '../helpers/isolation';
import { pollFor } from '../helpers/wait';

/** Shared steps of the replay tests: everything goes through HTTP, the engine and the sandbox. */

export type Who = Partial<Identity>;

export async function ok<T = any>(api: TestApi, path: string, body: Record<string, unknown>, who: Who = {}): Promise<T> {
  const res = await api.post(path, { ...who, ...body });
  assert.equal(res.status, 200, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as T;
}

export interface RecordedStep {
  tool_name: string;
  tool_input: Record<string, unknown>;
  status?: 'success' | 'failed' | 'skipped' | 'partial';
  output_signature?: Record<string, unknown>;
}

/** Records a whole run: run/start, step/before + step/after per step, run/end. */
export async function recordRun(api: TestApi, run_id: string, goal: string, steps: RecordedStep[], end: { status?: string; summary?: string } = {}, who: Who = {}) {
  await ok(api, '/v1/memory/replay/run/start', { run_id, goal }, who);
  for (const [i, s] of steps.entries()) {
    await ok(api, '/v1/memory/replay/step/before', { run_id, step_index: i, tool_name: s.tool_name, tool_input: s.tool_input }, who);
    await ok(
      api,
      '/v1/memory/replay/step/after',
      { run_id, step_index: i, status: s.status ?? 'success', output_signature: s.output_signature ?? { kind: 'text', summary: '' } },
      who,
    );
  }
  return ok(api, '/v1/memory/replay/run/end', { run_id, status: end.status ?? 'success', summary: end.summary ?? `${goal}: done` }, who);
}

/** A simple recorded run of host steps (no sandbox needed), for state-machine tests. */
export async function hostRun(api: TestApi, run_id: string, who: Who = {}, status = 'success') {
  return recordRun(
    api,
    run_id,
    `edit the config for ${run_id}`,
    [
      { tool_name: 'edit_file', tool_input: { file_path: 'src/config.ts', change: 'add a flag' }, output_signature: { kind: 'diff', summary: '1 file changed' } },
      { tool_name: 'run_tests', tool_input: { target: 'unit' }, output_signature: { kind: 'text', summary: 'all passed' } },
    ],
    { status },
    who,
  );
}

export async function compile(api: TestApi, run_id: string, playbook_id: string, extra: Record<string, unknown> = {}, who: Who = {}) {
  return ok(api, '/v1/memory/replay/playbooks/compile_from_run', { run_id, playbook_id, name: `playbook ${playbook_id}`, ...extra }, who);
}

export { sleep } from '../helpers/wait';

/** Polls fn until it returns a truthy value or the (generous) deadline passes. */
export const waitFor = <T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 120_000, everyMs = 250): Promise<T> => pollFor(what, fn, timeoutMs, everyMs);

export async function getRun(api: TestApi, run_id: string, who: Who = {}) {
  return (await ok(api, '/v1/memory/replay/runs/get', { run_id }, who)).run;
}
