import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { ok } from './helpers';

/**
 * Proof 3: the governance loop. active → retired (not applied; later positive feedback does not
 * revive it) → reactivated → active, every transition in history with actor and reason; invalid
 * transitions are invalid_state; an unknown policy is not_found.
 */
describe('policy governance loop', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const task = (text: string) => ({ input_text: text, context: { task_kind: 'fix_flaky_test', file_path: 'src/jobs/worker.ts' }, candidates: ['read', 'edit', 'test'] });
  const ask = { query_text: 'fix flaky retry in the worker', context: { task_kind: 'fix_flaky_test' }, candidates: ['read', 'edit', 'test'] };

  async function materialise(id: { tenant_id: string; scope: string }): Promise<string> {
    let last: any;
    for (const run of ['r1', 'r2', 'r3'])
      last = await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', run_id: run, ...task('fix flaky retry in worker.ts') });
    assert.equal(last.policy_memory.policy_contract.policy_memory_state, 'active');
    return last.policy_memory.node_id;
  }

  it('retire, feedback that does not revive, reactivate', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('gov') };
    const pmId = await materialise(id);

    const retired = await ok(api, '/v1/memory/policies/governance/apply', {
      ...id,
      actor: 'ops-alice',
      policy_memory_id: pmId,
      action: 'retire',
      reason: 'edit keeps touching generated code',
    });
    assert.equal(retired.previous_state, 'active');
    assert.equal(retired.policy_memory.policy_contract.policy_memory_state, 'retired');

    let ei = await ok(api, '/v1/memory/experience/intelligence', { ...id, ...ask });
    assert.equal(ei.policy_contract.policy_memory_state, 'retired');
    assert.equal(ei.policy_contract.applies, false);
    assert.equal(ei.policy_memory, null, 'a retired policy does not apply');
    const editRank = ei.tool_ranking.find((t: any) => t.tool === 'edit');
    assert.ok(editRank.reasons.some((r: string) => r.includes('retired: not applied')));
    assert.ok(!editRank.source_kinds.includes('policy_memory'));

    for (const run of ['r4', 'r5', 'r6', 'r7']) {
      const f = await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', run_id: run, ...task('fix flaky retry in worker.ts') });
      assert.equal(f.policy_memory.policy_contract.policy_memory_state, 'retired', 'later feedback does not revive a retired policy');
    }
    ei = await ok(api, '/v1/memory/experience/intelligence', { ...id, ...ask });
    assert.equal(ei.policy_contract.policy_memory_state, 'retired');

    const reactivated = await ok(api, '/v1/memory/policies/governance/apply', { ...id, actor: 'ops-bob', policy_memory_id: pmId, action: 'reactivate', reason: 'generator fixed' });
    assert.equal(reactivated.previous_state, 'retired');
    assert.equal(reactivated.policy_memory.policy_contract.policy_memory_state, 'active');
    ei = await ok(api, '/v1/memory/experience/intelligence', { ...id, ...ask });
    assert.equal(ei.policy_memory.node_id, pmId);
    assert.equal(ei.selected_tool, 'edit');

    const history = reactivated.policy_memory.policy_contract.history.map((h: any) => [h.action, h.from, h.to, h.actor, h.reason]);
    assert.deepEqual(history.slice(1), [
      ['retire', 'active', 'retired', 'ops-alice', 'edit keeps touching generated code'],
      ['reactivate', 'retired', 'active', 'ops-bob', 'generator fixed'],
    ]);
    assert.equal(reactivated.policy_memory.counts.after_retire, 4, 'feedback while retired is counted, not applied');
  });

  it('invalid transitions are invalid_state; unknown ids are not_found; bad input is invalid_request', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('gov') };
    const pmId = await materialise(id);
    const body = assertError(await api.post('/v1/memory/policies/governance/apply', { ...id, policy_memory_id: pmId, action: 'reactivate', reason: 'x' }), 409, 'invalid_state');
    assert.equal(body.error.details.state, 'active');
    await ok(api, '/v1/memory/policies/governance/apply', { ...id, policy_memory_id: pmId, action: 'retire', reason: 'x' });
    assertError(await api.post('/v1/memory/policies/governance/apply', { ...id, policy_memory_id: pmId, action: 'retire', reason: 'x' }), 409, 'invalid_state');
    assertError(await api.post('/v1/memory/policies/governance/apply', { ...id, policy_memory_id: '019b0000-0000-7000-8000-000000000000', action: 'retire' }), 404, 'not_found');
    assertError(await api.post('/v1/memory/policies/governance/apply', { ...id, policy_memory_id: pmId, action: 'delete' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/policies/governance/apply', { ...id, action: 'retire' }), 400, 'invalid_request');
    // A policy of another scope is unknown here.
    assertError(
      await api.post('/v1/memory/policies/governance/apply', { tenant_id: 'acme', scope: uniqueName('other'), policy_memory_id: pmId, action: 'reactivate' }),
      404,
      'not_found',
    );
  });
});
