import assert from 'node:assert/strict';
import type { TestApi } from '../helpers/app';

/** Shared bits of the learning end-to-end tests (not a test file itself). */

export interface Scope {
  tenant_id: string;
  scope: string;
}

/** A successful execution written through /v1/memory/write (execution form). */
export async function writeExecution(
  api: TestApi,
  id: Scope,
  e: {
    goal: string;
    task_kind?: string;
    steps: { tool: string; file_path?: string; command?: string }[];
    outcome?: 'success' | 'failure' | 'partial';
    run_id?: string;
    next_action?: string;
    target_files?: string[];
  },
) {
  const res = await api.post('/v1/memory/write', {
    ...id,
    execution: {
      goal: e.goal,
      task_kind: e.task_kind,
      run_id: e.run_id,
      steps: e.steps,
      target_files: e.target_files ?? e.steps.map((s) => s.file_path).filter(Boolean),
      outcome: e.outcome ?? 'success',
      next_action: e.next_action,
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

export async function ok(api: TestApi, path: string, body: unknown) {
  const res = await api.post(path, body);
  assert.equal(res.status, 200, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
