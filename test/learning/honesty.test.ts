import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { ok, writeExecution } from './helpers';

/**
 * Honesty (issue: "every recommendation lists the evidence ids it rests on; never present a guess
 * as learned"): whatever source a first action comes from — workflow, policy memory, trusted
 * pattern, one recalled execution — it names the nodes it rests on, those nodes exist in the
 * scope, and action/retrieval lists the same evidence first. Tool selection without evidence is
 * never presented as learned.
 */
describe('recommendations are honest about what they rest on', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const candidates = ['read', 'edit', 'test', 'bash'];

  /** Every evidence id resolves to a node of this scope. */
  async function assertEvidenceExists(id: { tenant_id: string; scope: string }, ids: string[]) {
    assert.ok(ids.length > 0, 'a recommendation without evidence ids');
    for (const e of ids) {
      const res = await api.post('/v1/memory/resolve', { ...id, id: e });
      assert.equal(res.status, 200, `evidence ${e} does not resolve: ${JSON.stringify(res.body)}`);
    }
  }

  it('a recalled single execution is offered as recall (low confidence, moderate uncertainty), with its node as evidence', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('honest') };
    const w = await writeExecution(api, id, {
      goal: 'rotate the signing keys of the webhook sender',
      run_id: 'once',
      steps: [
        { tool: 'read', file_path: 'src/webhooks/signer.ts' },
        { tool: 'edit', file_path: 'src/webhooks/signer.ts' },
      ],
    });
    assert.deepEqual(w.learning.workflows_updated, [], 'one execution is not a workflow');
    const body = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: 'rotate the webhook signing keys', candidates });
    const fa = body.first_action;
    assert.ok(fa, JSON.stringify(body));
    assert.equal(fa.source_kind, 'recall');
    assert.equal(fa.file_path, 'src/webhooks/signer.ts');
    assert.ok(fa.confidence <= 0.4, `seen once must stay low confidence: ${fa.confidence}`);
    assert.deepEqual(fa.evidence_ids, [w.nodes[0].id]);
    assert.equal(body.uncertainty.level, 'moderate');
    await assertEvidenceExists(id, fa.evidence_ids);
  });

  it('policy-memory and trusted-pattern actions name the policy and the pattern they rest on', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('honest') };
    let last: any;
    for (const r of ['r1', 'r2', 'r3']) {
      last = await ok(api, '/v1/memory/tools/feedback', {
        ...id,
        outcome: 'positive',
        selected_tool: 'edit',
        run_id: r,
        input_text: 'fix flaky retry in worker.ts',
        context: { task_kind: 'fix_flaky_test', file_path: 'src/jobs/worker.ts' },
        candidates,
      });
    }
    const pmId = last.policy_memory.node_id;
    const patternId = last.pattern.pattern_id;
    const ask = { ...id, query_text: 'the worker retry is intermittent', context: { task_kind: 'fix_flaky_test' }, candidates };

    let body = await ok(api, '/v1/memory/kickoff/recommendation', ask);
    assert.equal(body.first_action.source_kind, 'policy_memory');
    assert.equal(body.first_action.selected_tool, 'edit');
    assert.ok(body.first_action.evidence_ids.includes(pmId));
    assert.ok(body.first_action.evidence_ids.includes(patternId));
    await assertEvidenceExists(id, body.first_action.evidence_ids);
    for (const alt of body.kickoff_recommendation.alternatives) await assertEvidenceExists(id, [alt.id]);
    const retrieval = await ok(api, '/v1/memory/action/retrieval', ask);
    assert.equal(retrieval.evidence[0].id, body.first_action.evidence_ids[0], 'retrieval lists the action’s own evidence first');
    for (const e of retrieval.evidence) assert.equal(typeof e.why, 'string');

    // Once the policy is retired, neither it nor the trusted pattern behind it is presented as
    // learned guidance (issue 28: a retired policy stops steering, also through its pattern).
    await ok(api, '/v1/memory/policies/governance/apply', { ...id, policy_memory_id: pmId, action: 'retire', reason: 'test' });
    body = await ok(api, '/v1/memory/kickoff/recommendation', ask);
    assert.equal(body.first_action, null);
    assert.equal(body.uncertainty.level, 'high');
    assert.ok(!body.kickoff_recommendation.alternatives.some((a: any) => a.id === pmId || a.id === patternId), 'a retired policy is not cited as applied');
  });

  it('tool selection with no evidence says candidate_order, not learned', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('honest') };
    const sel = await ok(api, '/v1/memory/tools/select', { ...id, query_text: 'fix flaky retry in worker.ts', tool_candidates: candidates });
    assert.equal(sel.selection_basis, 'candidate_order');
    assert.equal(sel.history_applied, false);
    const ei = await ok(api, '/v1/memory/experience/intelligence', { ...id, query_text: 'fix flaky retry in worker.ts', candidates });
    assert.equal(ei.selected_tool, null);
    assert.equal(ei.uncertainty.level, 'high');
    assert.equal(ei.policy_contract.materialization_state, 'computed');
  });
});
