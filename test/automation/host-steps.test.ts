/**
 * Proof 3 of issue 29, with real worker processes: an automation `playbook (guided) → approval →
 * playbook` whose first playbook has a host step. The run shows which node waits for the host;
 * the worker is killed with SIGKILL while it waits; the host reports the step while no worker is
 * up; a new worker picks the run up from Temporal's history and the run completes through the
 * approval. A second run is cancelled while it waits for the host and ends cleanly. Graph
 * validation: a playbook with host steps needs `mode: guided`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { LoreProcesses } from '../helpers/lore-processes';
import { createAutomation, getRun, makePlaybook, nodeOf, startRun, waitFor, waitForPausedAt, waitForStatus } from './helpers';

let api: TestApi;
let scratch = '';
let procs: LoreProcesses;

before(async () => {
  api = await startTestApi({ worker: false });
  scratch = mkdtempSync(join(tmpdir(), 'lore-automation-host-steps-'));
  // This file's worker processes run one after another; 560000–569999 is its uid block (docs/sandbox.md).
  procs = new LoreProcesses({ api, dataDir: scratch, ids: { min: 560000, max: 569999 } });
});
after(async () => {
  procs?.killAll();
  await api?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const post = async (path: string, body: Record<string, unknown>) => {
  const res = await api.post(path, body);
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  return res.body;
};

/** A playbook from a recorded run with a host step (Read) then a command. */
async function reviewPlaybook() {
  await post('/v1/memory/replay/run/start', { run_id: 'review-rec', goal: 'review the notes, then stamp them' });
  await post('/v1/memory/replay/step/before', { run_id: 'review-rec', step_index: 0, tool_name: 'Read', tool_input: { file_path: 'notes.md' } });
  await post('/v1/memory/replay/step/after', { run_id: 'review-rec', step_index: 0, status: 'success', output_signature: { summary: 'read the notes', markers: ['notes ok'] } });
  await post('/v1/memory/replay/step/before', { run_id: 'review-rec', step_index: 1, tool_name: 'command', tool_input: { argv: ['echo', 'stamped'] } });
  await post('/v1/memory/replay/step/after', { run_id: 'review-rec', step_index: 1, status: 'success', output_signature: { exit_code: 0, summary: 'stamped' } });
  await post('/v1/memory/replay/run/end', { run_id: 'review-rec', status: 'success' });
  await post('/v1/memory/replay/playbooks/compile_from_run', { run_id: 'review-rec', playbook_id: 'review-pb' });
  await post('/v1/memory/replay/playbooks/promote', { playbook_id: 'review-pb', target_status: 'active' });
}

const graph = (mode?: string) => ({
  nodes: [
    { node_id: 'review', kind: 'playbook', playbook_id: 'review-pb', version: 1, ...(mode ? { mode } : {}) },
    { node_id: 'gate', kind: 'approval', approval_key: 'ship' },
    { node_id: 'last', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: '$nodes.gate.reason' } },
  ],
  edges: [
    { from: 'review', to: 'gate' },
    { from: 'gate', to: 'last' },
  ],
});

const waitingAt = (runId: string) =>
  waitFor(
    `run ${runId} to wait for the host`,
    async () => {
      const r = (await api.post('/v1/automations/runs/get', { run_id: runId, include_nodes: true })).body.run;
      if (['succeeded', 'failed', 'cancelled'].includes(r.status)) throw new Error(`run ${runId} ended ${r.status}: ${JSON.stringify(r)}`);
      return r.waiting_for_host.length > 0 ? r : null;
    },
    240_000,
  );

describe('guided playbook nodes', () => {
  before(async () => {
    await reviewPlaybook();
    await makePlaybook(api, 'echo-color', ['echo green'], { color: 'green' });
  });

  it('a playbook with host steps needs mode guided; other modes are validation issues', async () => {
    const strict = assertError(await api.post('/v1/automations/create', { automation_id: 'needs-guided', graph: graph() }), 422, 'validation_failed');
    assert.match(JSON.stringify(strict.error.details.issues), /needs the host; strict mode runs command steps only/);
    const bad = assertError(await api.post('/v1/automations/create', { automation_id: 'bad-mode', graph: graph('fast') }), 422, 'validation_failed');
    assert.ok(
      bad.error.details.issues.some((i: any) => i.path === 'graph.nodes[0].mode' && /'strict'.*'guided'/.test(i.message)),
      JSON.stringify(bad.error.details.issues),
    );
    const created = await createAutomation(api, 'guided-flow', graph('guided'));
    assert.equal(created.graph.nodes[0].mode, 'guided');
    // strict spelled out is the default and is not stored: the same content hash as without it.
    const a = await createAutomation(
      api,
      'plain-1',
      { nodes: [{ node_id: 'x', kind: 'playbook', playbook_id: 'echo-color', version: 1, mode: 'strict' }], edges: [] },
      {},
      { name: 'same' },
    );
    const b = await createAutomation(api, 'plain-2', { nodes: [{ node_id: 'x', kind: 'playbook', playbook_id: 'echo-color', version: 1 }], edges: [] }, {}, { name: 'same' });
    assert.equal(a.content_hash, b.content_hash);
  });

  it('the run shows the node waiting for the host; it survives kill -9 of the worker; the host step answered, it completes through the approval', {
    timeout: 900_000,
  }, async () => {
    const worker1 = await procs.start('worker');
    await startRun(api, 'guided-flow', {}, {}, { run_id: 'g-run' });
    const waiting = await waitingAt('g-run');
    assert.equal(waiting.status, 'running');
    assert.deepEqual(
      waiting.waiting_for_host.map((w: any) => [w.node_id, w.replay_run_id, w.step_index, w.tool_name, w.reported]),
      [['review', 'g-run:review', 0, 'Read', false]],
    );
    assert.equal(nodeOf(waiting, 'review').state, 'running');
    assert.equal(nodeOf(waiting, 'review').host_step.step_index, 0);
    assert.equal(nodeOf(waiting, 'gate').host_step, null);
    const pb = (await post('/v1/memory/replay/runs/get', { run_id: 'g-run:review' })).run;
    assert.equal(pb.playbook.mode, 'guided');
    assert.deepEqual(pb.pending_step.tool_input, { file_path: 'notes.md' });

    await procs.kill9(worker1, { tree: true });
    // No worker: the store still says where the run waits, and the host can report (Temporal keeps the signal).
    assert.equal((await getRun(api, 'g-run')).waiting_for_host[0].node_id, 'review');
    const reported = await post('/v1/memory/replay/playbooks/runs/steps/complete', {
      run_id: 'g-run:review',
      step_index: 0,
      status: 'success',
      output_signature: { summary: 'the notes say: notes ok' },
      wait_ms: 0,
    });
    assert.equal(reported.accepted, true);
    assert.equal(reported.step.status, 'pending', 'nothing judges it until a worker is back');
    assert.equal(reported.pending_step.reported, true);
    assertError(await api.post('/v1/memory/replay/playbooks/runs/steps/complete', { run_id: 'g-run:review', step_index: 0, status: 'success' }), 409, 'invalid_state');

    const worker2 = await procs.start('worker');
    const paused = await waitForPausedAt(api, 'g-run', ['gate'], {}, 240_000);
    assert.equal(paused.waiting_for_host.length, 0);
    const review = nodeOf(paused, 'review');
    assert.equal(review.state, 'succeeded');
    assert.deepEqual(
      review.output.steps.map((s: any) => s.status),
      ['success', 'success'],
    );
    assert.equal(review.output.outputs['1'], 'stamped');
    const judged = (await post('/v1/memory/replay/runs/get', { run_id: 'g-run:review' })).run.steps[0];
    assert.deepEqual(
      judged.match.checks.map((c: any) => [c.check, c.passed]),
      [
        ['status', true],
        ['marker', true],
      ],
    );

    assert.equal((await api.post('/v1/automations/runs/resume', { run_id: 'g-run', reason: 'blue' })).status, 200);
    const done = await waitForStatus(api, 'g-run', ['succeeded', 'failed', 'cancelled'], 240_000);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.equal(nodeOf(done, 'last').output.outputs['0'], 'blue');

    // Cancelled while it waits for the host: the playbook run and the automation end cleanly.
    await startRun(api, 'guided-flow', {}, {}, { run_id: 'g-cancel' });
    await waitingAt('g-cancel');
    const cancelled = await post('/v1/automations/runs/cancel', { run_id: 'g-cancel', reason: 'not today' });
    const ended = cancelled.run.status === 'cancelled' ? cancelled.run : await waitForStatus(api, 'g-cancel', ['cancelled'], 120_000);
    assert.equal(ended.status, 'cancelled');
    const after = await getRun(api, 'g-cancel');
    assert.equal(nodeOf(after, 'review').state, 'cancelled');
    assert.deepEqual([nodeOf(after, 'gate').state, nodeOf(after, 'last').state], ['skipped', 'skipped']);
    assert.deepEqual(after.waiting_for_host, []);
    const pbRun = await waitFor('the playbook run to end', async () => {
      const r = (await post('/v1/memory/replay/runs/get', { run_id: 'g-cancel:review' })).run;
      return r.state === 'ended' ? r : null;
    });
    assert.equal(pbRun.status, 'cancelled');
    assert.equal(pbRun.pending_step, null);
    assert.deepEqual(
      pbRun.steps.map((s: any) => s.status),
      ['skipped', 'skipped'],
    );
    assert.match(pbRun.steps[0].error, /cancelled while this step waited for the host/);
    const late = assertError(
      await api.post('/v1/memory/replay/playbooks/runs/steps/complete', { run_id: 'g-cancel:review', step_index: 0, status: 'success' }),
      409,
      'invalid_state',
    );
    assert.equal(late.error.details.state, 'ended');
    await procs.kill9(worker2, { tree: true });
  });
});
