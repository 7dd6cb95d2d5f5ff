import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';

/**
 * A started process keeps only the heads of the workflows it loads (scope-state.ts): a change of
 * one reads its whole slot back from the store. Nothing of the workflow is lost on the way: the
 * lists the head leaves out (`recent`, `sequences`) are those a change needs.
 */

const execution = (runId: string) => ({
  goal: 'fix the stale session token refresh in the auth gateway',
  task_kind: 'bugfix',
  run_id: runId,
  steps: [{ tool: 'read', file_path: 'src/auth/gateway.ts' }, { tool: 'edit', file_path: 'src/auth/gateway.ts' }, { tool: 'test' }],
  target_files: ['src/auth/gateway.ts'],
  outcome: 'success',
});

type WorkflowNode = { id: string; slots: { workflow_v1: { recent: unknown[]; sequences: { count: number }[]; counts: { successes: number }; promotion_state: string } } };

describe('learning: a change of a workflow loaded at start', () => {
  let a: TestApi;
  let b: TestApi | undefined;
  before(async () => {
    a = await startTestApi();
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('reads the whole workflow back and keeps every list', async () => {
    const id = { tenant_id: 'default', scope: uniqueName('heads') };
    for (const run of ['r-1', 'r-2']) assert.equal((await a.post('/v1/memory/write', { ...id, execution: execution(run) })).status, 200);
    const find = async (api: TestApi) => (await api.post('/v1/memory/find', { ...id, kinds: ['workflow'] })).body.nodes as WorkflowNode[];
    const [founded] = await find(a);
    assert.equal(founded?.slots.workflow_v1.recent.length, 2);

    // A new process on the same database: it loads the scope's workflows as heads.
    b = await startTestApi({ env: { MONGODB_DB: a.config.mongo.database } });
    await pollFor('the new process to load learned scopes', async () => (await b!.get('/health')).body.indexes.learning.status === 'ready', 60_000, 100);
    const third = await b.post('/v1/memory/write', { ...id, execution: execution('r-3') });
    assert.equal(third.status, 200);
    assert.deepEqual(third.body.learning.workflows_updated, [founded!.id], 'the third run joined the loaded workflow');

    const [w] = await find(b);
    const slot = w!.slots.workflow_v1;
    assert.equal(slot.counts.successes, 3);
    assert.equal(slot.promotion_state, 'stable');
    assert.equal(slot.recent.length, 3, 'the recent list read back and extended, not restarted');
    assert.equal(slot.sequences[0]?.count, 3, 'the step sequence counted three times');
  });
});
