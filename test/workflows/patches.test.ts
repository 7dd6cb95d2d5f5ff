/**
 * A run that started under the code before the approval patches (workflows/patches.ts) goes on
 * under the current code: what it did before stays as it was (a wait that began without a deadline
 * keeps none), what it does after takes the new paths (a rejection, a new approval's deadline, the
 * memo), and its history — part old path, part new — replays against the current code.
 *
 * "The code before" is this tree with every patched() of the automation workflow reading false:
 * exactly the commands the code before the patches issued. It runs as an in-process worker built
 * from a copy of the tree; then the current worker takes over, as after an upgrade.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { silentLog } from '../../src/log';
import { currentWorkflowBundle, startWorker, type WorkerHandle } from '../../src/worker';
import { createAutomation, getRun, nodeOf, sleep, startRun, waitFor, waitForPausedAt, waitForStatus } from '../automation/helpers';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { variantTree, type VariantTree } from '../helpers/variant-tree';

const BEFORE_THE_PATCHES = [
  ['workflows/automation/details.ts', 'if (patched(PATCHES.runMemo)) upsertMemo(fields);', 'if (false as boolean) upsertMemo(fields);'],
  ['workflows/automation/nodes/approval.ts', 'node.timeout_ms !== undefined && patched(PATCHES.approvalTimeout)', 'node.timeout_ms !== undefined && (false as boolean)'],
  ['workflows/automation/nodes/approval.ts', "a.decision === 'reject' && patched(PATCHES.approvalDecisions)", "a.decision === 'reject' && (false as boolean)"],
].map(([file, find, replace]) => ({ file: file!, find: find!, replace: replace! }));

let api: TestApi;
let tree: VariantTree;
let oldWorker: WorkerHandle | null = null;

before(async () => {
  api = await startTestApi({ worker: false });
  tree = variantTree('before-patches', BEFORE_THE_PATCHES);
});
after(async () => {
  await oldWorker?.shutdown().catch(() => {});
  await api?.close();
  tree?.remove();
});

describe('patched approval behaviour across an upgrade', () => {
  it('a run paused by the code before the patches is decided, times out and records its memo under the current code; its history replays', { timeout: 600_000 }, async () => {
    const bundle = await bundleWorkflowCode({ workflowsPath: tree.workflowsPath, logger: { trace() {}, debug() {}, info() {}, log() {}, warn() {}, error() {} } });
    oldWorker = await startWorker({ config: api.config, log: silentLog, clock: api.clock, db: api.db, workflowBundle: { code: bundle.code } });

    const id = uniqueName('patches');
    await createAutomation(api, id, {
      nodes: [
        { node_id: 'old-wait', kind: 'approval', approval_key: 'old', timeout: 'PT2S' },
        { node_id: 'first', kind: 'approval', approval_key: 'first' },
        { node_id: 'second', kind: 'approval', approval_key: 'second', timeout: 'PT2S', on_timeout: 'fail' },
      ],
      edges: [{ from: 'first', to: 'second' }],
    });
    const runId = await startRun(api, id, { stop_on_failure: false });
    const before = await waitForPausedAt(api, runId, ['old-wait', 'first']);
    assert.equal(nodeOf(before, 'old-wait').approval.expires_at, null, 'the code before the patches set no deadline');
    const wf = api.engine.client.workflow.getHandle(before.workflow_id);
    assert.deepEqual((await wf.describe()).memo ?? {}, {}, 'nor a memo');

    // The upgrade.
    await oldWorker.shutdown();
    oldWorker = null;
    await api.startWorker();

    // The wait that began without a deadline keeps none.
    await sleep(4000);
    assert.deepEqual((await getRun(api, runId)).paused_nodes.sort(), ['first', 'old-wait']);

    // A wait that begins under the current code has its deadline.
    assert.equal((await api.post('/v1/automations/runs/resume', { run_id: runId, node_id: 'first', reason: 'go' })).status, 200);
    const second = await waitFor('the second approval to expire', async () => {
      const n = nodeOf(await getRun(api, runId), 'second');
      return n.state === 'failed' ? n : null;
    });
    assert.equal(second.error.code, 'approval_timeout');
    assert.ok(second.approval.expires_at);

    // And the old wait can now be rejected.
    assert.equal((await api.post('/v1/automations/runs/resume', { run_id: runId, node_id: 'old-wait', decision: 'reject', reason: 'too late', actor: 'carol' })).status, 200);
    const done = await waitForStatus(api, runId, ['succeeded', 'failed', 'cancelled']);
    assert.equal(done.status, 'failed');
    assert.equal(nodeOf(done, 'old-wait').error.code, 'approval_rejected');
    assert.equal(nodeOf(done, 'old-wait').approval.decided_by, 'carol');
    const memo = (await wf.describe()).memo as Record<string, any>;
    assert.equal(memo.lore_status, 'failed');
    assert.deepEqual(
      memo.lore_decisions.map((d: any) => [d.node_ids, d.decision]),
      [
        [['first'], 'approve'],
        [['old-wait'], 'reject'],
      ],
    );

    // The history, old path then new, replays against the current code.
    await Worker.runReplayHistory({ workflowBundle: await currentWorkflowBundle(silentLog) }, await wf.fetchHistory(), before.workflow_id);
  });
});
