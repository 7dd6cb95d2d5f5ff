import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { ok } from './helpers';

/**
 * Proof 2: positive feedback materialises policy memory (persisted, active), and experience
 * intelligence then shows its policy_memory_id. Counters accumulate over distinct runs.
 */
describe('positive feedback materialises policy memory', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const task = (text: string) => ({
    input_text: text,
    context: { task_kind: 'fix_flaky_test', goal: text, file_path: 'src/jobs/worker.ts' },
    candidates: ['read', 'edit', 'test'],
  });

  it('three distinct positive runs make the pattern trusted and persist an active policy', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('policy') };
    const before = await ok(api, '/v1/memory/experience/intelligence', {
      ...id,
      query_text: 'fix flaky retry in worker.ts',
      context: { task_kind: 'fix_flaky_test' },
      candidates: ['read', 'edit', 'test'],
    });
    assert.equal(before.policy_contract.materialization_state, 'computed');
    assert.equal(before.policy_memory, null);
    assert.equal(before.selected_tool, null);

    // The same run reporting three times counts once.
    for (let i = 0; i < 3; i += 1) {
      const r = await ok(api, '/v1/memory/tools/feedback', {
        ...id,
        outcome: 'positive',
        selected_tool: 'edit',
        target: 'tool',
        run_id: 'run-a',
        ...task('fix flaky retry in worker.ts'),
      });
      assert.equal(r.policy_memory, null);
      assert.equal(r.pattern.state, 'observed');
      assert.equal(r.pattern.counts.positive, i + 1);
      assert.equal(r.pattern.distinct_positive_runs, 1);
    }
    const second = await ok(api, '/v1/memory/tools/feedback', {
      ...id,
      outcome: 'positive',
      selected_tool: 'edit',
      run_id: 'run-b',
      ...task('the flaky retry in the worker fails again'),
    });
    assert.equal(
      second.pattern.pattern_id,
      (await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'neutral', selected_tool: 'edit', ...task('fix flaky retry in worker.ts') })).pattern.pattern_id,
      'paraphrases land on one pattern',
    );
    const third = await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', run_id: 'run-c', ...task('flaky worker retries again') });
    assert.equal(third.pattern.state, 'trusted');
    assert.equal(third.pattern.distinct_positive_runs, 3);
    assert.equal(third.pattern.counts.positive, 5);
    assert.equal(third.policy_materialized, true);
    const pm = third.policy_memory;
    assert.ok(pm?.node_id);
    assert.equal(pm.policy_contract.materialization_state, 'persisted');
    assert.equal(pm.policy_contract.policy_memory_state, 'active');
    assert.equal(pm.policy_contract.activation_mode, 'default');
    assert.equal(pm.policy_contract.selected_tool, 'edit');
    assert.equal(pm.policy_contract.policy_memory_id, pm.node_id);
    assert.ok(pm.policy_contract.supporting_anchor_ids.includes(third.pattern.pattern_id));
    assert.equal(pm.policy_contract.history[0].action, 'materialize');

    const ei = await ok(api, '/v1/memory/experience/intelligence', {
      ...id,
      query_text: 'the worker retry is intermittent',
      context: { task_kind: 'fix_flaky_test' },
      candidates: ['read', 'edit', 'test'],
    });
    assert.equal(ei.policy_contract.policy_memory_id, pm.node_id);
    assert.equal(ei.policy_contract.materialization_state, 'persisted');
    assert.equal(ei.policy_memory.node_id, pm.node_id);
    assert.equal(ei.selected_tool, 'edit');
    assert.ok(ei.tool_ranking[0].reasons.some((r: string) => r.includes(pm.node_id)));
    assert.equal(ei.derived_policy.selected_tool, 'edit');
    assert.equal(ei.policy_hints.preferred_tool, 'edit');

    // The policy memory is a node: introspection lists it under supporting knowledge.
    const intro = await ok(api, '/v1/memory/execution/introspect', id);
    assert.ok(intro.supporting_knowledge.some((e: any) => e.id === pm.node_id && e.kind === 'policy_memory'));
    assert.equal(intro.execution_summary.policy_counts.active, 1);
    const resolved = await ok(api, '/v1/memory/resolve', { ...id, id: pm.node_id });
    assert.equal(resolved.node.kind, 'policy_memory');
  });

  it('positive feedback on a tool without trusted or stable backing does not materialise', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('policy') };
    const r = await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'bash', run_id: 'r1', ...task('fix flaky retry') });
    assert.equal(r.policy_memory, null);
    assert.equal(r.policy_materialized, false);
  });
});
