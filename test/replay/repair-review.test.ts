/**
 * Proof 2: a playbook whose step fails is repaired; review approve with shadow validation in the
 * sandbox sets shadow and records the validation (it really ran the steps); review reject of
 * another repair sets rejected and the active version is still the one `run` uses. Also: a
 * validation that fails blocks activation, dry_run validation, and the review/promote state errors.
 * Each test builds its own playbook (its own id) up to the state it needs: no test reads another's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import { currentWorkflowBundle } from '../../src/worker';
import { silentLog } from '../../src/log';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { compile, getRun, ok, recordRun } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => {
  await api?.close();
});

/** One playbook per test: recorded where config.txt existed, so in a fresh sandbox session step 1 fails. */
async function activeV1() {
  const PB = uniqueName('deploy-pb');
  const rec = uniqueName('deploy-rec');
  await recordRun(api, rec, 'check the service config', [
    { tool_name: 'command', tool_input: { argv: ['echo', 'checking'] }, output_signature: { kind: 'stdout', summary: 'checking' } },
    { tool_name: 'command', tool_input: { argv: ['cat', 'config.txt'] }, output_signature: { kind: 'stdout', summary: 'port=8080' } },
  ]);
  await compile(api, rec, PB);
  await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: PB, version: 1, target_status: 'active' });
  return {
    PB,
    run: (body: Record<string, unknown>) => ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: PB, mode: 'strict', ...body }),
    review: (body: Record<string, unknown>) => api.post('/v1/memory/replay/playbooks/repair/review', { playbook_id: PB, ...body }),
    get: async (version?: number) => ok(api, '/v1/memory/replay/playbooks/get', { playbook_id: PB, ...(version ? { version } : {}) }),
    repair: (body: Record<string, unknown>) => ok(api, '/v1/memory/replay/playbooks/repair', { playbook_id: PB, ...body }),
  };
}
type Playbook = Awaited<ReturnType<typeof activeV1>>;

/** The repair that fixes v1: write the config first → version 2, draft. */
const repairV2 = (pb: Playbook) =>
  pb.repair({
    version: 1,
    note: 'write the config first',
    patch: {
      steps: [
        {
          op: 'insert',
          step_index: 1,
          step: { tool_name: 'command', tool_input: { argv: ['sh', '-c', 'echo port=8080 > config.txt'] }, expected_output_signature: { exit_code: 0 } },
        },
      ],
    },
  });

/** Approves version 2 to shadow after a shadow validation that really runs it in the sandbox. */
async function approveV2(pb: Playbook) {
  const res = await pb.review({
    version: 2,
    action: 'approve',
    note: 'looks right',
    auto_shadow_validate: true,
    shadow_validation_mode: 'execute_sandbox',
    target_status_on_approve: 'shadow',
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

describe('repair and review', () => {
  it('the active version fails at the step that needs the missing file', async () => {
    const pb = await activeV1();
    const r = await pb.run({});
    assert.equal(r.version, 1);
    assert.equal(r.status, 'failure');
    assert.equal(r.steps[1].status, 'failed');
    assert.match(r.steps[1].reasons.join(' '), /expected exit code 0, got 1/);
  });

  it('a repair in the existing implementation’s shape (tool_input_template, retry_policy) retries the step with its backoff', async () => {
    const pb = await activeV1();
    const rep = await pb.repair({
      version: 1,
      note: 'retry the config read once',
      patch: { step_patches: [{ step_index: 1, set: { tool_input_template: { argv: ['cat', 'config.txt'] }, retry_policy: { max_retries: 1, backoff_ms: 300 } } }] },
    });
    assert.equal(rep.playbook.steps[1].max_attempts, 2);
    assert.equal(rep.playbook.steps[1].backoff_ms, 300);
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: pb.PB, version: 2, target_status: 'active' });
    const r = await pb.run({});
    assert.equal(r.version, 2);
    assert.equal(r.status, 'failure', 'the file is still missing: both attempts fail');
    assert.equal(r.steps[1].attempts, 2);
    const run = await getRun(api, r.run_id);
    const step = run.steps.find((x: any) => x.step_index === 1);
    assert.equal(step.attempts.length, 2);
    // The run waited the backoff between the two attempts: one timer of 300 ms in its history.
    const history = await api.engine.client.workflow.getHandle(r.workflow_id).fetchHistory();
    const timers = (history.events ?? []).filter((e) => e.timerStartedEventAttributes).map((e) => e.timerStartedEventAttributes!.startToFireTimeout);
    assert.equal(timers.length, 1, JSON.stringify(timers));
    const t = timers[0]!;
    assert.equal(Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6), 300);
  });

  it('repair inserts the missing step → version 2, draft, repair_of 1; v1 untouched', async () => {
    const pb = await activeV1();
    const rep = await repairV2(pb);
    assert.equal(rep.version, 2);
    assert.equal(rep.repair_of, 1);
    assert.equal(rep.playbook.status, 'draft');
    assert.deepEqual(
      rep.playbook.steps.map((s: any) => s.step_index),
      [0, 1, 2],
    );
    assert.deepEqual(
      rep.playbook.steps.map((s: any) => s.source_step_index),
      [0, null, 1],
    );
    const g = await pb.get();
    assert.equal(g.latest_version, 2);
    assert.equal(g.active_version, 1);
    assert.deepEqual(
      g.versions.map((v: any) => [v.version, v.status]),
      [
        [2, 'draft'],
        [1, 'active'],
      ],
    );
  });

  it('approve with execute_sandbox shadow validation: shadow, the validation ran the steps and is recorded', async () => {
    const pb = await activeV1();
    await repairV2(pb);
    const body = await approveV2(pb);
    assert.equal(body.status, 'shadow');
    assert.equal(body.previous_status, 'draft');
    assert.equal(body.active_version, 1, 'approving to shadow does not touch the active version');
    const sv = body.shadow_validation;
    assert.equal(sv.mode, 'execute_sandbox');
    assert.equal(sv.status, 'passed', JSON.stringify(sv));
    assert.deepEqual(
      sv.steps.map((s: any) => [s.status, s.matched]),
      [
        ['success', true],
        ['success', true],
        ['success', true],
      ],
    );
    assert.ok(sv.finished_at);
    // Recorded on the version, and the validation is a replay run whose commands really ran.
    const g = await pb.get(2);
    assert.equal(g.playbook.status, 'shadow');
    assert.equal(g.playbook.shadow_validation.status, 'passed');
    assert.equal(g.playbook.review.action, 'approve');
    const vrun = await getRun(api, sv.run_id);
    assert.equal(vrun.source, 'shadow_validation');
    assert.equal(vrun.learning.state, 'not_eligible');
    const sb = await ok(api, '/v1/memory/sandbox/runs/get', { run_id: vrun.steps[2].sandbox_run_id });
    assert.equal(sb.run.stdout_tail, 'port=8080\n');
    // The candidate evaluation now sees the evidence.
    const cand = await ok(api, '/v1/memory/replay/playbooks/candidate', { playbook_id: pb.PB, version: 2 });
    assert.equal(cand.ready_for.active, true, JSON.stringify(cand.checks));
    assert.equal(cand.checks.find((k: any) => k.name === 'shadow_validation_passed').passed, true);
  });

  it('reject of a repair: rejected, and the active version is still the one run uses', async () => {
    const pb = await activeV1();
    const rep = await pb.repair({ version: 1, patch: { steps: [{ op: 'replace', step_index: 1, step: { tool_input: { argv: ['cat', 'other.txt'] } } }] } });
    assert.equal(rep.version, 2);
    const res = await pb.review({ version: 2, action: 'reject', note: 'wrong file' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'rejected');
    assert.equal(res.body.active_version, 1);
    const g = await pb.get(2);
    assert.equal(g.playbook.status, 'rejected');
    assert.equal(g.active_version, 1);
    const r = await pb.run({});
    assert.equal(r.version, 1, 'run uses the active version, not the rejected one');
    assert.equal(r.run.playbook.version, 1);
    // A rejected version never runs, never gets promoted, and is not reviewed again.
    assertError(await api.post('/v1/memory/replay/playbooks/run', { playbook_id: pb.PB, version: 2 }), 409, 'invalid_state');
    const promote = assertError(await api.post('/v1/memory/replay/playbooks/promote', { playbook_id: pb.PB, version: 2, target_status: 'active' }), 409, 'invalid_state');
    assert.equal(promote.error.details.state, 'rejected');
    const again = assertError(await pb.review({ version: 2, action: 'approve' }), 409, 'invalid_state');
    assert.equal(again.error.details.state, 'rejected');
  });

  it('approve to active with a failing sandbox validation: blocked, the version becomes shadow', async () => {
    const pb = await activeV1();
    const rep = await pb.repair({ version: 1, patch: { steps: [{ op: 'replace', step_index: 1, step: { tool_input: { argv: ['cat', 'still-missing.txt'] } } }] } });
    const res = await pb.review({ version: rep.version, action: 'approve', auto_shadow_validate: true, shadow_validation_mode: 'execute', target_status_on_approve: 'active' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'shadow');
    assert.equal(res.body.shadow_validation.status, 'failed');
    assert.match(res.body.shadow_validation.issues.join(' '), /step 1 \(command\)/);
    assert.match(res.body.activation_blocked, /shadow validation failed/);
    assert.equal(res.body.active_version, 1);
    assert.equal((await pb.get()).active_version, 1);
  });

  it('dry_run validation checks statically and runs nothing', async () => {
    const pb = await activeV1();
    await repairV2(pb);
    const rep = await pb.repair({ version: 2, patch: { steps: [{ op: 'remove', step_index: 2 }] } });
    const res = await pb.review({ version: rep.version, action: 'approve', auto_shadow_validate: true, shadow_validation_mode: 'dry_run' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'shadow');
    assert.equal(res.body.shadow_validation.mode, 'dry_run');
    assert.equal(res.body.shadow_validation.status, 'passed');
    assert.equal(res.body.shadow_validation.run_id, null);
    assert.deepEqual(
      res.body.shadow_validation.steps.map((s: any) => s.status),
      ['checked', 'checked'],
    );
  });

  it('review of a version that is not a repair, or not a draft, is invalid_state', async () => {
    const pb = await activeV1();
    await repairV2(pb);
    const approved = await pb.review({ version: 2, action: 'approve', auto_shadow_validate: true, shadow_validation_mode: 'dry_run' });
    assert.equal(approved.body.status, 'shadow', JSON.stringify(approved.body));
    const notRepair = assertError(await pb.review({ version: 1, action: 'approve' }), 409, 'invalid_state');
    assert.equal(notRepair.error.details.state, 'not_a_repair');
    const reviewed = assertError(await pb.review({ version: 2, action: 'reject' }), 409, 'invalid_state');
    assert.equal(reviewed.error.details.state, 'shadow');
    assertError(await pb.review({ version: 99, action: 'approve' }), 404, 'not_found');
  });

  it('promoting the validated repair to active demotes the previous active to shadow; run uses it', async () => {
    const pb = await activeV1();
    await repairV2(pb);
    await approveV2(pb);
    const before = await pb.get();
    assert.equal(before.active_version, 1);
    const p = await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: pb.PB, version: 2, target_status: 'active' });
    assert.equal(p.status, 'active');
    assert.deepEqual(p.demoted, { version: 1, status: 'shadow' });
    const g = await pb.get();
    assert.equal(g.active_version, 2);
    assert.deepEqual(
      g.versions.filter((v: any) => v.status === 'active').map((v: any) => v.version),
      [2],
    );
    assert.equal(g.versions.find((v: any) => v.version === 1).status, 'shadow');
    // Promote sets a status; it never creates a version (read before and after the promote).
    assert.equal(g.latest_version, before.latest_version);
    const r = await pb.run({});
    assert.equal(r.version, 2);
    assert.equal(r.status, 'success', JSON.stringify(r.steps));
  });

  it('the recorded histories replay deterministically with the current workflow code', async () => {
    const pb = await activeV1();
    await repairV2(pb);
    const sv = (await approveV2(pb)).shadow_validation;
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: pb.PB, version: 2, target_status: 'active' });
    const r = await pb.run({});
    assert.equal(r.status, 'success', JSON.stringify(r.steps));
    const workflowBundle = await currentWorkflowBundle(silentLog); // one bundle for every history
    for (const workflowId of [sv.workflow_id, r.workflow_id]) {
      const history = await api.engine.client.workflow.getHandle(workflowId).fetchHistory();
      await Worker.runReplayHistory({ workflowBundle }, history, workflowId);
    }
  });
});
