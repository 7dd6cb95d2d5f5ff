/**
 * The playbook state machine: compile rules, versions, candidate readiness, promote transitions
 * (one active, race-safe), repair validation, simulate, guided host steps, and the state and
 * input errors of each route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { compile, hostRun, ok, recordRun } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => {
  await api?.close();
});

const post = (path: string, body: unknown) => api.post(`/v1/memory/replay/playbooks/${path}`, body);
const promote = (playbook_id: string, target_status: string, version?: number) => post('promote', { playbook_id, target_status, ...(version ? { version } : {}) });
const versionsOf = async (playbook_id: string) => (await ok(api, '/v1/memory/replay/playbooks/get', { playbook_id })).versions.map((v: any) => [v.version, v.status]);

describe('compile_from_run', () => {
  it('only from an ended run: open and failed runs are invalid_state; partial needs allow_partial', async () => {
    await ok(api, '/v1/memory/replay/run/start', { run_id: 'c-open', goal: 'g' });
    const open = assertError(await post('compile_from_run', { run_id: 'c-open' }), 409, 'invalid_state');
    assert.equal(open.error.details.state, 'open');
    await hostRun(api, 'c-failed', {}, 'failure');
    assert.equal(assertError(await post('compile_from_run', { run_id: 'c-failed' }), 409, 'invalid_state').error.details.state, 'failure');
    await hostRun(api, 'c-partial', {}, 'partial');
    assert.equal(assertError(await post('compile_from_run', { run_id: 'c-partial' }), 409, 'invalid_state').error.details.state, 'partial');
    const p = await compile(api, 'c-partial', 'pb-partial', { allow_partial: true });
    assert.equal(p.version, 1);
  });

  it('version 1, draft, steps from the successful steps; failed steps are skipped and listed', async () => {
    await recordRun(api, 'c-mixed', 'update the docs', [
      { tool_name: 'edit_file', tool_input: { file_path: 'README.md' }, output_signature: { kind: 'diff', summary: 'ok' } },
      { tool_name: 'run_tests', tool_input: {}, status: 'failed', output_signature: { kind: 'text', summary: 'broke' } },
      { tool_name: 'run_tests', tool_input: { retry: true }, output_signature: { kind: 'text', summary: 'passed' } },
    ]);
    const c = await compile(api, 'c-mixed', 'pb-mixed');
    assert.equal(c.created, true);
    assert.equal(c.playbook.status, 'draft');
    assert.equal(c.playbook.source_run_id, 'c-mixed');
    assert.deepEqual(
      c.playbook.steps.map((s: any) => [s.step_index, s.tool_name, s.source_step_index]),
      [
        [0, 'edit_file', 0],
        [1, 'run_tests', 2],
      ],
    );
    assert.deepEqual(c.playbook.steps[1].expected_output_signature, { kind: 'text', description: 'passed' }, 'a prose summary is kept as the description');
    assert.deepEqual(c.skipped_steps, [{ step_index: 1, reason: 'its result was failed' }]);
    assert.deepEqual(
      c.playbook.status_history.map((h: any) => [h.from, h.to, h.via]),
      [[null, 'draft', 'compile']],
    );
  });

  it('the same playbook_id again: identical content returns it, different content conflicts', async () => {
    await hostRun(api, 'c-dup');
    await compile(api, 'c-dup', 'pb-dup');
    const again = await compile(api, 'c-dup', 'pb-dup');
    assert.equal(again.created, false);
    assert.equal(again.version, 1);
    assertError(await post('compile_from_run', { run_id: 'c-dup', playbook_id: 'pb-dup', name: 'another name' }), 409, 'conflict');
    await hostRun(api, 'c-dup-2');
    assertError(await post('compile_from_run', { run_id: 'c-dup-2', playbook_id: 'pb-dup', name: 'playbook pb-dup' }), 409, 'conflict');
  });

  it('parameters: literals become {{name}}; a literal found nowhere is validation_failed; recorded placeholders are required', async () => {
    await recordRun(api, 'c-params', 'greet', [
      { tool_name: 'command', tool_input: { argv: ['echo', 'hello world', 'othello'] }, output_signature: { summary: 'hello world othello' } },
      { tool_name: 'command', tool_input: { argv: ['echo', '{{suffix}}'] } },
    ]);
    const bad = assertError(
      await post('compile_from_run', { run_id: 'c-params', playbook_id: 'pb-params', parameters: { who: 'nobody-here', greeting: 'hello' } }),
      422,
      'validation_failed',
    );
    assert.deepEqual(
      bad.error.details.issues.map((i: any) => i.path),
      ['parameters.who'],
    );
    const c = await compile(api, 'c-params', 'pb-params', { parameters: { greeting: 'hello' } });
    assert.deepEqual(c.playbook.steps[0].tool_input.argv, ['echo', '{{greeting}} world', 'othello'], 'whole words only: othello is left alone');
    assert.equal(c.playbook.steps[0].expected_output_signature.description, '{{greeting}} world othello');
    assert.deepEqual(c.playbook.parameters, [
      { name: 'greeting', default: 'hello', required: false },
      { name: 'suffix', default: null, required: true },
    ]);
    // simulate: nothing runs; the plan shows the resolved inputs, and what is missing.
    const sim = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'pb-params', version: 1, mode: 'simulate', params: { greeting: 'hi' } });
    assert.equal(sim.status, 'simulated');
    assert.equal(sim.run, null);
    assert.deepEqual(sim.plan.steps[0].argv, ['echo', 'hi world', 'othello']);
    assert.deepEqual(sim.plan.steps[1].argv, ['echo', '{{suffix}}']);
    assert.match(sim.issues.strict.map((i: any) => i.message).join(' '), /parameter 'suffix' has no default/);
    const ran = assertError(await post('run', { playbook_id: 'pb-params', version: 1, mode: 'strict', params: { greeting: 'hi' } }), 422, 'validation_failed');
    assert.match(JSON.stringify(ran.error.details.issues), /suffix/);
    const typo = assertError(await post('run', { playbook_id: 'pb-params', version: 1, params: { suffix: 'x', greting: 'hi' } }), 422, 'validation_failed');
    assert.match(JSON.stringify(typo.error.details.issues), /unknown parameter 'greting'/);
    const sim2 = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'pb-params', version: 1, mode: 'simulate', params: { suffix: '!' } });
    assert.deepEqual(sim2.plan.steps[1].argv, ['echo', '!']);
    assert.deepEqual(sim2.issues.strict, []);
  });
});

describe('get, candidate and promote', () => {
  before(async () => {
    await hostRun(api, 'p-src');
    await compile(api, 'p-src', 'pb-states');
  });

  it('get: latest or a given version, with the version list; unknown ids are not_found', async () => {
    const g = await ok(api, '/v1/memory/replay/playbooks/get', { playbook_id: 'pb-states' });
    assert.equal(g.playbook.version, 1);
    assert.equal(g.latest_version, 1);
    assert.equal(g.active_version, null);
    assert.deepEqual(
      g.versions.map((v: any) => v.version),
      [1],
    );
    assertError(await post('get', { playbook_id: 'pb-none' }), 404, 'not_found');
    const v = assertError(await post('get', { playbook_id: 'pb-states', version: 9 }), 404, 'not_found');
    assert.equal(v.error.details.version, 9);
    assertError(await post('candidate', { playbook_id: 'pb-none' }), 404, 'not_found');
    assertError(await promote('pb-none', 'active'), 404, 'not_found');
    assertError(await post('repair', { playbook_id: 'pb-none', patch: {} }), 404, 'not_found');
    assertError(await post('run', { playbook_id: 'pb-none' }), 404, 'not_found');
    assertError(await post('dispatch', { playbook_id: 'pb-none' }), 404, 'not_found');
    assertError(await post('repair/review', { playbook_id: 'pb-none', action: 'approve' }), 404, 'not_found');
  });

  it('candidate: a real evaluation with reasons', async () => {
    const c = await ok(api, '/v1/memory/replay/playbooks/candidate', { playbook_id: 'pb-states' });
    assert.equal(c.version, 1);
    assert.equal(c.status, 'draft');
    const check = (n: string) => c.checks.find((k: any) => k.name === n);
    assert.equal(check('steps_present').passed, true);
    assert.equal(check('source_run_succeeded').passed, true);
    assert.equal(check('shadow_validation_passed').passed, false);
    assert.equal(check('no_host_steps').passed, false, 'edit_file and run_tests need the host');
    assert.equal(c.ready_for.active, true, 'compiled from a successful run');
    assert.equal(c.ready_for.unattended, false);

    await recordRun(api, 'p-bad', 'local-safe with a shell', [{ tool_name: 'command', tool_input: { argv: ['sh', '-c', 'echo hi'] }, output_signature: { summary: 'hi' } }]);
    await compile(api, 'p-bad', 'pb-bad', { sandbox_profile: 'local-safe' });
    const bad = await ok(api, '/v1/memory/replay/playbooks/candidate', { playbook_id: 'pb-bad' });
    assert.equal(bad.ready_for.shadow, false);
    assert.match(bad.reasons.join(' '), /commands_allowed: step 0: 'sh' is not allowed in the local-safe profile/);
    assertError(await post('run', { playbook_id: 'pb-bad', version: 1 }), 422, 'validation_failed');
  });

  it('promote sets the status of one version and never creates a version; rejected cannot be promoted', async () => {
    const toShadow = await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'pb-states', target_status: 'shadow', note: 'try it' });
    assert.equal(toShadow.previous_status, 'draft');
    assert.equal(toShadow.status, 'shadow');
    const same = await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'pb-states', target_status: 'shadow' });
    assert.equal(same.changed, false);
    const active = await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'pb-states', from_version: 1, target_status: 'active' });
    assert.equal(active.status, 'active');
    assert.equal(active.active_version, 1);
    assert.deepEqual(await versionsOf('pb-states'), [[1, 'active']]);
    const disabled = await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'pb-states', target_status: 'disabled' });
    assert.equal(disabled.active_version, null, 'leaving active clears the active slot');
    assertError(await post('run', { playbook_id: 'pb-states' }), 409, 'invalid_state');
    const noActive = assertError(await post('dispatch', { playbook_id: 'pb-states' }), 409, 'invalid_state');
    assert.equal(noActive.error.details.state, 'no_active_version');
    assertError(await post('run', { playbook_id: 'pb-states', version: 1 }), 409, 'invalid_state');
    const hist = (await ok(api, '/v1/memory/replay/playbooks/get', { playbook_id: 'pb-states' })).playbook.status_history;
    assert.deepEqual(
      hist.map((h: any) => h.to),
      ['draft', 'shadow', 'active', 'disabled'],
    );
    assert.equal(hist[1].note, 'try it');
    assert.deepEqual(
      (await versionsOf('pb-states')).map((v: any) => v[0]),
      [1],
      'no promote created a version',
    );
    assertError(await promote('pb-states', 'rejected'), 400, 'invalid_request');
  });

  it('two concurrent promotes to active: exactly one version is active', async () => {
    await hostRun(api, 'race-src');
    await compile(api, 'race-src', 'pb-race');
    for (let i = 0; i < 4; i++) {
      await ok(api, '/v1/memory/replay/playbooks/repair', { playbook_id: 'pb-race', version: 1, patch: { name: `variant ${i}` } });
    }
    for (const [a, b] of [
      [1, 2],
      [3, 4],
      [5, 2],
      [1, 5],
    ] as const) {
      const [ra, rb] = await Promise.all([promote('pb-race', 'active', a), promote('pb-race', 'active', b)]);
      for (const r of [ra, rb]) assert.ok(r.status === 200 || (r.status === 409 && r.body.error.code === 'conflict'), JSON.stringify(r.body));
      const g = await ok(api, '/v1/memory/replay/playbooks/get', { playbook_id: 'pb-race' });
      const actives = g.versions.filter((v: any) => v.status === 'active').map((v: any) => v.version);
      assert.equal(actives.length, 1, `exactly one active after promoting ${a} and ${b}: ${JSON.stringify(g.versions)}`);
      assert.equal(actives[0], g.active_version);
      assert.ok([a, b].includes(actives[0]));
      // Every earlier active version was demoted to shadow.
      for (const v of g.versions) if (v.version !== actives[0]) assert.notEqual(v.status, 'active');
    }
  });
});

describe('repair', () => {
  before(async () => {
    await hostRun(api, 'r-src');
    await compile(api, 'r-src', 'pb-repair');
  });

  it('an invalid patch is validation_failed listing every issue; nothing is created', async () => {
    const res = await post('repair', {
      playbook_id: 'pb-repair',
      patch: {
        steps: [
          { op: 'replace', step_index: 7, step: { tool_name: 'x' } },
          { op: 'remove', step_index: 0 },
          { op: 'replace', step_index: 0, step: { tool_name: 'y' } },
          { op: 'insert', step_index: 0, step: { tool_input: {} } },
          { op: 'rename', step_index: 1 },
        ],
        parameters: { remove: ['ghost'] },
      },
    });
    const body = assertError(res, 422, 'validation_failed');
    const paths = body.error.details.issues.map((i: any) => i.path);
    assert.ok(paths.includes('patch.steps.0.step_index'), JSON.stringify(paths));
    assert.ok(paths.includes('patch.steps.2.step_index'), 'a second change of one step');
    assert.ok(
      paths.some((p: string) => p.startsWith('patch.steps.3')),
      'insert without tool_name',
    );
    assert.ok(
      paths.some((p: string) => p.startsWith('patch.steps.4')),
      'unknown op',
    );
    assert.ok(paths.includes('patch.parameters.remove'));
    assert.ok(body.error.details.issues.length >= 5);
    const empty = assertError(await post('repair', { playbook_id: 'pb-repair', patch: {} }), 422, 'validation_failed');
    assert.match(empty.error.message, /changes nothing/);
    const undeclared = assertError(
      await post('repair', { playbook_id: 'pb-repair', patch: { steps: [{ op: 'replace', step_index: 0, step: { tool_input: { file_path: '{{file}}' } } }] } }),
      422,
      'validation_failed',
    );
    assert.match(JSON.stringify(undeclared.error.details.issues), /placeholder \{\{file\}\} is not a declared parameter/);
    assert.deepEqual(await versionsOf('pb-repair'), [[1, 'draft']]);
  });

  it('replace, insert, remove and parameter changes give a new draft version with repair_of', async () => {
    const r = await ok(api, '/v1/memory/replay/playbooks/repair', {
      playbook_id: 'pb-repair',
      version: 1,
      patch: {
        steps: [
          { op: 'replace', step_index: 0, step: { tool_input: { file_path: '{{file}}', change: 'add a flag' }, max_attempts: 2 } },
          { op: 'insert', step_index: 2, step: { tool_name: 'command', tool_input: { argv: ['echo', '{{file}}'] } } },
          { op: 'remove', step_index: 1 },
        ],
        parameters: { set: [{ name: 'file', default: 'src/config.ts' }] },
      },
      note: 'parameterise the file',
    });
    assert.equal(r.version, 2);
    assert.equal(r.repair_of, 1);
    assert.equal(r.playbook.status, 'draft');
    assert.deepEqual(
      r.playbook.steps.map((s: any) => [s.step_index, s.tool_name, s.max_attempts]),
      [
        [0, 'edit_file', 2],
        [1, 'command', 1],
      ],
    );
    assert.deepEqual(r.playbook.parameters, [{ name: 'file', default: 'src/config.ts', required: false }]);
    const v1 = await ok(api, '/v1/memory/replay/playbooks/get', { playbook_id: 'pb-repair', version: 1 });
    assert.equal(v1.playbook.steps.length, 2, 'the patched version is unchanged');
  });

  it('guided: command steps run; at a host step the run waits for the host, then goes on', async () => {
    await recordRun(api, 'g-src', 'build then open the editor', [
      { tool_name: 'command', tool_input: { argv: ['echo', 'built'] }, output_signature: { summary: 'built' } },
      { tool_name: 'open_editor', tool_input: { file_path: 'src/app.ts' } },
      { tool_name: 'command', tool_input: { argv: ['echo', 'after'] }, output_signature: { summary: 'after' } },
    ]);
    await compile(api, 'g-src', 'pb-guided');
    const strict = assertError(await post('run', { playbook_id: 'pb-guided', version: 1, mode: 'strict' }), 422, 'validation_failed');
    assert.match(JSON.stringify(strict.error.details.issues), /needs the host; strict mode runs command steps only/);
    const g = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'pb-guided', version: 1, mode: 'guided', run_id: 'g-run' });
    assert.equal(g.completed, false, 'the answer comes as soon as the run waits for the host');
    assert.equal(g.status, 'open');
    assert.deepEqual(
      g.steps.map((s: any) => s.status),
      ['success', 'pending', 'queued'],
    );
    assert.equal(g.pending_step.step_index, 1);
    assert.deepEqual(g.pending_step.tool_input, { file_path: 'src/app.ts' });
    assert.equal(g.steps[0].stdout, 'built');
    const done = await ok(api, '/v1/memory/replay/playbooks/runs/steps/complete', { run_id: 'g-run', step_index: 1, status: 'success', output_signature: { summary: 'opened' } });
    assert.equal(done.step.status, 'success');
    assert.equal(done.completed, true);
    assert.equal(done.run.status, 'success');
    assert.deepEqual(
      done.run.steps.map((s: any) => s.status),
      ['success', 'success', 'success'],
    );
  });

  it('dispatch with a run_id is idempotent; a different request under that run_id conflicts', async () => {
    await recordRun(api, 'd-src', 'echo', [{ tool_name: 'command', tool_input: { argv: ['echo', 'd'] }, output_signature: { summary: 'd' } }]);
    await compile(api, 'd-src', 'pb-d');
    const a = await ok(api, '/v1/memory/replay/playbooks/dispatch', { playbook_id: 'pb-d', version: 1, run_id: 'd-1' });
    assert.equal(a.dispatched, true);
    const b = await ok(api, '/v1/memory/replay/playbooks/dispatch', { playbook_id: 'pb-d', version: 1, run_id: 'd-1' });
    assert.equal(b.dispatched, false);
    assert.equal(b.workflow_id, a.workflow_id);
    assertError(await post('dispatch', { playbook_id: 'pb-d', version: 1, run_id: 'd-1', mode: 'guided' }), 409, 'conflict');
    const sim = await ok(api, '/v1/memory/replay/playbooks/dispatch', { playbook_id: 'pb-d', version: 1, fallback_mode: 'simulate' });
    assert.equal(sim.dispatched, false);
    assert.equal(sim.status, 'simulated');
  });

  it('bad input on playbook routes is invalid_request', async () => {
    const bad: [string, unknown][] = [
      ['promote', { playbook_id: 'pb-repair', target_status: 'live' }],
      ['promote', { playbook_id: 'pb-repair', target_status: 'active', version: 0 }],
      ['run', { playbook_id: 'pb-repair', mode: 'fast' }],
      ['run', { playbook_id: 'pb-repair', params: 'x' }],
      ['repair', { playbook_id: 'pb-repair' }],
      ['repair', { playbook_id: 'pb-repair', patch: { steps: 'x' } }],
      ['repair/review', { playbook_id: 'pb-repair', action: 'maybe' }],
      ['repair/review', { playbook_id: 'pb-repair', action: 'approve', shadow_validation_mode: 'vibes' }],
      ['compile_from_run', { run_id: 'r-src', parameters: { 'bad name': 'x' } }],
      ['candidate', {}],
    ];
    for (const [path, body] of bad) {
      const res = await post(path, body);
      assertError(res, 400, 'invalid_request');
    }
  });
});
