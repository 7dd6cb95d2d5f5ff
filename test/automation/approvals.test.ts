/**
 * Approvals that can say no and can expire (docs/automation.md, "Approvals and resume"): runs/resume
 * with decision reject, approval timeouts with each on_timeout, a timeout that passes while no
 * worker runs, and what the Temporal UI shows (static summary and details, current details, memo).
 * All through HTTP against a real worker.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { createAutomation, getRun, nodeOf, sleep, startRun, waitFor, waitForPausedAt, waitForStatus } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

const decide = (run_id: string, body: Record<string, unknown> = {}) => api.post('/v1/automations/runs/resume', { run_id, ...body });

/** gate (approval) → check (condition: always true) → done (approval), plus extra fields on gate. */
const gated = (gate: Record<string, unknown> = {}) => ({
  nodes: [
    { node_id: 'gate', kind: 'approval', approval_key: 'release', ...gate },
    { node_id: 'check', kind: 'condition', condition: { left: 1, op: 'lt', right: 2 } },
    { node_id: 'done', kind: 'approval', approval_key: 'after' },
  ],
  edges: [
    { from: 'gate', to: 'check' },
    { from: 'check', to: 'done' },
  ],
});

async function describeWorkflow(workflowId: string) {
  const handle = api.engine.client.workflow.getHandle(workflowId);
  const d = await handle.describe();
  const meta = (await handle.query('__temporal_workflow_metadata').catch(() => null)) as { currentDetails?: string } | null;
  return { memo: (d.memo ?? {}) as Record<string, any>, summary: await d.staticSummary(), details: await d.staticDetails(), current: meta?.currentDetails ?? '' };
}

describe('reject', () => {
  it('fails the approval node with the reason; stop_on_failure stops the run; who, when and why are recorded', async () => {
    const id = uniqueName('reject');
    await createAutomation(api, id, gated());
    const runId = await startRun(api, id);
    await waitForPausedAt(api, runId, ['gate']);
    const r = await decide(runId, { decision: 'reject', reason: 'too risky on a Friday', actor: 'carol' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.decision, 'reject');
    assert.deepEqual(r.body.resumed_node_ids, ['gate']);

    const run = await waitForStatus(api, runId, ['succeeded', 'failed', 'cancelled']);
    assert.equal(run.status, 'failed', JSON.stringify(run));
    assert.equal(run.error.node_id, 'gate');
    assert.equal(run.error.code, 'approval_rejected');
    assert.match(run.error.message, /rejected by carol: too risky on a Friday/);
    assert.match(run.reason, /node 'gate' failed: approval 'release' was rejected by carol/);
    const gate = nodeOf(run, 'gate');
    assert.equal(gate.state, 'failed');
    assert.equal(gate.error.code, 'approval_rejected');
    assert.equal(gate.approval.decision, 'reject');
    assert.equal(gate.approval.decided_by, 'carol');
    assert.equal(gate.approval.decided_at, api.clock.now().toISOString());
    assert.equal(gate.approval.reason, 'too risky on a Friday');
    assert.equal(gate.approval.timed_out, false);
    assert.equal(gate.output.approved, false);
    assert.equal(nodeOf(run, 'check').state, 'skipped');
    assert.equal(nodeOf(run, 'done').state, 'skipped');
    assert.deepEqual(
      run.resumes.map((x: any) => [x.node_ids, x.decision, x.reason, x.actor, x.timed_out]),
      [[['gate'], 'reject', 'too risky on a Friday', 'carol', false]],
    );

    // The Temporal UI says the same: the memo's decisions, the final status and reason.
    const ui = await describeWorkflow(run.workflow_id);
    assert.equal(ui.memo.lore_status, 'failed');
    assert.deepEqual(
      ui.memo.lore_decisions.map((d: any) => [d.decision, d.actor, d.reason]),
      [['reject', 'carol', 'too risky on a Friday']],
    );
    assert.match(ui.memo.lore_summary, /rejected by carol/);
    assert.match(ui.current, /failed/);
  });

  it('with stop_on_failure false an independent approval still waits and can be approved; the run then ends failed', async () => {
    const id = uniqueName('reject-go-on');
    await createAutomation(api, id, {
      nodes: [
        { node_id: 'a', kind: 'approval', approval_key: 'a' },
        { node_id: 'after-a', kind: 'condition', condition: { left: '$nodes.a.reason', op: 'exists' } },
        { node_id: 'b', kind: 'approval', approval_key: 'b' },
      ],
      edges: [{ from: 'a', to: 'after-a' }],
    });
    const runId = await startRun(api, id, { stop_on_failure: false });
    await waitForPausedAt(api, runId, ['a', 'b']);
    assert.equal((await decide(runId, { node_id: 'a', decision: 'reject' })).status, 200);
    const still = await waitForPausedAt(api, runId, ['b']);
    assert.equal(nodeOf(still, 'a').state, 'failed');
    assert.equal(nodeOf(still, 'a').approval.reason, null, 'the reason is optional');
    assert.equal(nodeOf(still, 'after-a').state, 'skipped');
    // No decision means approve; no reason is fine.
    const ok = await decide(runId, { approval_key: 'b' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.decision, 'approve');
    const run = await waitForStatus(api, runId, ['succeeded', 'failed', 'cancelled']);
    assert.equal(run.status, 'failed');
    assert.equal(nodeOf(run, 'b').state, 'succeeded');
    assert.equal(nodeOf(run, 'b').approval.decision, 'approve');
    assert.equal(nodeOf(run, 'b').output.approved, true);
    assert.deepEqual(
      run.resumes.map((x: any) => [x.node_ids, x.decision, x.reason]),
      [
        [['a'], 'reject', null],
        [['b'], 'approve', null],
      ],
    );
  });

  it('bad decisions and reasons are invalid_request; a finished run is invalid_state', async () => {
    const id = uniqueName('reject-bad');
    await createAutomation(api, id, gated());
    const runId = await startRun(api, id);
    await waitForPausedAt(api, runId, ['gate']);
    assertError(await decide(runId, { decision: 'maybe' }), 400, 'invalid_request');
    assertError(await decide(runId, { reason: '   ' }), 400, 'invalid_request');
    assertError(await decide(runId, { reason: 7 }), 400, 'invalid_request');
    assertError(await decide('no-such-run', { decision: 'reject' }), 404, 'not_found');
    assert.equal((await decide(runId, { decision: 'reject', reason: 'no' })).status, 200);
    await waitForStatus(api, runId, ['failed']);
    assert.equal(assertError(await decide(runId, { decision: 'approve' }), 409, 'invalid_state').error.details.state, 'failed');
  });
});

describe('timeout', () => {
  it('on_timeout reject (the default): the deadline rejects for Lore; the timer is in the workflow', async () => {
    const id = uniqueName('expire-reject');
    await createAutomation(api, id, gated({ timeout: 'PT2S' }));
    const runId = await startRun(api, id);
    const paused = await waitForPausedAt(api, runId, ['gate']);
    assert.ok(nodeOf(paused, 'gate').approval.expires_at, 'the node says when it expires');
    const ui = await describeWorkflow(paused.workflow_id);
    assert.equal(ui.memo.lore_status, 'paused');
    assert.equal(ui.memo.lore_waiting[0].node_id, 'gate');
    assert.equal(ui.memo.lore_waiting[0].expires_at, nodeOf(paused, 'gate').approval.expires_at);
    assert.match(ui.current, /approval node `gate` \(approval_key `release`\) waits for a decision/);
    assert.match(ui.current, /be rejected/);

    const run = await waitForStatus(api, runId, ['succeeded', 'failed', 'cancelled']);
    assert.equal(run.status, 'failed');
    assert.equal(run.error.code, 'approval_rejected');
    const gate = nodeOf(run, 'gate');
    assert.equal(gate.approval.decision, 'reject');
    assert.equal(gate.approval.decided_by, 'lore');
    assert.equal(gate.approval.timed_out, true);
    assert.match(gate.approval.reason, /no decision within PT2S/);
    assert.deepEqual(
      run.resumes.map((x: any) => [x.node_ids, x.decision, x.actor, x.timed_out]),
      [[['gate'], 'reject', 'lore', true]],
    );
    // The deadline is a Temporal timer, visible in the history.
    const history = await api.engine.client.workflow.getHandle(run.workflow_id).fetchHistory();
    assert.ok(
      history.events?.some((e) => e.timerFiredEventAttributes),
      'a timer fired',
    );
  });

  it('on_timeout fail: the node fails approval_timeout with no decision recorded', async () => {
    const id = uniqueName('expire-fail');
    await createAutomation(api, id, gated({ timeout: 2, on_timeout: 'fail' }));
    const run = await waitForStatus(api, await startRun(api, id), ['succeeded', 'failed', 'cancelled']);
    assert.equal(run.status, 'failed');
    assert.equal(run.error.code, 'approval_timeout');
    const gate = nodeOf(run, 'gate');
    assert.equal(gate.error.code, 'approval_timeout');
    assert.equal(gate.approval.decision, null);
    assert.equal(gate.approval.timed_out, true);
    assert.deepEqual(run.resumes, []);
  });

  it('a decision before the deadline wins; the stored graph keeps the timeout as given', async () => {
    const id = uniqueName('expire-late');
    const def = await createAutomation(api, id, gated({ timeout: 'P1D', on_timeout: 'fail' }));
    const gateDef = def.graph.nodes.find((n: any) => n.node_id === 'gate');
    assert.deepEqual([gateDef.timeout, gateDef.timeout_ms, gateDef.on_timeout], ['P1D', 86_400_000, 'fail']);
    const runId = await startRun(api, id);
    await waitForPausedAt(api, runId, ['gate']);
    assert.equal((await decide(runId, { reason: 'fine' })).status, 200);
    const next = await waitForPausedAt(api, runId, ['done']);
    assert.equal(nodeOf(next, 'gate').state, 'succeeded');
    assert.equal(nodeOf(next, 'gate').approval.timed_out, false);
  });

  it('a deadline that passes while no worker runs fires when one is back', { timeout: 300_000 }, async () => {
    const id = uniqueName('expire-down');
    await createAutomation(api, id, gated({ timeout: 'PT3S' }));
    const runId = await startRun(api, id);
    const paused = await waitForPausedAt(api, runId, ['gate']);
    await api.stopWorker();
    try {
      const expires = Date.parse(nodeOf(paused, 'gate').approval.expires_at);
      await sleep(Math.max(0, expires - Date.now()) + 2000);
      // No worker: nothing has moved.
      assert.equal((await getRun(api, runId)).status, 'paused');
    } finally {
      await api.startWorker();
    }
    const run = await waitForStatus(api, runId, ['succeeded', 'failed', 'cancelled']);
    assert.equal(run.status, 'failed');
    assert.equal(nodeOf(run, 'gate').approval.timed_out, true);
    assert.equal(nodeOf(run, 'gate').approval.decided_by, 'lore');
  });

  it('validation: the timeout is an ISO-8601 duration or seconds; on_timeout needs it', async () => {
    const res = await api.post('/v1/automations/validate', {
      graph: {
        nodes: [
          { node_id: 'a', kind: 'approval', approval_key: 'a', timeout: 'P1M' },
          { node_id: 'b', kind: 'approval', approval_key: 'b', timeout: 'soon' },
          { node_id: 'c', kind: 'approval', approval_key: 'c', timeout: 0 },
          { node_id: 'd', kind: 'approval', approval_key: 'd', on_timeout: 'fail' },
          { node_id: 'e', kind: 'approval', approval_key: 'e', timeout: 'PT1H', on_timeout: 'ignore' },
          { node_id: 'f', kind: 'approval', approval_key: 'f', timeout: 'P1W2DT3H4M5.5S' },
          { node_id: 'g', kind: 'approval', approval_key: 'g', timeout: 'P400D' },
        ],
        edges: [],
      },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.valid, false);
    assert.deepEqual(res.body.issues.map((i: any) => i.path).sort(), [
      'graph.nodes[0].timeout',
      'graph.nodes[1].timeout',
      'graph.nodes[2].timeout',
      'graph.nodes[3].on_timeout',
      'graph.nodes[4].on_timeout',
      'graph.nodes[6].timeout',
    ]);
    assert.match(res.body.issues.find((i: any) => i.path === 'graph.nodes[0].timeout').message, /months/);
  });
});

describe('the Temporal UI', () => {
  it('shows the automation name and its nodes as the static summary and details', async () => {
    const id = uniqueName('ui');
    await createAutomation(api, id, gated({ timeout: 'PT1H' }), {}, { name: 'Release train' });
    const runId = await startRun(api, id);
    const paused = await waitForPausedAt(api, runId, ['gate']);
    const ui = await describeWorkflow(paused.workflow_id);
    assert.equal(ui.summary, `automation Release train (${id}): run ${runId}`);
    assert.match(ui.details ?? '', /`gate`: approval release \(timeout PT1H, then reject\)/);
    assert.match(ui.current, /Paused/);
    await api.post('/v1/automations/runs/cancel', { run_id: runId });
    await waitFor('the run to be cancelled', async () => (await getRun(api, runId)).status === 'cancelled');
  });
});
