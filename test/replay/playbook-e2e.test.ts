/**
 * Proof 1: a recorded 3-step run of real commands (each ran in the sandbox; the run records what
 * they printed), compiled with a parameter, promoted to active and run in strict mode: the same
 * outputs. Run again with another parameter value: the substituted command ran. The successful
 * runs of the active version fed workflow learning.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { compile, getRun, ok, recordRun, type RecordedStep } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => {
  await api?.close();
});

const STEPS = [['sh', '-c', 'printf "%s\\n" "hello-lore" > note.txt && echo wrote note.txt'], ['ls'], ['cat', 'note.txt']];

describe('record → compile → promote → run (strict) with parameters', () => {
  it('replays real commands with the recorded outputs, and substitutes a parameter', async () => {
    // Run the commands for real in one sandbox session and record what they printed.
    const session = await ok(api, '/v1/memory/sandbox/sessions', {});
    const recorded: RecordedStep[] = [];
    for (const argv of STEPS) {
      const r = await ok(api, '/v1/memory/sandbox/execute', { session_id: session.session_id, action: { kind: 'command', argv } });
      assert.equal(r.run.status, 'succeeded', JSON.stringify(r.run));
      recorded.push({ tool_name: 'command', tool_input: { argv }, output_signature: { kind: 'stdout', summary: r.run.stdout_tail.trim(), exit_code: r.run.exit_code } });
    }
    assert.equal(recorded[2]!.output_signature!.summary, 'hello-lore');
    assert.match(String(recorded[1]!.output_signature!.summary), /note\.txt/);
    await recordRun(api, 'rec-1', 'write a note and read it back', recorded);

    const compiled = await compile(api, 'rec-1', 'note-pb', { parameters: { greeting: 'hello-lore' } });
    assert.equal(compiled.version, 1);
    assert.equal(compiled.playbook.status, 'draft');
    assert.deepEqual(compiled.playbook.parameters, [{ name: 'greeting', default: 'hello-lore', required: false }]);
    assert.equal(compiled.playbook.steps[0].tool_input.argv[2], 'printf "%s\\n" "{{greeting}}" > note.txt && echo wrote note.txt');
    assert.equal(compiled.playbook.steps[2].expected_output_signature.description, '{{greeting}}');

    const promoted = await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'note-pb', target_status: 'active', note: 'recorded run worked' });
    assert.equal(promoted.status, 'active');
    assert.equal(promoted.version, 1);
    assert.equal(promoted.active_version, 1);

    const run1 = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'note-pb', mode: 'strict', run_id: 'pb-run-1' });
    assert.equal(run1.completed, true, JSON.stringify(run1));
    assert.equal(run1.status, 'success', JSON.stringify(run1.steps));
    assert.equal(run1.version, 1);
    assert.deepEqual(
      run1.steps.map((s: any) => s.status),
      ['success', 'success', 'success'],
    );
    for (const [i, s] of run1.steps.entries()) {
      assert.equal(s.matched, true);
      assert.equal(s.stdout, recorded[i]!.output_signature!.summary, `step ${i} printed what the recorded run printed`);
    }
    assert.match(run1.run.playbook.workflow_id, /^playbook-run-/);
    assert.equal(run1.run.source, 'playbook');

    const run2 = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'note-pb', mode: 'strict', params: { greeting: 'goodbye-lore' } });
    assert.equal(run2.status, 'success', JSON.stringify(run2.steps));
    assert.equal(run2.steps[2].stdout, 'goodbye-lore', 'the substituted command wrote the new value');
    assert.deepEqual(run2.run.playbook.params, { greeting: 'goodbye-lore' });
    assert.equal(run2.run.steps[0].tool_input.argv[2], 'printf "%s\\n" "goodbye-lore" > note.txt && echo wrote note.txt');

    // Each command ran in the sandbox: the step names its sandbox run.
    const sb = await ok(api, '/v1/memory/sandbox/runs/get', { run_id: run2.steps[2].sandbox_run_id });
    assert.deepEqual(sb.run.argv, ['cat', 'note.txt']);
    assert.equal(sb.run.stdout_tail, 'goodbye-lore\n');

    // runs/get shows the playbook run as a replay run with its steps in order.
    const got = await getRun(api, 'pb-run-1');
    assert.equal(got.state, 'ended');
    assert.equal(got.status, 'success');
    assert.deepEqual(
      got.steps.map((s: any) => s.step_index),
      [0, 1, 2],
    );
    assert.equal(got.learning.state, 'fed', JSON.stringify(got.learning));
  });

  it('a successful run of the active playbook is a replay_learning_episode, and so is the recorded run it was compiled from', async () => {
    // Two executions of the task written to memory make a candidate workflow (learning's rule).
    const goal = 'rotate the release notes file';
    for (const run_id of ['w-1', 'w-2']) {
      const w = await api.post('/v1/memory/write', {
        input_text: `${goal}: wrote notes.txt then listed it`,
        execution: {
          goal,
          run_id,
          steps: [
            { tool: 'command', command: 'echo notes > notes.txt' },
            { tool: 'command', command: 'ls' },
          ],
          outcome: 'success',
        },
      });
      assert.equal(w.status, 200, JSON.stringify(w.body));
    }
    await recordRun(api, 'rec-notes', goal, [
      { tool_name: 'command', tool_input: { argv: ['sh', '-c', 'echo notes > notes.txt'] }, output_signature: { exit_code: 0 } },
      { tool_name: 'command', tool_input: { argv: ['ls'] }, output_signature: { summary: 'notes.txt' } },
    ]);
    await compile(api, 'rec-notes', 'notes-pb');
    // The recorded run joined the workflow of the two writes (recorded runs teach, issue 28), so
    // promoting the playbook compiled from it makes that workflow stable (stable_reason playbook_active).
    const first = await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'notes-pb', target_status: 'active' });
    assert.equal(first.learning.workflows_updated.length, 1, JSON.stringify(first.learning));
    const r = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'notes-pb' });
    assert.equal(r.status, 'success', JSON.stringify(r.steps));
    assert.equal(r.run.learning.state, 'fed');
    assert.equal(r.run.learning.workflows_updated.length, 1, `the episode joined the learned workflow: ${JSON.stringify(r.run.learning)}`);
    const workflowId = r.run.learning.workflows_updated[0];
    assert.equal(workflowId, first.learning.workflows_updated[0]);

    const intro = await ok(api, '/v1/memory/execution/introspect', {});
    const wf = intro.demo_surface.sections.workflows.find((w: any) => w.workflow_id === workflowId);
    assert.ok(wf, JSON.stringify(intro.demo_surface.sections.workflows));
    // Two episodes: the recorded run the playbook was compiled from (recorded runs teach too, issue 28) and the playbook's run.
    assert.equal(wf.origin_counts.replay_learning_episode, 2);
    assert.ok(wf.provenance_ids.includes('replay:rec-notes'), JSON.stringify(wf.provenance_ids));

    // Re-activating the playbook tells learning again; the workflow is stable already.
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'notes-pb', target_status: 'shadow' });
    const again = await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'notes-pb', target_status: 'active' });
    assert.deepEqual(again.learning, { workflows_updated: [] });
    const after = await ok(api, '/v1/memory/execution/introspect', {});
    const stable = after.demo_surface.sections.workflows.find((w: any) => w.workflow_id === workflowId);
    assert.equal(stable.promotion_state, 'stable');
    assert.equal(stable.stable_reason, 'playbook_active');
  });

  it('a run whose output no longer shows a recorded marker fails at that step and skips the rest; prose never fails a run', async () => {
    await recordRun(api, 'rec-mismatch', 'print a version', [
      { tool_name: 'command', tool_input: { argv: ['echo', 'v1'] }, output_signature: { kind: 'stdout', summary: 'printed v2', markers: ['v2'] } },
      { tool_name: 'command', tool_input: { argv: ['echo', 'after'] }, output_signature: { kind: 'stdout', summary: 'after' } },
    ]);
    await compile(api, 'rec-mismatch', 'mismatch-pb');
    for (const mode of ['strict', 'guided']) {
      const r = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'mismatch-pb', version: 1, mode });
      assert.equal(r.status, 'failure', mode);
      assert.deepEqual(
        r.steps.map((s: any) => s.status),
        ['failed', 'skipped'],
      );
      assert.match(r.steps[0].reasons.join(' '), /marker "v2" does not appear/);
    }
    // The same commands with prose summaries that their output does not contain: they pass on their exit status.
    await recordRun(api, 'rec-prose', 'print a version', [
      { tool_name: 'command', tool_input: { argv: ['echo', 'v1'] }, output_signature: { kind: 'stdout', summary: 'the version was printed', exit_code: 0 } },
      { tool_name: 'command', tool_input: { argv: ['echo', 'after'] }, output_signature: { kind: 'stdout', summary: 'done' } },
    ]);
    await compile(api, 'rec-prose', 'prose-pb');
    const g = await ok(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'prose-pb', version: 1, mode: 'strict' });
    assert.equal(g.status, 'success', JSON.stringify(g.steps));
    assert.equal(g.run.learning.state, 'not_eligible', 'version 1 is not active: not learned from');
  });
});
