import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { ok } from './helpers';

/**
 * Proof 5: negative feedback after trust makes a pattern contested and the evolution review pack
 * says so; fresh positive runs revalidate it. The pack proposes only governance payloads that
 * policies/governance/apply accepts.
 */
describe('contested patterns', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const task = { input_text: 'fix flaky retry in worker.ts', context: { task_kind: 'fix_flaky_test', file_path: 'src/jobs/worker.ts' }, candidates: ['read', 'edit', 'test'] };
  const review = { query_text: 'flaky retry in the worker', context: { task_kind: 'fix_flaky_test' }, tool_candidates: ['read', 'edit', 'test'] };

  it('trusted → contested (pack says so, proposes retire) → revalidated by two fresh runs', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('contest') };
    const fb = (outcome: string, run: string, tool = 'edit') => ok(api, '/v1/memory/tools/feedback', { ...id, outcome, selected_tool: tool, run_id: run, ...task });
    for (const r of ['r1', 'r2', 'r3']) await fb('positive', r);
    let pack = (await ok(api, '/v1/memory/evolution/review-pack', { ...id, ...review })).evolution_review_pack;
    assert.equal(pack.trusted_patterns.length, 1);
    assert.equal(pack.contested_patterns.length, 0);
    assert.equal(pack.policy_governance_apply_payload, undefined, 'a healthy policy gets no proposal');

    const neg = await fb('negative', 'r4');
    assert.equal(neg.pattern.state, 'contested');
    assert.equal(neg.policy_memory.policy_contract.policy_memory_state, 'contested');
    assert.equal(neg.pattern.counts.positive, 3, 'counters are not reset');

    pack = (await ok(api, '/v1/memory/evolution/review-pack', { ...id, ...review })).evolution_review_pack;
    assert.equal(pack.contested_patterns.length, 1);
    assert.equal(pack.contested_patterns[0].pattern_id, neg.pattern.pattern_id);
    assert.equal(pack.trusted_patterns.length, 0);
    assert.ok(pack.learning_recommendations.some((r: any) => r.action === 'review_contested_pattern' && r.target_id === neg.pattern.pattern_id));
    assert.equal(pack.evolution_inspect.policy_review[0].state, 'contested');
    assert.equal(pack.review_contract.checks.find((c: any) => c.check === 'no contested evidence').status, 'attention');
    const ei = pack.evolution_inspect.experience_intelligence;
    assert.ok(ei.policy_hints.contested_tools.includes('edit'));
    assert.ok(ei.uncertainty.recommended_actions.includes('request_operator_review'));

    // The proposed payload is one the apply route accepts.
    const payload = pack.policy_governance_apply_payload;
    assert.equal(payload.action, 'retire');
    assert.equal(payload.policy_memory_id, neg.policy_memory.node_id);
    assert.deepEqual(pack.evolution_inspect.policy_governance_apply_payload, payload);
    const applied = await ok(api, '/v1/memory/policies/governance/apply', payload);
    assert.equal(applied.policy_memory.policy_contract.policy_memory_state, 'retired');

    // Fresh positive runs revalidate the pattern (the retired policy stays retired).
    assert.equal((await fb('positive', 'r1')).pattern.state, 'contested', 'a run counted before the contest is not fresh');
    assert.equal((await fb('positive', 'r5')).pattern.state, 'contested');
    const again = await fb('positive', 'r6');
    assert.equal(again.pattern.state, 'trusted');
    assert.equal(again.policy_memory.policy_contract.policy_memory_state, 'retired');

    // Now the pack proposes reactivation, and that payload is accepted too.
    pack = (await ok(api, '/v1/memory/evolution/review-pack', { ...id, ...review })).evolution_review_pack;
    assert.equal(pack.trusted_patterns.length, 1);
    assert.equal(pack.policy_governance_apply_payload.action, 'reactivate');
    const back = await ok(api, '/v1/memory/policies/governance/apply', pack.policy_governance_apply_payload);
    assert.equal(back.policy_memory.policy_contract.policy_memory_state, 'active');
    pack = (await ok(api, '/v1/memory/evolution/review-pack', { ...id, ...review })).evolution_review_pack;
    assert.equal(pack.policy_governance_apply_payload, undefined);
    for (const [pid, actions] of Object.entries(pack.policy_governance_contract.allowed_actions)) {
      assert.deepEqual(actions, ['retire'], `active policy ${pid} can only be retired`);
    }
  });

  it('suppression overrides feedback until unsuppressed', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('suppress') };
    let last: any;
    for (const r of ['r1', 'r2', 'r3']) last = await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'test', run_id: r, ...task });
    const pid = last.pattern.pattern_id;
    const s = await ok(api, '/v1/memory/patterns/suppress', { ...id, pattern_id: pid, reason: 'tests are quarantined' });
    assert.equal(s.pattern.state, 'suppressed');
    for (const r of ['r4', 'r5'])
      assert.equal((await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'test', run_id: r, ...task })).pattern.state, 'suppressed');
    const pack = (await ok(api, '/v1/memory/evolution/review-pack', { ...id, ...review })).evolution_review_pack;
    assert.equal(pack.suppressed_patterns[0].pattern_id, pid);
    const sel = await ok(api, '/v1/memory/tools/select', { ...id, ...review });
    assert.ok(sel.ranking.find((t: any) => t.tool === 'test').reasons.some((r: string) => r.includes('suppressed')));
    const u = await ok(api, '/v1/memory/patterns/unsuppress', { ...id, pattern_id: pid });
    assert.equal(u.pattern.state, 'trusted');
    assert.equal(u.changed, true);
  });
});
