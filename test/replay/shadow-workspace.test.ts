/**
 * Proof 2 of issue 29: repair and review on a real run. Shadow validation of a repaired version
 * runs against the project it names (a workspace) and reports a verdict per step: a version whose
 * command fails is refused activation with the failing step named; host steps are `not_run` and
 * never count as passed; the fixed version passes and becomes active. The project is never modified.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { treeDigest } from '../helpers/tree';
import { compile, ok, recordRun } from './helpers';

let api: TestApi;
let root = '';
let project = '';
before(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'lore-shadow-ws-')));
  project = join(root, 'greet');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'greet', private: true, scripts: { test: 'node test.js' } }) + '\n');
  writeFileSync(join(project, 'src', 'greet.js'), "module.exports = (n) => 'Hello, ' + n;\n");
  writeFileSync(join(project, 'test.js'), "if (require('./src/greet.js')('Lore') !== 'Hello, Lore') process.exit(1);\nconsole.log('# pass 1');\n");
  api = await startTestApi({ worker: true, env: { LORE_SANDBOX_WORKSPACE_ROOTS: root } });
});
after(async () => {
  await api?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

const PB = 'greet-pb';
const repair = (version: number, steps: unknown[]) => ok(api, '/v1/memory/replay/playbooks/repair', { playbook_id: PB, version, patch: { steps } });
const approve = (version: number, extra: Record<string, unknown> = {}) =>
  ok(api, '/v1/memory/replay/playbooks/repair/review', {
    playbook_id: PB,
    version,
    action: 'approve',
    auto_shadow_validate: true,
    shadow_validation_mode: 'execute_sandbox',
    target_status_on_approve: 'active',
    workspace: { path: project },
    ...extra,
  });

describe('shadow validation against a workspace', () => {
  it('a failing command is named and blocks activation; host steps are not_run; the fixed version passes and becomes active', { timeout: 600_000 }, async () => {
    await recordRun(api, 'greet-rec', 'check the greeting', [
      { tool_name: 'Read', tool_input: { file_path: `${project}/src/greet.js` }, output_signature: { summary: 'looks fine' } },
      { tool_name: 'Bash', tool_input: { command: 'npm test' }, output_signature: { exit_code: 0, summary: 'all green' } },
    ]);
    await compile(api, 'greet-rec', PB);
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: PB, version: 1, target_status: 'active' });
    const before = treeDigest(project);

    // v2: the test command broken.
    const v2 = await repair(1, [{ op: 'replace', step_index: 1, step: { tool_input: { command: 'npm run test:missing' } } }]);
    const bad = await approve(v2.version);
    const sv = bad.shadow_validation;
    assert.equal(sv.mode, 'execute_sandbox');
    assert.equal(sv.status, 'failed', JSON.stringify(sv));
    assert.deepEqual(
      sv.steps.map((s: any) => [s.step_index, s.status]),
      [
        [0, 'not_run'],
        [1, 'failed'],
      ],
    );
    assert.equal(sv.steps[0].matched, null, 'a host step never counts as matched');
    assert.equal(sv.steps[1].matched, false);
    assert.match(sv.steps[1].reasons.join(' '), /expected exit code 0, got 1/);
    assert.equal(sv.issues.length, 1);
    assert.match(sv.issues[0], /^step 1 \(Bash\): .*expected exit code 0/, 'the failing step is named');
    assert.equal(bad.status, 'shadow');
    assert.match(bad.activation_blocked, /shadow validation failed/);
    assert.equal(bad.active_version, 1, 'the active version stays the one runs use');

    // v3: the command fixed, the host step still there: not run, so the validation is partial, never passed.
    const v3 = await repair(v2.version, [{ op: 'replace', step_index: 1, step: { tool_input: { command: 'npm test' } } }]);
    const partial = await approve(v3.version);
    assert.equal(partial.shadow_validation.status, 'partial', JSON.stringify(partial.shadow_validation));
    assert.deepEqual(
      partial.shadow_validation.steps.map((s: any) => [s.status, s.matched]),
      [
        ['not_run', null],
        ['success', true],
      ],
    );
    assert.equal(partial.status, 'shadow');
    assert.match(partial.activation_blocked, /shadow validation partial/);

    // v4: only what the sandbox can validate: it passes against the project and becomes active.
    const v4 = await repair(v3.version, [{ op: 'remove', step_index: 0 }]);
    const good = await approve(v4.version);
    assert.equal(good.shadow_validation.status, 'passed', JSON.stringify(good.shadow_validation));
    assert.deepEqual(
      good.shadow_validation.steps.map((s: any) => [s.step_index, s.status, s.matched]),
      [[0, 'success', true]],
    );
    assert.equal(good.activation_blocked, null);
    assert.equal(good.status, 'active');
    assert.equal(good.active_version, v4.version);
    const validation = await ok(api, '/v1/memory/replay/runs/get', { run_id: good.shadow_validation.run_id });
    assert.equal(validation.run.source, 'shadow_validation');
    assert.deepEqual(validation.run.playbook.workspace, { path: project });
    assert.match(validation.run.steps[0].output_signature.summary, /# pass 1/);

    const run = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: PB, mode: 'strict', workspace: { path: project } });
    assert.equal(run.version, v4.version);
    assert.equal(run.status, 'success', JSON.stringify(run.steps));
    assert.deepEqual(treeDigest(project), before, 'validations and runs never modify the project');
  });

  it('a workspace outside the roots is refused before anything changes', async () => {
    await recordRun(api, 'refuse-rec', 'echo', [{ tool_name: 'command', tool_input: { argv: ['echo', 'x'] } }]);
    await compile(api, 'refuse-rec', 'refuse-pb');
    const r = await ok(api, '/v1/memory/replay/playbooks/repair', { playbook_id: 'refuse-pb', patch: { name: 'renamed' } });
    const res = await api.post('/v1/memory/replay/playbooks/repair/review', {
      playbook_id: 'refuse-pb',
      version: r.version,
      action: 'approve',
      auto_shadow_validate: true,
      workspace: { path: tmpdir() },
    });
    assertError(res, 400, 'invalid_request');
    const g = await ok(api, '/v1/memory/replay/playbooks/get', { playbook_id: 'refuse-pb', version: r.version });
    assert.equal(g.playbook.status, 'draft', 'the review did not happen');
    assert.equal(g.playbook.shadow_validation, null);
  });
});
