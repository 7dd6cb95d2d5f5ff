import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { ok } from './helpers';

/** Rules (state machine, evaluation, application by tool selection) and tools/select decisions. */
describe('rules and tool selection', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const task = { query_text: 'deploy the billing service', context: { task_kind: 'deploy' }, candidates: ['bash', 'edit', 'test'] };

  it('shadow rules are reported, active rules are applied, transitions follow the table', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('rules') };
    const created = await ok(api, '/v1/memory/rules/state', {
      ...id,
      rule_id: 'no-bash-deploys',
      state: 'shadow',
      rule: {
        description: 'deploys go through the pipeline',
        conditions: { terms_any: ['deploy'] },
        effects: [
          { effect: 'deny', tool: 'bash' },
          { effect: 'prefer', tool: 'test' },
        ],
      },
    });
    assert.equal(created.created, true);
    assert.equal(created.rule.state, 'shadow');

    let sel = await ok(api, '/v1/memory/tools/select', { ...id, ...task });
    assert.equal(sel.ranking.find((t: any) => t.tool === 'bash').denied, false, 'shadow rules are not applied');
    assert.deepEqual(sel.rules.shadow.deny, ['bash']);
    assert.equal(sel.selection_basis, 'candidate_order');
    assert.equal(sel.selected_tool, 'bash');

    await ok(api, '/v1/memory/rules/state', { ...id, rule_id: 'no-bash-deploys', state: 'active', reason: 'shadow run looked right' });
    sel = await ok(api, '/v1/memory/tools/select', { ...id, ...task });
    assert.equal(sel.ranking.find((t: any) => t.tool === 'bash').denied, true);
    assert.equal(sel.selected_tool, 'test');
    assert.equal(sel.selection_basis, 'rules');
    assert.match(sel.decision_id, /^[0-9a-f-]{36}$/);

    const ev = await ok(api, '/v1/memory/rules/evaluate', { ...id, ...task });
    assert.deepEqual(ev.evaluation.applied.deny, ['bash']);
    assert.deepEqual(ev.candidates_after, ['test', 'edit']);
    const unrelated = await ok(api, '/v1/memory/rules/evaluate', { ...id, query_text: 'write the changelog', candidates: ['bash'] });
    assert.deepEqual(unrelated.evaluation.matched, []);

    const off = await ok(api, '/v1/memory/rules/state', { ...id, rule_node_id: created.rule.rule_node_id, state: 'disabled' });
    assert.equal(off.previous_state, 'active');
    assertError(await api.post('/v1/memory/rules/state', { ...id, rule_id: 'no-bash-deploys', state: 'active' }), 409, 'invalid_state');
    assertError(await api.post('/v1/memory/rules/state', { ...id, rule_id: 'missing', state: 'active' }), 404, 'not_found');
    assertError(await api.post('/v1/memory/rules/state', { ...id, rule_id: 'x', state: 'on' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/rules/state', { ...id, state: 'active' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/rules/state', { ...id, rule_id: 'y', state: 'active', rule: { effects: [{ effect: 'maybe', tool: 'bash' }] } }), 400, 'invalid_request');
    const history = (await ok(api, '/v1/memory/rules/state', { ...id, rule_id: 'no-bash-deploys', state: 'shadow' })).rule.history;
    assert.deepEqual(
      history.map((h: any) => h.to),
      ['shadow', 'active', 'disabled', 'shadow'],
    );
  });

  it('feedback citing a decision lands on the decision’s task; an unknown decision is not_found', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('decide') };
    const sel = await ok(api, '/v1/memory/tools/select', {
      ...id,
      query_text: 'fix flaky retry in worker.ts',
      context: { task_kind: 'fix_flaky_test' },
      tool_candidates: ['read', 'edit'],
    });
    const fb = await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', decision_id: sel.decision_id });
    assert.equal(fb.decision_id, sel.decision_id);
    assert.equal(fb.run_key, `decision:${sel.decision_id}`);
    assert.equal(fb.pattern.task_kind, 'fix_flaky_test');
    assertError(
      await api.post('/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', decision_id: '019b0000-0000-7000-8000-000000000000' }),
      404,
      'not_found',
    );
    // A decision of another scope is unknown here.
    assertError(
      await api.post('/v1/memory/tools/feedback', { tenant_id: 'acme', scope: uniqueName('x'), outcome: 'positive', selected_tool: 'edit', decision_id: sel.decision_id }),
      404,
      'not_found',
    );
  });
});
