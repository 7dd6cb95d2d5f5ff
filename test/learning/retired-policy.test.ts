import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { ok } from './helpers';

/**
 * A retired policy stops steering selected_tool, also through the trusted pattern behind it
 * (docs/learning.md, "Policy memory"): after a retire, task start — kickoff/recommendation,
 * experience/intelligence, planning/context, tools/select — no longer selects the policy's tool
 * on the strength of that policy or its pattern; a reactivation restores both. Cold starts stay
 * honest throughout.
 */
describe('a retired policy and the pattern behind it', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const task = { input_text: 'fix flaky retry in worker.ts', context: { task_kind: 'fix_flaky_test', file_path: 'src/jobs/worker.ts' }, candidates: ['read', 'edit', 'test'] };
  const ask = { query_text: 'fix flaky retry in the worker', context: { task_kind: 'fix_flaky_test' }, candidates: ['read', 'edit', 'test'] };

  async function startOfTask(id: { tenant_id: string; scope: string }) {
    const [kickoff, ei, planning, select] = await Promise.all([
      ok(api, '/v1/memory/kickoff/recommendation', { ...id, ...ask }),
      ok(api, '/v1/memory/experience/intelligence', { ...id, ...ask }),
      ok(api, '/v1/memory/planning/context', { ...id, ...ask }),
      ok(api, '/v1/memory/tools/select', { ...id, ...ask }),
    ]);
    return { kickoff, ei, planning, select };
  }

  it('retire: no surface selects the tool on the policy’s or its pattern’s strength; reactivate restores it', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('retired') };
    let last: any;
    for (const run of ['r1', 'r2', 'r3']) last = await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', run_id: run, ...task });
    const pmId = last.policy_memory.node_id;
    const patternId = last.pattern.pattern_id;
    assert.equal(last.pattern.state, 'trusted');

    // Before: the policy drives task start, with its evidence.
    let s = await startOfTask(id);
    assert.equal(s.kickoff.first_action.selected_tool, 'edit');
    assert.equal(s.kickoff.first_action.source_kind, 'policy_memory');
    assert.ok(s.kickoff.first_action.evidence_ids.includes(pmId));
    assert.equal(s.ei.selected_tool, 'edit');
    assert.equal(s.planning.kickoff_recommendation.selected_tool, 'edit');
    assert.equal(s.select.selected_tool, 'edit');
    assert.equal(s.select.selection_basis, 'learned');

    await ok(api, '/v1/memory/policies/governance/apply', { ...id, actor: 'ops', policy_memory_id: pmId, action: 'retire', reason: 'edit keeps touching generated code' });

    // After: neither the policy nor the trusted pattern behind it selects edit.
    s = await startOfTask(id);
    assert.equal(s.kickoff.first_action, null, 'no learned first action is left for this task');
    assert.equal(s.kickoff.uncertainty.level, 'high');
    assert.equal(s.kickoff.kickoff_recommendation.selected_tool, null);
    assert.notEqual(s.ei.selected_tool, 'edit');
    assert.equal(s.ei.policy_memory, null);
    const edit = s.ei.tool_ranking.find((t: any) => t.tool === 'edit');
    assert.equal(edit.score, 0);
    assert.deepEqual(edit.source_kinds, []);
    assert.ok(
      edit.reasons.some((r: string) => r.includes(`trusted pattern ${patternId} backs retired policy memory ${pmId}`)),
      edit.reasons.join(' | '),
    );
    assert.notEqual(s.planning.kickoff_recommendation.selected_tool, 'edit');
    assert.equal(s.planning.planning_summary.selected_tool, null);
    assert.ok(!s.planning.planner_packet.sections.trusted_patterns.some((e: any) => e.id === patternId), 'the held pattern is not offered as guidance');
    assert.doesNotMatch(s.planning.planner_packet.merged_text, /Trusted tool patterns/);
    assert.notEqual(s.select.selection_basis, 'learned');
    assert.equal(s.select.selected_tool, 'read', 'the caller’s own order, said so');
    assert.equal(s.select.selection_basis, 'candidate_order');

    // Reactivated: both steer again.
    await ok(api, '/v1/memory/policies/governance/apply', { ...id, actor: 'ops', policy_memory_id: pmId, action: 'reactivate', reason: 'generator fixed' });
    s = await startOfTask(id);
    assert.equal(s.kickoff.first_action.selected_tool, 'edit');
    assert.equal(s.ei.selected_tool, 'edit');
    assert.ok(s.planning.planner_packet.sections.trusted_patterns.some((e: any) => e.id === patternId));
  });

  it('a learned workflow still applies after the policy of the same tool is retired; unseen tasks stay null', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('retired') };
    let last: any;
    for (const run of ['r1', 'r2', 'r3']) last = await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', run_id: run, ...task });
    await ok(api, '/v1/memory/policies/governance/apply', { ...id, actor: 'ops', policy_memory_id: last.policy_memory.node_id, action: 'retire', reason: 'x' });
    // Three consistent successful executions: a stable workflow that starts with edit.
    for (const [i, goal] of ['fix flaky retry in worker.ts', 'flaky retry test in the job worker', 'worker retry is nondeterministic'].entries()) {
      await ok(api, '/v1/memory/write', {
        ...id,
        execution: { goal, task_kind: 'fix_flaky_test', run_id: `w${i}`, steps: [{ tool: 'edit', file_path: 'src/jobs/worker.ts' }, { tool: 'test' }], outcome: 'success' },
      });
    }
    const k = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, ...ask });
    assert.equal(k.first_action.source_kind, 'stable_workflow', 'the workflow is its own evidence, not the retired policy');
    assert.equal(k.first_action.selected_tool, 'edit');
    assert.ok(!k.first_action.evidence_ids.includes(last.policy_memory.node_id));
    assert.ok(k.first_action.evidence_ids.length > 0);

    const unseen = await ok(api, '/v1/memory/kickoff/recommendation', {
      ...id,
      query_text: 'translate the onboarding emails into German',
      context: { task_kind: 'docs' },
      candidates: ['read', 'edit', 'test'],
    });
    assert.equal(unseen.first_action, null);
    assert.equal(unseen.uncertainty.level, 'high');
    assert.deepEqual(unseen.uncertainty.recommended_actions, ['widen_recall', 'inspect_context']);
  });
});
