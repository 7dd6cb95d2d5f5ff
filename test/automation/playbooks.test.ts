/**
 * Playbook nodes with real playbooks (made through the replay routes) whose commands run in the
 * sandbox: proofs 1–3 of docs/automation.md.
 *   1. playbook → approval → playbook: pauses, resumes with a reason, succeeds; node states and
 *      outputs visible; record_run records the execution as a replay run.
 *   2. a condition on an upstream playbook's output takes the right branch; an artifact gate fails
 *      when the file is missing and passes when it is there.
 *   3. cancel while a sandbox command runs: the process dies, the run is cancelled, resume after
 *      cancel is invalid_state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { processesRunning, processesWith } from '../sandbox/helpers';
import { createAutomation, getRun, makePlaybook, nodeOf, resume, startRun, waitFor, waitForEnd, waitForPausedAt, waitForStatus } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
  await makePlaybook(api, 'echo-color', ['echo green'], { color: 'green' });
  await makePlaybook(api, 'write-file', ['mkdir -p artifacts && echo data > artifacts/report.txt && echo wrote'], { file: 'report.txt' });
  await makePlaybook(api, 'sleepy', ['echo started; sleep 123.456']);
});
after(async () => api?.close());

const replayRun = async (run_id: string) => {
  const res = await api.post('/v1/memory/replay/runs/get', { run_id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.run;
};

describe('proof 1: playbook → approval → playbook', () => {
  it('pauses, resumes with a reason, succeeds; states, outputs and the replay record are visible', async () => {
    const id = uniqueName('release');
    await createAutomation(api, id, {
      nodes: [
        { node_id: 'build', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: 'alpha' } },
        { node_id: 'approve', kind: 'approval', approval_key: 'release', inputs: { built: '$nodes.build.outputs.0' } },
        { node_id: 'deploy', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: '$nodes.approve.reason' } },
      ],
      edges: [
        { from: 'build', to: 'approve', type: 'on_success' },
        { from: 'approve', to: 'deploy', type: 'on_success' },
      ],
    });
    const runId = await startRun(api, id, { record_run: true, stop_on_failure: true, execution_mode: 'default' });
    const paused = await waitForPausedAt(api, runId, ['approve']);
    const build = nodeOf(paused, 'build');
    assert.equal(build.state, 'succeeded');
    assert.equal(build.output.status, 'success');
    assert.equal(build.output.outputs['0'], 'alpha', 'the playbook ran with the node input as its parameter');
    assert.match(build.child_workflow_id, /^playbook-run-/);
    assert.equal(build.output.sandbox_run_ids.length, 1);
    assert.deepEqual(nodeOf(paused, 'approve').inputs, { built: 'alpha' });
    assert.equal(nodeOf(paused, 'deploy').state, 'pending');
    assert.equal(paused.replay_run_id, `automation-${runId}`);

    const r = await resume(api, runId, 'beta', { actor: 'release-manager' } as never);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const done = await waitForEnd(api, runId);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.deepEqual(
      done.nodes.map((n: { node_id: string; state: string }) => [n.node_id, n.state]),
      [
        ['build', 'succeeded'],
        ['approve', 'succeeded'],
        ['deploy', 'succeeded'],
      ],
    );
    const deploy = nodeOf(done, 'deploy');
    assert.deepEqual(deploy.inputs, { color: 'beta' });
    assert.equal(deploy.output.outputs['0'], 'beta', 'the resume reason reached the second playbook');
    assert.equal(nodeOf(done, 'approve').approval.resumed_by, 'release-manager');
    assert.equal(nodeOf(done, 'approve').approval.reason, 'beta');
    for (const n of done.nodes) assert.ok(n.started_at && n.finished_at, `${n.node_id} has timestamps`);

    // Each playbook node is a replay run of its own, named after the automation run and node.
    const deployRun = await replayRun(`${runId}:deploy`);
    assert.equal(deployRun.status, 'success');
    assert.equal(deployRun.source, 'playbook');
    // record_run: the automation run itself, recorded as a replay run with one step per node.
    const recorded = await replayRun(done.replay_run_id);
    assert.equal(recorded.status, 'success');
    assert.deepEqual(
      recorded.steps.map((s: { tool_name: string; status: string }) => [s.tool_name, s.status]),
      [
        ['automation.playbook', 'success'],
        ['automation.approval', 'success'],
        ['automation.playbook', 'success'],
      ],
    );
    assert.equal(recorded.steps[2].tool_input.inputs.color, 'beta');
  });

  it('a playbook that fails fails its node and the run; validation knows which playbooks exist', async () => {
    await makePlaybook(api, 'fails', ['exit 3']);
    const id = uniqueName('failing');
    await createAutomation(api, id, { nodes: [{ node_id: 'f', kind: 'playbook', playbook_id: 'fails', version: 1 }] });
    const done = await waitForEnd(api, await startRun(api, id));
    assert.equal(done.status, 'failed');
    assert.equal(nodeOf(done, 'f').state, 'failed');
    assert.equal(done.error.code, 'playbook_failure');
    assert.equal(nodeOf(done, 'f').output.status, 'failure');

    const res = await api.post('/v1/automations/validate', {
      graph: {
        nodes: [
          { node_id: 'a', kind: 'playbook', playbook_id: 'no-such-playbook', version: 1 },
          { node_id: 'b', kind: 'playbook', playbook_id: 'echo-color', version: 9 },
          { node_id: 'c', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { colour: 'typo' } },
        ],
      },
    });
    assert.equal(res.body.valid, false);
    const at = res.body.issues.map((i: { path: string }) => i.path);
    assert.ok(at.includes('graph.nodes[0].playbook_id'), JSON.stringify(res.body.issues));
    assert.ok(at.includes('graph.nodes[1].playbook_id') || at.includes('graph.nodes[1].version'), JSON.stringify(res.body.issues));
    assert.ok(at.includes('graph.nodes[2].inputs.colour'), JSON.stringify(res.body.issues));
  });
});

describe('proof 2: conditions and artifact gates', () => {
  /** choose (approval) → probe (echo the chosen colour) → check (= green?) → ship | hold. */
  async function route(color: string) {
    const id = uniqueName('route');
    await createAutomation(api, id, {
      nodes: [
        { node_id: 'choose', kind: 'approval', approval_key: 'choose' },
        { node_id: 'probe', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: '$nodes.choose.reason' } },
        { node_id: 'check', kind: 'condition', condition: { left: '$nodes.probe.outputs.0', op: 'eq', right: 'green' } },
        { node_id: 'ship', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: 'shipped' } },
        { node_id: 'hold', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: 'held' } },
      ],
      edges: [
        { from: 'choose', to: 'probe' },
        { from: 'probe', to: 'check' },
        { from: 'check', to: 'ship', type: 'on_success' },
        { from: 'check', to: 'hold', type: 'on_false' },
      ],
    });
    const runId = await startRun(api, id);
    await waitForPausedAt(api, runId, ['choose']);
    assert.equal((await resume(api, runId, color)).status, 200);
    // Three sandboxed playbook runs in a row: no deadline for the whole, only for a stall.
    const done = await waitForEnd(api, runId);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.equal(nodeOf(done, 'check').output.left, color);
    return done;
  }

  it('a condition on an upstream output takes the true branch when it matches', async () => {
    const done = await route('green');
    assert.equal(nodeOf(done, 'check').output.result, true);
    assert.equal(nodeOf(done, 'ship').state, 'succeeded');
    assert.equal(nodeOf(done, 'ship').output.outputs['0'], 'shipped');
    assert.equal(nodeOf(done, 'hold').state, 'skipped');
    assert.match(nodeOf(done, 'hold').skip_reason, /condition 'check' was true/);
  });

  it('a condition on an upstream output takes the false branch when it does not', async () => {
    const done = await route('red');
    assert.equal(nodeOf(done, 'check').output.result, false);
    assert.equal(nodeOf(done, 'hold').state, 'succeeded');
    assert.equal(nodeOf(done, 'hold').output.outputs['0'], 'held');
    assert.equal(nodeOf(done, 'ship').state, 'skipped');
    assert.match(nodeOf(done, 'ship').skip_reason, /condition 'check' was false/);
  });

  it('an artifact gate passes when the upstream sandbox run wrote the file and fails when it did not', async () => {
    const graph = (file: string) => ({
      nodes: [
        { node_id: 'write', kind: 'playbook', playbook_id: 'write-file', version: 1, inputs: { file } },
        { node_id: 'gate', kind: 'artifact_gate', artifacts: [{ path: 'artifacts/report.txt', from_node: 'write' }] },
        { node_id: 'after', kind: 'condition', condition: { left: '$nodes.gate.artifacts.0.path', op: 'exists' } },
      ],
      edges: [
        { from: 'write', to: 'gate' },
        { from: 'gate', to: 'after' },
      ],
    });
    const good = uniqueName('gate-ok');
    const bad = uniqueName('gate-missing');
    await createAutomation(api, good, graph('report.txt'));
    await createAutomation(api, bad, graph('other.txt'));

    const passed = await waitForEnd(api, await startRun(api, good));
    assert.equal(passed.status, 'succeeded', JSON.stringify(passed));
    const found = nodeOf(passed, 'gate').output.artifacts[0];
    assert.equal(found.node_id, 'write');
    assert.equal(found.sandbox_run_id, nodeOf(passed, 'write').output.sandbox_run_ids[0]);
    assert.ok(found.size > 0);
    assert.equal(nodeOf(passed, 'after').state, 'succeeded');

    const failed = await waitForEnd(api, await startRun(api, bad));
    assert.equal(failed.status, 'failed');
    assert.equal(nodeOf(failed, 'write').state, 'succeeded', 'the playbook itself worked');
    const gate = nodeOf(failed, 'gate');
    assert.equal(gate.state, 'failed');
    assert.equal(gate.error.code, 'artifact_missing');
    assert.match(gate.error.message, /artifacts\/report\.txt/);
    assert.equal(nodeOf(failed, 'after').state, 'skipped');
    assert.equal(failed.error.node_id, 'gate');
  });
});

describe('proof 3: cancel', () => {
  it('cancel while a sandbox command runs: the process dies, the run and its playbook are cancelled; resume after is invalid_state', async () => {
    const id = uniqueName('sleepy');
    await createAutomation(api, id, {
      nodes: [
        { node_id: 'nap', kind: 'playbook', playbook_id: 'sleepy', version: 1 },
        { node_id: 'after', kind: 'approval', approval_key: 'never' },
      ],
      edges: [{ from: 'nap', to: 'after' }],
    });
    const runId = await startRun(api, id);
    await waitFor('the sleep to run in the sandbox', async () => (await processesRunning(['sleep', '123.456'])).length > 0, 120_000);
    const running = await getRun(api, runId);
    assert.equal(running.status, 'running');
    assert.equal(nodeOf(running, 'nap').state, 'running');

    const res = await api.post('/v1/automations/runs/cancel', { run_id: runId, reason: 'taking too long' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const cancelled = res.body.run.status === 'cancelled' ? res.body.run : await waitForStatus(api, runId, ['cancelled'], 60_000);
    assert.equal(cancelled.status, 'cancelled');
    await waitFor('the sandboxed sleep to be gone', async () => (await processesWith('sleep 123.456')).length === 0, 30_000);

    const full = await getRun(api, runId);
    assert.equal(nodeOf(full, 'nap').state, 'cancelled');
    assert.equal(nodeOf(full, 'after').state, 'skipped');
    const pbRun = await replayRun(`${runId}:nap`);
    assert.equal(pbRun.status, 'cancelled');
    const sandboxRunId = pbRun.steps[0].sandbox_run_id;
    const sb = await api.post('/v1/memory/sandbox/runs/get', { run_id: sandboxRunId });
    assert.equal(sb.body.run.status, 'cancelled', JSON.stringify(sb.body.run));
    assert.equal((await api.engine.describe(nodeOf(full, 'nap').child_workflow_id))?.state, 'cancelled');

    const late = assertError(await resume(api, runId, 'go'), 409, 'invalid_state');
    assert.equal(late.error.details.state, 'cancelled');
  });
});
