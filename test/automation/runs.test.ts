/**
 * Runs without playbooks (approval and condition nodes): pause at an approval, resume with a
 * reason, branch on an upstream output, cancel while paused, stop_on_failure both ways, listing,
 * and the Temporal workflow behind each run. All through HTTP against a real worker.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { currentWorkflowBundle } from '../../src/worker';
import { silentLog } from '../../src/log';
import { SA } from '../../src/model/search-attributes';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { branchGraph, createAutomation, getRun, nodeOf, resume, startRun, waitFor, waitForPausedAt, waitForStatus } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

describe('approval and condition', () => {
  it('pauses at the approval, resumes with a reason and actor, takes the true branch', async () => {
    const id = uniqueName('branch');
    await createAutomation(api, id, branchGraph('ship it'));
    const runId = await startRun(api, id);
    const paused = await waitForStatus(api, runId, ['paused']);
    assert.deepEqual(paused.paused_nodes, ['approve']);
    assert.equal(nodeOf(paused, 'approve').state, 'paused');
    assert.ok(nodeOf(paused, 'approve').approval.requested_at);
    assert.equal(nodeOf(paused, 'check').state, 'pending');
    assert.ok(paused.started_at);

    const r = await resume(api, runId, 'ship it', { actor: 'alice' } as never);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.resumed_node_ids, ['approve']);

    // The true branch ('yes') is an approval too: the run pauses there; 'no' is skipped.
    const again = await waitForPausedAt(api, runId, ['yes']);
    assert.equal(nodeOf(again, 'check').state, 'succeeded');
    assert.equal(nodeOf(again, 'check').output.result, true);
    assert.equal(nodeOf(again, 'check').output.left, 'ship it');
    assert.equal(nodeOf(again, 'no').state, 'skipped');
    assert.match(nodeOf(again, 'no').skip_reason, /condition 'check' was true/);
    assert.deepEqual(nodeOf(again, 'yes').inputs, { why: true }, 'references resolve from upstream outputs');
    const approve = nodeOf(again, 'approve');
    assert.equal(approve.state, 'succeeded');
    assert.equal(approve.approval.reason, 'ship it');
    assert.equal(approve.approval.resumed_by, 'alice');
    assert.equal(approve.output.reason, 'ship it');

    assert.equal((await resume(api, runId, 'done', {}, { node_id: 'yes' })).status, 200);
    const done = await waitForStatus(api, runId, ['succeeded', 'failed', 'cancelled']);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.deepEqual(done.node_counts, { pending: 0, running: 0, succeeded: 3, failed: 0, skipped: 1, paused: 0, cancelled: 0 });
    assert.deepEqual(
      done.resumes.map((x: { node_ids: string[]; reason: string; actor: string }) => [x.node_ids, x.reason, x.actor]),
      [
        [['approve'], 'ship it', 'alice'],
        [['yes'], 'done', 'local-user'],
      ],
    );
    assert.ok(done.finished_at);
    assert.match(done.reason, /3 succeeded, 1 skipped/);

    // Resuming a finished run is invalid_state, naming the state.
    const late = assertError(await resume(api, runId, 'again'), 409, 'invalid_state');
    assert.equal(late.error.details.state, 'succeeded');
    assertError(await api.post('/v1/automations/runs/cancel', { run_id: runId }), 409, 'invalid_state');
  });

  it('takes the false branch when the upstream output does not match; the run still succeeds', async () => {
    const id = uniqueName('branch-false');
    await createAutomation(api, id, branchGraph('ship it'));
    const runId = await startRun(api, id, {}, {}, { run_id: uniqueName('run') });
    await waitForStatus(api, runId, ['paused']);
    assert.equal((await resume(api, runId, 'hold it')).status, 200);
    const paused = await waitForPausedAt(api, runId, ['no']);
    assert.equal(nodeOf(paused, 'check').output.result, false);
    assert.equal(nodeOf(paused, 'yes').state, 'skipped');
    // Naming a node that is not waiting: invalid_state with its state; an unknown node: not_found.
    assert.equal(assertError(await resume(api, runId, 'x', {}, { node_id: 'yes' }), 409, 'invalid_state').error.details.state, 'skipped');
    assertError(await resume(api, runId, 'x', {}, { node_id: 'nope' }), 404, 'not_found');
    assert.equal((await resume(api, runId, 'ok', {}, { approval_key: 'after-no' })).status, 200);
    const done = await waitForStatus(api, runId, ['succeeded', 'failed', 'cancelled']);
    assert.equal(done.status, 'succeeded');
  });

  it('runs/resume on a run that is not paused is invalid_state with details.state', async () => {
    const id = uniqueName('not-paused');
    // A graph with no approval finishes at once.
    await createAutomation(api, id, { nodes: [{ node_id: 'c', kind: 'condition', condition: { left: 1, op: 'lt', right: 2 } }] });
    const runId = await startRun(api, id);
    const done = await waitForStatus(api, runId, ['succeeded', 'failed']);
    assert.equal(done.status, 'succeeded');
    assert.equal(nodeOf(done, 'c').output.result, true);
    const body = assertError(await resume(api, runId, 'why'), 409, 'invalid_state');
    assert.equal(body.error.details.state, 'succeeded');
  });
});

describe('cancel', () => {
  it('cancels a paused run: the waiting approval is cancelled, the rest skipped; resume and cancel after it are invalid_state', async () => {
    const id = uniqueName('cancel');
    await createAutomation(api, id, branchGraph('x'));
    const runId = await startRun(api, id);
    await waitForStatus(api, runId, ['paused']);
    const res = await api.post('/v1/automations/runs/cancel', { run_id: runId, reason: 'no longer needed', actor: 'bob' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const run = res.body.run.status === 'cancelled' ? res.body.run : await waitForStatus(api, runId, ['cancelled']);
    assert.equal(run.status, 'cancelled');
    assert.equal(run.cancel_requested, true);
    assert.equal(run.cancel_reason, 'no longer needed');
    const full = await getRun(api, runId);
    assert.equal(nodeOf(full, 'approve').state, 'cancelled');
    for (const n of ['check', 'yes', 'no']) assert.equal(nodeOf(full, n).state, 'skipped');
    assert.deepEqual(full.paused_nodes, []);
    const after = assertError(await resume(api, runId, 'too late'), 409, 'invalid_state');
    assert.equal(after.error.details.state, 'cancelled');
    assert.equal(assertError(await api.post('/v1/automations/runs/cancel', { run_id: runId }), 409, 'invalid_state').error.details.state, 'cancelled');
    // The store shows the end first (the workflow's last write); the workflow closes right after.
    const wf = await waitFor(
      'the workflow to close',
      async () => {
        const d = await api.engine.describe(run.workflow_id);
        return d && d.state !== 'running' ? d : null;
      },
      30_000,
    );
    assert.equal(wf.state, 'cancelled', 'the Temporal workflow itself is cancelled');
  });
});

/** c1 → bad (its input reads a field c1 does not have: it fails) → after; independently wait (approval) → c2. */
const failingGraph = {
  nodes: [
    { node_id: 'c1', kind: 'condition', condition: { left: 1, op: 'eq', right: 1 } },
    { node_id: 'bad', kind: 'approval', approval_key: 'bad', inputs: { x: '$nodes.c1.no_such_field' } },
    { node_id: 'after', kind: 'condition', condition: { left: true, op: 'truthy' } },
    { node_id: 'wait', kind: 'approval', approval_key: 'wait' },
    { node_id: 'c2', kind: 'condition', condition: { left: '$nodes.wait.reason', op: 'exists' } },
  ],
  edges: [
    { from: 'c1', to: 'bad' },
    { from: 'bad', to: 'after' },
    { from: 'wait', to: 'c2' },
  ],
};

describe('stop_on_failure', () => {
  it('true: the first failure stops the run: waiting nodes are cancelled, the rest skipped; the run fails', async () => {
    const id = uniqueName('stop');
    await createAutomation(api, id, failingGraph);
    const runId = await startRun(api, id, { stop_on_failure: true });
    const run = await waitForStatus(api, runId, ['failed', 'succeeded', 'cancelled']);
    assert.equal(run.status, 'failed');
    assert.equal(run.error.node_id, 'bad');
    assert.equal(run.error.code, 'reference_unresolved');
    assert.match(run.error.message, /\$nodes\.c1\.no_such_field/);
    assert.equal(nodeOf(run, 'bad').state, 'failed');
    assert.equal(nodeOf(run, 'after').state, 'skipped');
    assert.equal(nodeOf(run, 'c2').state, 'skipped');
    // 'wait' was paused or not yet started when the failure came: cancelled either way, never left open.
    assert.ok(['cancelled', 'skipped'].includes(nodeOf(run, 'wait').state), nodeOf(run, 'wait').state);
    assert.match(run.reason, /stop_on_failure/);
  });

  it('false: independent branches go on; the run fails once everything settled', async () => {
    const id = uniqueName('go-on');
    await createAutomation(api, id, failingGraph);
    const runId = await startRun(api, id, { stop_on_failure: false });
    const settled = await waitFor('bad to fail while wait is paused', async () => {
      const r = await waitForPausedAt(api, runId, ['wait']);
      return nodeOf(r, 'bad').state === 'failed' ? r : null;
    });
    assert.equal(nodeOf(settled, 'wait').state, 'paused', 'the independent branch still waits');
    assert.equal((await resume(api, runId, 'carry on')).status, 200);
    const done = await waitForStatus(api, runId, ['failed', 'succeeded', 'cancelled']);
    assert.equal(done.status, 'failed');
    assert.equal(nodeOf(done, 'after').state, 'skipped');
    assert.match(nodeOf(done, 'after').skip_reason, /upstream node 'bad' failed/);
    assert.equal(nodeOf(done, 'c2').state, 'succeeded');
    assert.equal(nodeOf(done, 'c2').output.result, true);
  });
});

describe('runs/list and the workflow', () => {
  it('lists newest first, filters by automation_id and status, pages with a cursor', async () => {
    const scope = uniqueName('runs-list');
    await createAutomation(api, 'quick', { nodes: [{ node_id: 'c', kind: 'condition', condition: { left: 1, op: 'eq', right: 1 } }] }, { scope });
    await createAutomation(api, 'slow', branchGraph('x'), { scope });
    const quick: string[] = [];
    for (let i = 0; i < 3; i++) quick.push(await startRun(api, 'quick', {}, { scope }, { run_id: `q-${i}` }));
    const slow = await startRun(api, 'slow', {}, { scope }, { run_id: 's-0' });
    for (const r of quick) await waitForStatus(api, r, ['succeeded'], 60_000, { scope });
    await waitForStatus(api, slow, ['paused'], 60_000, { scope });

    const all = await api.post('/v1/automations/runs/list', { scope });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(
      all.body.runs.map((r: { run_id: string }) => r.run_id),
      ['s-0', 'q-2', 'q-1', 'q-0'],
    );
    assert.equal(all.body.runs[0].nodes, undefined);
    const byAutomation = await api.post('/v1/automations/runs/list', { scope, automation_id: 'quick', limit: 2 });
    assert.deepEqual(
      byAutomation.body.runs.map((r: { run_id: string }) => r.run_id),
      ['q-2', 'q-1'],
    );
    const next = await api.post('/v1/automations/runs/list', { scope, automation_id: 'quick', limit: 2, cursor: byAutomation.body.next_cursor });
    assert.deepEqual(
      next.body.runs.map((r: { run_id: string }) => r.run_id),
      ['q-0'],
    );
    assert.equal(next.body.next_cursor, null);
    const paused = await api.post('/v1/automations/runs/list', { scope, status: 'paused' });
    assert.deepEqual(
      paused.body.runs.map((r: { run_id: string }) => r.run_id),
      ['s-0'],
    );
    const either = await api.post('/v1/automations/runs/list', { scope, status: ['paused', 'succeeded'], limit: 3 });
    assert.deepEqual(
      either.body.runs.map((r: { run_id: string }) => r.run_id),
      ['s-0', 'q-2', 'q-1'],
    );
    assertError(await api.post('/v1/automations/runs/list', { scope, status: 'sleeping' }), 400, 'invalid_request');
    // An automation that does not exist has no empty list of runs: it is not_found (issue 39).
    const unknown = assertError(await api.post('/v1/automations/runs/list', { scope, automation_id: 'no-such-automation' }), 404, 'not_found');
    assert.equal(unknown.error.details.automation_id, 'no-such-automation');

    // The same run_id again with the same automation and options is the same run; otherwise a conflict.
    const repeat = await api.post('/v1/automations/run', { scope, automation_id: 'quick', run_id: 'q-0' });
    assert.equal(repeat.status, 200);
    assert.equal(repeat.body.created, false);
    assertError(await api.post('/v1/automations/run', { scope, automation_id: 'slow', run_id: 'q-0' }), 409, 'conflict');
    assertError(await api.post('/v1/automations/run', { scope, automation_id: 'quick', run_id: 'q-0', options: { stop_on_failure: false } }), 409, 'conflict');
    await api.post('/v1/automations/runs/cancel', { scope, run_id: slow });
  });

  it('each run is one Temporal workflow named from tenant, scope and run_id, with search attributes', async () => {
    const tenant_id = uniqueName('acme');
    const scope = 'team/alpha beta';
    await createAutomation(api, 'wf', { nodes: [{ node_id: 'c', kind: 'condition', condition: { left: 1, op: 'eq', right: 1 } }] }, { tenant_id, scope });
    const res = await api.post('/v1/automations/run', { tenant_id, scope, automation_id: 'wf', run_id: 'r-1' });
    assert.equal(res.status, 200);
    assert.equal(res.body.run.status, 'queued', 'run answers at once, before the workflow has run');
    assert.equal(res.body.run.workflow_id, `automation/${tenant_id}/${encodeURIComponent(scope)}/r-1`);
    await waitForStatus(api, 'r-1', ['succeeded'], 60_000, { tenant_id, scope });
    const info = await api.engine.client.workflow.getHandle(res.body.run.workflow_id).describe();
    assert.equal(info.type, 'automationRunWorkflow');
    assert.equal(info.typedSearchAttributes.get(SA.tenant), tenant_id);
    assert.equal(info.typedSearchAttributes.get(SA.scope), scope);
    assert.equal(info.typedSearchAttributes.get(SA.runKind), 'automation');
    assert.equal(info.typedSearchAttributes.get(SA.automationId), 'wf');
  });

  it('a disabled automation does not run; a draft and an active one do', async () => {
    const id = uniqueName('gated');
    await createAutomation(api, id, { nodes: [{ node_id: 'c', kind: 'condition', condition: { left: 1, op: 'eq', right: 1 } }] });
    await waitForStatus(api, await startRun(api, id), ['succeeded']);
    await api.post('/v1/automations/status', { automation_id: id, status: 'disabled' });
    const body = assertError(await api.post('/v1/automations/run', { automation_id: id }), 409, 'invalid_state');
    assert.equal(body.error.details.state, 'disabled');
    await api.post('/v1/automations/status', { automation_id: id, status: 'active' });
    await waitForStatus(api, await startRun(api, id), ['succeeded']);
  });
});

describe('no run stays open', () => {
  it('cancel while queued (no worker): recorded at once; the run ends cancelled when a worker picks it up, nothing ran', async () => {
    const id = uniqueName('queued');
    await createAutomation(api, id, branchGraph('x'));
    await api.stopWorker();
    try {
      const runId = await startRun(api, id);
      const res = await api.post('/v1/automations/runs/cancel', { run_id: runId, reason: 'changed my mind' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      if (res.body.run.status !== 'cancelled') {
        assert.equal(res.body.run.cancel_requested, true);
        assert.match(res.body.message, /cancellation requested/);
      }
      await api.startWorker();
      const run = await waitForStatus(api, runId, ['cancelled', 'succeeded', 'failed']);
      assert.equal(run.status, 'cancelled');
      for (const n of run.nodes) assert.equal(n.state, 'skipped', `${n.node_id} never started`);
    } finally {
      await api.startWorker().catch(() => undefined);
    }
  });

  it('a run whose workflow was terminated by an operator is settled failed on read, with a reason', async () => {
    const id = uniqueName('terminated');
    await createAutomation(api, id, branchGraph('x'));
    const runId = await startRun(api, id);
    const paused = await waitForPausedAt(api, runId, ['approve']);
    await api.engine.terminate(paused.workflow_id, 'operator test');
    // Reads double-check open runs against the engine once they are older than the grace period.
    const run = await waitForStatus(api, runId, ['failed', 'cancelled', 'succeeded'], 60_000);
    assert.equal(run.status, 'failed');
    assert.match(run.reason, /terminated/);
    assert.equal(nodeOf(run, 'approve').state, 'cancelled');
    assert.equal(nodeOf(run, 'check').state, 'skipped');
    assertError(await resume(api, runId, 'late'), 409, 'invalid_state');
  });
});

describe('determinism', () => {
  const created = async (prefix: string, graph: Record<string, unknown>) => {
    const id = uniqueName(prefix);
    await createAutomation(api, id, graph);
    return id;
  };
  /** Drives a run of each kind to its end (signals, cancellation, a failure) and returns the workflow ids. */
  async function recordHistories(): Promise<string[]> {
    const signalled = await startRun(api, await created('replay-signals', branchGraph('ship it')));
    await waitForPausedAt(api, signalled, ['approve']);
    assert.equal((await resume(api, signalled, 'ship it')).status, 200);
    await waitForPausedAt(api, signalled, ['yes']);
    assert.equal((await resume(api, signalled, 'done', {}, { node_id: 'yes' })).status, 200);
    const s = await waitForStatus(api, signalled, ['succeeded', 'failed', 'cancelled']);
    assert.equal(s.status, 'succeeded');

    const cancelled = await startRun(api, await created('replay-cancel', branchGraph('x')));
    await waitForPausedAt(api, cancelled, ['approve']);
    assert.equal((await api.post('/v1/automations/runs/cancel', { run_id: cancelled })).status, 200);
    const c = await waitForStatus(api, cancelled, ['cancelled']);
    await waitFor('the cancelled workflow to close', async () => (await api.engine.describe(c.workflow_id))?.state === 'cancelled', 30_000);

    const failing = await startRun(api, await created('replay-fail', failingGraph), { stop_on_failure: false });
    await waitFor('bad to fail while wait is paused', async () => nodeOf(await waitForPausedAt(api, failing, ['wait']), 'bad').state === 'failed');
    assert.equal((await resume(api, failing, 'carry on')).status, 200);
    const f = await waitForStatus(api, failing, ['failed', 'succeeded', 'cancelled']);
    assert.equal(f.status, 'failed');
    return [s.workflow_id, c.workflow_id, f.workflow_id];
  }

  it('the recorded histories (signals, cancellation, failures) replay against the current workflow code', async () => {
    const workflowIds = await recordHistories();
    const workflowBundle = await currentWorkflowBundle(silentLog); // one bundle for every history
    for (const workflowId of workflowIds) {
      const history = await api.engine.client.workflow.getHandle(workflowId).fetchHistory();
      // Throws DeterminismViolationError when the code no longer matches what the history recorded.
      await Worker.runReplayHistory({ workflowBundle }, history, workflowId);
    }
  });
});
