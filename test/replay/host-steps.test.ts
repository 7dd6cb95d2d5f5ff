/**
 * Proof 1 of issue 29: a playbook compiled from an agent's real run (Read, Edit, Bash `npm test`)
 * runs guided against the project it was recorded in. The run pauses at each host step (a signal
 * wait in its workflow; replay/runs/get shows the pending_step), the test acts as the host and
 * reports through playbooks/runs/steps/complete, and `npm test` runs in the sandbox against the
 * project as the host left it, passing on its exit status (the recorded prose "tests passed" is
 * never looked for). The project is byte-identical afterwards except for the host's own edit.
 * Also: every refusal of steps/complete (409 invalid_state, 404, 400), a host step reported as
 * failed, the per-step timeout, and isolation between tenants and scopes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, type Identity } from '../helpers/isolation';
import { treeDigest } from '../helpers/tree';
import { compile, getRun, ok, recordRun, waitFor } from './helpers';

let api: TestApi;
let root = '';
before(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'lore-host-steps-')));
  api = await startTestApi({ worker: true, env: { LORE_SANDBOX_WORKSPACE_ROOTS: root } });
});
after(async () => {
  await api?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const BUGGY = "module.exports = (name) => 'Helo, ' + name;\n";
const FIXED = "module.exports = (name) => 'Hello, ' + name;\n";
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A small project whose `npm test` reads a source file: it fails until src/greet.js says Hello. */
function fixtureProject(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'greet-fixture', version: '1.0.0', private: true, scripts: { test: 'node test.js' } }, null, 2) + '\n');
  writeFileSync(join(dir, 'src', 'greet.js'), BUGGY);
  writeFileSync(
    join(dir, 'test.js'),
    [
      "const fs = require('fs');",
      "const greet = require('./src/greet.js');",
      "fs.writeFileSync('test-output.txt', 'ran\\n'); // a write that must stay in the sandbox",
      "const got = greet('Lore');",
      "if (got !== 'Hello, Lore') { console.log('# fail 1: got ' + JSON.stringify(got)); process.exit(1); }",
      "console.log('# pass 1');",
      '',
    ].join('\n'),
  );
  return dir;
}

/** What the agent recorded while it fixed the project: Read, Edit, then `npm test`. */
async function recordAgentRun(runId: string, project: string) {
  await recordRun(api, runId, 'fix the greeting', [
    { tool_name: 'Read', tool_input: { file_path: `${project}/src/greet.js` }, output_signature: { summary: 'read 1 line' } },
    {
      tool_name: 'Edit',
      tool_input: { file_path: `${project}/src/greet.js`, old_string: 'Helo', new_string: 'Hello' },
      output_signature: { summary: 'the greeting is spelled right', artifacts: [{ path: 'src/greet.js', sha256: sha(FIXED) }] },
    },
    { tool_name: 'Bash', tool_input: { command: 'npm test' }, output_signature: { exit_code: 0, summary: 'tests passed' } },
  ]);
}

const complete = (body: Record<string, unknown>, who: Partial<Identity> = {}) => api.post('/v1/memory/replay/playbooks/runs/steps/complete', { ...who, ...body });

describe('a guided run of a recorded agent run, against its project', () => {
  it('pauses at Read and Edit for the host, runs npm test in the sandbox on the edited project, and leaves the project as the host left it', { timeout: 600_000 }, async () => {
    const project = fixtureProject('greet');
    await recordAgentRun('agent-fix', project);
    const compiled = await compile(api, 'agent-fix', 'fix-greeting', { parameters: { project } });
    assert.deepEqual(
      compiled.playbook.steps.map((s: any) => s.tool_name),
      ['Read', 'Edit', 'Bash'],
    );
    assert.equal(compiled.playbook.steps[0].tool_input.file_path, '{{project}}/src/greet.js');
    assert.deepEqual(compiled.playbook.steps[2].expected_output_signature, { exit_code: 0, description: 'tests passed' }, 'the prose is a description, the exit status the check');
    assert.deepEqual(compiled.playbook.steps[1].expected_output_signature.artifacts, [{ path: 'src/greet.js', sha256: sha(FIXED) }]);
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'fix-greeting', target_status: 'active' });

    const started = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'fix-greeting', mode: 'guided', run_id: 'fix-1', workspace: { path: project } });
    assert.equal(started.completed, false);
    assert.equal(started.status, 'open');
    assert.deepEqual(started.run.playbook.workspace, { path: project });
    const read = started.pending_step;
    assert.equal(read.step_index, 0);
    assert.equal(read.tool_name, 'Read');
    assert.deepEqual(read.tool_input, { file_path: `${project}/src/greet.js` }, 'parameters filled in');
    assert.deepEqual(read.expected_output_signature, { description: 'read 1 line' });
    assert.equal(typeof read.waiting_since, 'string');
    assert.equal(read.reported, false);

    // replay/runs/get shows the same wait, with or without the steps.
    const got = await getRun(api, 'fix-1');
    assert.deepEqual(got.pending_step, read);
    assert.equal(got.steps[0].status, 'pending');
    assert.equal(got.steps[0].waiting_since, read.waiting_since);
    const short = await ok(api, '/v1/memory/replay/runs/get', { run_id: 'fix-1', include_steps: false });
    assert.deepEqual(short.run.pending_step, read);

    // The host reports the wrong step: refused, nothing changes.
    const wrong = assertError(await complete({ run_id: 'fix-1', step_index: 1, status: 'success' }), 409, 'invalid_state');
    assert.equal(wrong.error.details.state, 'queued');
    assert.equal(wrong.error.details.pending_step_index, 0);
    assertError(await complete({ run_id: 'fix-1', step_index: 7, status: 'success' }), 409, 'invalid_state');

    // The host does the Read and reports it.
    const text = readFileSync(`${project}/src/greet.js`, 'utf8');
    const r0 = await ok(api, '/v1/memory/replay/playbooks/runs/steps/complete', {
      run_id: 'fix-1',
      step_index: 0,
      status: 'success',
      output_signature: { summary: `read ${text.split('\n').length - 1} line` },
    });
    assert.equal(r0.accepted, true);
    assert.equal(r0.step.status, 'success');
    assert.equal(r0.step.match.matched, true);
    assert.equal(r0.completed, false);
    assert.equal(r0.pending_step.step_index, 1, 'the run now waits at the Edit');
    assert.deepEqual(r0.pending_step.tool_input, { file_path: `${project}/src/greet.js`, old_string: 'Helo', new_string: 'Hello' });
    const twice = assertError(await complete({ run_id: 'fix-1', step_index: 0, status: 'success' }), 409, 'invalid_state');
    assert.equal(twice.error.details.state, 'success', 'a step reported twice is refused');

    // The host does the Edit in the project, then reports it.
    const p = r0.pending_step.tool_input;
    writeFileSync(p.file_path, readFileSync(p.file_path, 'utf8').replace(p.old_string, p.new_string));
    const edited = treeDigest(project);
    const r1 = await ok(api, '/v1/memory/replay/playbooks/runs/steps/complete', {
      run_id: 'fix-1',
      step_index: 1,
      status: 'success',
      output_signature: { summary: '1 replacement' },
      wait_ms: 300_000,
    });
    assert.equal(r1.step.status, 'success');
    assert.ok(
      r1.step.match.checks.some((c: any) => c.check === 'artifact' && c.passed),
      'the edited file has the recorded content',
    );
    assert.equal(r1.completed, true, JSON.stringify(r1.run.steps));
    assert.equal(r1.run.status, 'success', r1.run.summary);

    // npm test ran in the sandbox against the edited project and passed on its exit status.
    const test = r1.run.steps[2];
    assert.equal(test.kind, 'command');
    assert.equal(test.status, 'success');
    assert.equal(test.output_signature.exit_code, 0);
    assert.match(test.output_signature.summary, /# pass 1/);
    assert.doesNotMatch(test.output_signature.summary, /tests passed/, 'the recorded prose was never in the output, and was never required');
    assert.deepEqual(
      test.match.checks.map((c: any) => c.check),
      ['completed', 'exit_code'],
    );
    const sb = await ok(api, '/v1/memory/sandbox/runs/get', { run_id: test.sandbox_run_id });
    assert.deepEqual(sb.run.argv, ['sh', '-c', 'npm test']);
    // The sandbox's writes (test-output.txt, npm's own files) stayed in the sandbox.
    assert.deepEqual(treeDigest(project), edited, 'the project is byte-identical to what the host left');
    assert.equal(readFileSync(`${project}/src/greet.js`, 'utf8'), FIXED);

    // A finished run waits for nothing.
    assert.equal(assertError(await complete({ run_id: 'fix-1', step_index: 2, status: 'success' }), 409, 'invalid_state').error.details.state, 'ended');
    assert.equal((await getRun(api, 'fix-1')).pending_step, null);
  });

  it('a host step reported failed, or one that does not match, fails the run; the rest is skipped', { timeout: 300_000 }, async () => {
    const project = fixtureProject('greet-fail');
    await recordAgentRun('agent-fail', project);
    await compile(api, 'agent-fail', 'fix-fail', { parameters: { project } });
    const a = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'fix-fail', version: 1, mode: 'guided', run_id: 'fail-1', workspace: { path: project } });
    assert.equal(a.pending_step.step_index, 0);
    const r = await ok(api, '/v1/memory/replay/playbooks/runs/steps/complete', { run_id: 'fail-1', step_index: 0, status: 'failed', error: 'EACCES: permission denied' });
    assert.equal(r.completed, true);
    assert.equal(r.run.status, 'failure');
    assert.deepEqual(
      r.run.steps.map((s: any) => s.status),
      ['failed', 'skipped', 'skipped'],
    );
    assert.match(r.run.steps[0].error, /the host reported failed: EACCES/);

    // The Edit's artifact is checked in the workspace: without the edit, the file has another sha256.
    const b = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'fix-fail', version: 1, mode: 'guided', run_id: 'fail-2', workspace: { path: project } });
    await ok(api, '/v1/memory/replay/playbooks/runs/steps/complete', { run_id: 'fail-2', step_index: 0, status: 'success' });
    const e = await ok(api, '/v1/memory/replay/playbooks/runs/steps/complete', { run_id: 'fail-2', step_index: 1, status: 'success', output_signature: { summary: 'edited' } });
    assert.equal(b.pending_step.step_index, 0);
    assert.equal(e.run.status, 'failure');
    assert.match(e.step.error, /artifact src\/greet\.js exists but its sha256 is/);
  });

  it('no report within the step timeout fails the run cleanly', { timeout: 300_000 }, async () => {
    const project = fixtureProject('greet-timeout');
    await recordAgentRun('agent-timeout', project);
    await compile(api, 'agent-timeout', 'fix-timeout', { parameters: { project } });
    const a = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'fix-timeout', version: 1, mode: 'guided', run_id: 'timeout-1', host_step_timeout_ms: 1000 });
    assert.ok(a.completed || a.pending_step?.step_index === 0);
    const ended = await waitFor('the host step to time out', async () => {
      const run = await getRun(api, 'timeout-1');
      return run.state === 'ended' ? run : null;
    });
    assert.equal(ended.status, 'failure');
    assert.deepEqual(
      ended.steps.map((s: any) => s.status),
      ['failed', 'skipped', 'skipped'],
    );
    assert.match(ended.steps[0].error, /no result from the host within 1 s/);
    assert.equal(ended.pending_step, null);
    assert.equal(assertError(await complete({ run_id: 'timeout-1', step_index: 0, status: 'success' }), 409, 'invalid_state').error.details.state, 'ended');
  });

  it('a command step’s artifacts are looked for in the sandbox’s /work: present with the recorded sha256, or not; never through a link out', { timeout: 300_000 }, async () => {
    const built = 'built\n';
    await recordRun(api, 'build-rec', 'build the app', [
      {
        tool_name: 'Bash',
        tool_input: { command: 'mkdir -p dist && printf "built\\n" > dist/app.js && ln -sf /etc/hostname dist/host' },
        output_signature: { exit_code: 0, artifacts: [{ path: 'dist/app.js', sha256: sha(built) }] },
      },
    ]);
    const c = await compile(api, 'build-rec', 'build-pb');
    assert.deepEqual(c.playbook.steps[0].expected_output_signature.artifacts, [{ path: 'dist/app.js', sha256: sha(built) }]);
    const good = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'build-pb', version: 1, mode: 'strict' });
    assert.equal(good.status, 'success', JSON.stringify(good.steps));
    assert.ok(good.run.steps[0].match.checks.some((k: any) => k.check === 'artifact' && k.passed && /with the recorded sha256/.test(k.detail)));
    const rep = await ok(api, '/v1/memory/replay/playbooks/repair', {
      playbook_id: 'build-pb',
      patch: {
        steps: [
          {
            op: 'replace',
            step_index: 0,
            step: { expected_output_signature: { exit_code: 0, artifacts: [{ path: 'dist/app.js', sha256: sha('other\n') }, { path: 'dist/missing.js' }, { path: 'dist/host' }] } },
          },
        ],
      },
    });
    const bad = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'build-pb', version: rep.version, mode: 'strict' });
    assert.equal(bad.status, 'failure');
    const why = bad.steps[0].reasons.join(' ');
    assert.match(why, /artifact dist\/app\.js exists but its sha256 is/);
    assert.match(why, /artifact dist\/missing\.js does not exist/);
    assert.match(why, /artifact dist\/host: the path leads out of the working directory/);
    const badShape = await api.post('/v1/memory/replay/playbooks/repair', {
      playbook_id: 'build-pb',
      patch: { steps: [{ op: 'replace', step_index: 0, step: { expected_output_signature: { artifacts: [{ path: '../etc/passwd' }] } } }] },
    });
    assert.deepEqual(
      assertError(badShape, 422, 'validation_failed').error.details.issues.map((i: any) => i.path),
      ['steps.0.expected_output_signature.artifacts'],
    );
  });

  it('refusals: unknown run 404, a recorded run 409, bad input 400, a workspace outside the roots 400', async () => {
    assertError(await complete({ run_id: 'no-such-run', step_index: 0, status: 'success' }), 404, 'not_found');
    await recordRun(api, 'plain-recorded', 'a recorded run', [{ tool_name: 'Read', tool_input: { file_path: 'x' } }]);
    assert.equal(assertError(await complete({ run_id: 'plain-recorded', step_index: 0, status: 'success' }), 409, 'invalid_state').error.details.state, 'recorded');
    for (const bad of [
      { run_id: 'x', step_index: 0, status: 'maybe' },
      { run_id: 'x', step_index: -1, status: 'success' },
      { run_id: 'x', status: 'success' },
      { run_id: 'x', step_index: 0, status: 'success', output_signature: 'text' },
      { run_id: 'x', step_index: 0, status: 'success', output_signature: { artifacts: [{ path: 'a', sha256: 'nothex' }] } },
    ]) {
      assertError(await complete(bad), 400, 'invalid_request');
    }
    const project = fixtureProject('greet-refusals');
    await recordAgentRun('agent-refusals', project);
    await compile(api, 'agent-refusals', 'fix-refusals', { parameters: { project } });
    const outside = mkdtempSync(join(tmpdir(), 'lore-host-steps-outside-'));
    try {
      const res = await api.post('/v1/memory/replay/playbooks/run', { playbook_id: 'fix-refusals', version: 1, mode: 'guided', workspace: { path: outside } });
      assertError(res, 400, 'invalid_request');
      assertError(
        await api.post('/v1/memory/replay/playbooks/dispatch', { playbook_id: 'fix-refusals', version: 1, mode: 'guided', workspace: { path: outside } }),
        400,
        'invalid_request',
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('isolation: another tenant or scope cannot see or report a run’s host step', { timeout: 300_000 }, async () => {
    const project = fixtureProject('greet-iso');
    let n = 0;
    await assertIsolated({
      what: 'playbooks/runs/steps/complete',
      seed: async (o) => {
        await recordRun(api, 'iso-src', 'fix the greeting', [{ tool_name: 'Read', tool_input: { file_path: `${project}/src/greet.js` } }], {}, o);
        await compile(api, 'iso-src', 'iso-pb', {}, o);
        const r = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'iso-pb', version: 1, mode: 'guided', run_id: 'iso-run' }, o);
        assert.equal(r.pending_step.step_index, 0);
      },
      sees: async (v) => {
        n += 1;
        // A wrong index: the owner is told the run waits elsewhere (409); a stranger finds no run (404).
        const res = await complete({ run_id: 'iso-run', step_index: 5, status: 'success' }, v);
        if (res.status === 409) return true;
        assertError(res, 404, 'not_found');
        const get = await api.post('/v1/memory/replay/runs/get', { ...v, run_id: 'iso-run' });
        assert.equal(get.status, 404);
        return false;
      },
    });
    assert.equal(n, 3);
  });
});
