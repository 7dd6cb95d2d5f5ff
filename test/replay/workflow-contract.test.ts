/**
 * The workflow contract other families rely on (docs/replay.md, "For other families"):
 * playbookRunWorkflow started the way automation starts it (no run record beforehand, version
 * null = the active one), its failure when nothing can run, and cancellation reaching the
 * command in flight (its process tree dies; the run ends cancelled).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { LoreError } from '../../src/contract/errors';
import { PLAYBOOK_RUN_WORKFLOW, playbookRunWorkflowId, type PlaybookRunInput, type PlaybookRunResult } from '../../src/domain/replay/module';
import { ReplayRuns } from '../../src/store/replay/index';
import { scopeRef } from '../../src/store/scope';
import { startTestApi, type TestApi } from '../helpers/app';
import { processesRunning, processesWith } from '../sandbox/helpers';
import { compile, getRun, ok, recordRun, waitFor } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
  await recordRun(api, 'wc-src', 'count the files', [
    { tool_name: 'command', tool_input: { argv: ['sh', '-c', 'echo "{{label}}: $(ls | wc -l)"'] }, output_signature: { summary: '{{label}}' } },
  ]);
});
after(async () => {
  await api?.close();
});

const inputOf = (over: Partial<PlaybookRunInput>): PlaybookRunInput => {
  const key = randomUUID();
  return {
    tenant_id: 'default',
    scope: 'default',
    actor: 'automation-test',
    run_key: key,
    run_id: `auto-${key}`,
    playbook_id: 'wc-pb',
    version: null,
    mode: 'strict',
    params: {},
    purpose: 'automation',
    ...over,
  };
};
const start = (input: PlaybookRunInput) =>
  api.engine.start({
    workflowType: PLAYBOOK_RUN_WORKFLOW,
    workflowId: playbookRunWorkflowId(input.run_key),
    args: [input],
    labels: { tenant_id: input.tenant_id, scope: input.scope, kind: 'playbook_run', playbook_id: input.playbook_id },
  });

describe('playbookRunWorkflow for other families', () => {
  it('with no active version the workflow fails with invalid_state and the run is recorded as failed', async () => {
    await compile(api, 'wc-src', 'wc-pb');
    const input = inputOf({ params: { label: 'files' } });
    await start(input);
    await assert.rejects(api.engine.result(playbookRunWorkflowId(input.run_key), 60_000), (err: unknown) => err instanceof LoreError && err.code === 'invalid_state');
    const run = await getRun(api, input.run_id);
    assert.equal(run.status, 'failure');
    assert.match(run.summary, /no active version/);
  });

  it('started without a run record and version null: runs the active version, records the run, returns the result', async () => {
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'wc-pb', target_status: 'active' });
    const input = inputOf({ params: { label: 'entries' }, metadata: { automation_id: 'a-1', node_id: 'n-1' } });
    await start(input);
    const result = await api.engine.result<PlaybookRunResult>(playbookRunWorkflowId(input.run_key), 120_000);
    assert.equal(result.status, 'success', JSON.stringify(result));
    assert.equal(result.version, 1);
    assert.equal(result.run_id, input.run_id);
    assert.match(result.outputs['0']!, /^entries: \d+$/);
    assert.deepEqual(result.totals, { steps: 1, succeeded: 1, failed: 0, skipped: 0, pending: 0 });
    // Nobody reads the run through runs/get yet: the API's background drain feeds it to learning.
    const runs = new ReplayRuns(api.db, scopeRef('default', 'default'));
    await waitFor('the background feed', async () => (await runs.get(input.run_id))?.learning?.state === 'fed', 30_000);
    const run = await getRun(api, input.run_id);
    assert.equal(run.playbook.purpose, 'automation');
    assert.equal(run.playbook.version, 1);
    assert.equal(run.goal, 'count the files', 'the goal defaults to the source run goal');
    assert.deepEqual(run.metadata, { automation_id: 'a-1', node_id: 'n-1' });
    assert.equal(run.learning.state, 'fed');
  });

  it('cancelling the run cancels the command in flight: its process dies and the run ends cancelled', async () => {
    const marker = '41.987';
    await recordRun(api, 'wc-slow', 'wait a long time', [{ tool_name: 'command', tool_input: { argv: ['sleep', marker] }, output_signature: { exit_code: 0 } }]);
    await compile(api, 'wc-slow', 'wc-slow-pb');
    const d = await ok(api, '/v1/memory/replay/playbooks/dispatch', { playbook_id: 'wc-slow-pb', version: 1, run_id: 'to-cancel' });
    await waitFor('the sleep to run', async () => (await processesRunning(['sleep', marker])).length > 0, 60_000);
    await api.engine.cancel(d.workflow_id);
    await waitFor('the sleep to die', async () => (await processesWith(`sleep ${marker}`)).length === 0, 30_000);
    const run = await waitFor(
      'the run to end',
      async () => {
        const r = await getRun(api, 'to-cancel');
        return r.state === 'ended' ? r : null;
      },
      60_000,
    );
    assert.equal(run.status, 'cancelled');
    assert.equal(run.steps[0].status, 'failed');
    assert.equal(run.steps[0].error, 'cancelled with the run');
    const sb = await ok(api, '/v1/memory/sandbox/runs/get', { run_id: run.steps[0].sandbox_run_id });
    assert.equal(sb.run.status, 'cancelled');
    // The run is recorded just before the workflow closes as cancelled.
    await waitFor('the workflow to close cancelled', async () => (await api.engine.describe(d.workflow_id))?.state === 'cancelled', 30_000);
  });
});
