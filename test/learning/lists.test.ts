import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, type Identity } from '../helpers/isolation';
import { ok, writeExecution } from './helpers';

/**
 * workflows/list, workflows/get, patterns/list and policies/list: what a scope has learned,
 * newest first, filtered by state, one page at a time (the inspector's learning pages).
 */
describe('learning listings', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const feedback = (id: Identity, tool: string, run: string, outcome: 'positive' | 'negative', text: string, kind: string) =>
    ok(api, '/v1/memory/tools/feedback', {
      ...id,
      outcome,
      selected_tool: tool,
      run_id: run,
      input_text: text,
      context: { task_kind: kind, goal: text },
      candidates: ['read', 'edit', 'test'],
    });

  /** Three task families: two candidate workflows and one stable; a trusted pattern with its policy; a contested and a suppressed pattern; one retired policy. */
  async function seed(id: Identity) {
    for (const g of ['add a dark mode toggle to settings', 'dark mode switch for the settings page']) {
      await writeExecution(api, id, { goal: g, task_kind: 'ui', steps: [{ tool: 'edit', file_path: 'web/settings/Theme.tsx' }, { tool: 'test' }] });
    }
    for (const g of ['speed up the invoice CSV export', 'make the invoice CSV export faster']) {
      await writeExecution(api, id, {
        goal: g,
        task_kind: 'perf',
        steps: [
          { tool: 'grep', file_path: 'src/reports/export.ts' },
          { tool: 'edit', file_path: 'src/reports/export.ts' },
        ],
      });
    }
    for (const g of ['fix the flaky retry in the job worker', 'repair flaky retries of the job worker', 'flaky job worker retry fails again', 'the job worker retry is flaky']) {
      await writeExecution(api, id, {
        goal: g,
        task_kind: 'fix_flaky_test',
        steps: [
          { tool: 'read', file_path: 'src/jobs/worker.ts' },
          { tool: 'edit', file_path: 'src/jobs/worker.ts' },
        ],
      });
    }
    for (const run of ['r1', 'r2', 'r3']) await feedback(id, 'edit', run, 'positive', 'fix flaky retry in worker.ts', 'fix_flaky_test');
    for (const run of ['c1', 'c2', 'c3']) await feedback(id, 'test', run, 'positive', 'migrate the billing schema', 'migration');
    for (const run of ['c4', 'c5']) await feedback(id, 'test', run, 'negative', 'migrate the billing schema', 'migration');
    const sup = await feedback(id, 'read', 's1', 'positive', 'rename the logger module', 'refactor');
    await ok(api, '/v1/memory/patterns/suppress', { ...id, pattern_id: sup.pattern.pattern_id, reason: 'noisy' });
  }

  it('lists workflows, patterns and policies by state, newest first, with counts', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('lists') };
    await seed(id);

    const all = await ok(api, '/v1/memory/workflows/list', id);
    assert.equal(all.workflows.length, 3, JSON.stringify(all.workflows.map((w: any) => [w.goal, w.promotion_state])));
    const ids = all.workflows.map((w: any) => w.workflow_id);
    assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
    assert.equal(all.counts.workflows.total, 3);
    const stable = await ok(api, '/v1/memory/workflows/list', { ...id, promotion_state: 'stable' });
    const candidate = await ok(api, '/v1/memory/workflows/list', { ...id, promotion_state: 'candidate' });
    assert.equal(stable.workflows.length, all.counts.workflows.stable);
    assert.equal(candidate.workflows.length, all.counts.workflows.candidate);
    assert.ok(stable.workflows.length >= 1, 'four runs of one task make a stable workflow');
    assert.ok(stable.workflows.every((w: any) => w.promotion_state === 'stable'));
    assert.ok(candidate.workflows.every((w: any) => w.promotion_state === 'candidate'));
    for (const w of all.workflows) {
      assert.equal(w.distillation_origin, 'execution_write_projection');
      assert.ok(w.provenance_ids.length >= 2, 'each workflow shows its evidence');
    }

    // The evidence is readable as nodes (find by ids).
    const w0 = stable.workflows[0];
    const evidence = await ok(api, '/v1/memory/find', { ...id, ids: w0.provenance_ids, include_text: false });
    assert.deepEqual(evidence.nodes.map((n: any) => n.id).sort(), [...w0.provenance_ids].sort());
    const got = await ok(api, '/v1/memory/workflows/get', { ...id, workflow_id: w0.workflow_id });
    assert.deepEqual(got.workflow, w0);

    const patterns = await ok(api, '/v1/memory/patterns/list', id);
    const classes = patterns.patterns.map((p: any) => p.state).sort();
    assert.deepEqual(classes, ['contested', 'suppressed', 'trusted'], JSON.stringify(patterns.patterns.map((p: any) => [p.tool, p.state])));
    assert.deepEqual(patterns.counts.patterns, { observed: 0, trusted: 1, contested: 1, suppressed: 1 });
    for (const state of ['trusted', 'contested', 'suppressed']) {
      const one = await ok(api, '/v1/memory/patterns/list', { ...id, state });
      assert.deepEqual(
        one.patterns.map((p: any) => p.state),
        [state],
      );
    }
    const suppressed = (await ok(api, '/v1/memory/patterns/list', { ...id, state: 'suppressed' })).patterns[0];
    assert.equal(suppressed.suppressed.reason, 'noisy');
    assert.ok(suppressed.history.length >= 1);

    const policies = await ok(api, '/v1/memory/policies/list', id);
    assert.ok(policies.policies.length >= 1, JSON.stringify(policies));
    const policy = policies.policies.find((p: any) => p.policy_contract.selected_tool === 'edit');
    assert.ok(policy, 'the trusted pattern materialised a policy memory');
    await ok(api, '/v1/memory/policies/governance/apply', { ...id, policy_memory_id: policy.node_id, action: 'retire', reason: 'superseded by the new runbook' });
    const retired = await ok(api, '/v1/memory/policies/list', { ...id, state: 'retired' });
    const r = retired.policies.find((p: any) => p.node_id === policy.node_id);
    assert.ok(r);
    assert.deepEqual(
      r.policy_contract.history.map((h: any) => h.action),
      ['materialize', 'retire'],
    );
    assert.equal(r.policy_contract.history[1].reason, 'superseded by the new runbook');
    assert.equal(
      (await ok(api, '/v1/memory/policies/list', { ...id, state: 'active' })).policies.some((p: any) => p.node_id === policy.node_id),
      false,
    );
  });

  it('pages with a cursor: every item once, in order', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('lists-page') };
    await seed(id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i += 1) {
      const p = await ok(api, '/v1/memory/workflows/list', { ...id, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...p.workflows.map((w: any) => w.workflow_id));
      cursor = p.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.equal(seen.length, 3);
    assert.deepEqual(seen, [...seen].sort().reverse());
    const first = await ok(api, '/v1/memory/patterns/list', { ...id, limit: 1 });
    assert.equal(first.patterns.length, 1);
    assert.ok(first.next_cursor);
    const second = await ok(api, '/v1/memory/patterns/list', { ...id, limit: 5, cursor: first.next_cursor });
    assert.equal(second.patterns.length, 2);
    assert.equal(second.next_cursor, null);
    assert.ok(!second.patterns.some((p: any) => p.pattern_id === first.patterns[0].pattern_id));
  });

  it('rejects bad input and unknown ids', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('lists-err') };
    assertError(await api.post('/v1/memory/workflows/list', { ...id, promotion_state: 'golden' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/patterns/list', { ...id, state: 'loved' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/policies/list', { ...id, limit: 1000 }), 400, 'invalid_request');
    // A cursor of another route is not a cursor of this one.
    await seed(id);
    const wf = await ok(api, '/v1/memory/workflows/list', { ...id, limit: 1 });
    assertError(await api.post('/v1/memory/patterns/list', { ...id, cursor: wf.next_cursor }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/workflows/get', { ...id }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/workflows/get', { ...id, workflow_id: '0190d8a0-0000-7000-8000-000000000000' }), 404, 'not_found');
    assertError(await api.post('/v1/memory/workflows/get', { ...id, client_id: 'no-such-workflow' }), 404, 'not_found');
  });

  it('is isolated by tenant and scope', async () => {
    let workflowId = '';
    await assertIsolated({
      what: 'learned workflows, patterns and policies',
      seed: async (owner) => {
        await seed(owner);
        workflowId = (await ok(api, '/v1/memory/workflows/list', owner)).workflows[0].workflow_id;
      },
      sees: async (viewer) => {
        const [w, p, pol] = await Promise.all([
          ok(api, '/v1/memory/workflows/list', viewer),
          ok(api, '/v1/memory/patterns/list', viewer),
          ok(api, '/v1/memory/policies/list', viewer),
        ]);
        const got = await api.post('/v1/memory/workflows/get', { ...viewer, workflow_id: workflowId });
        return w.workflows.length + p.patterns.length + pol.policies.length > 0 || got.status === 200;
      },
    });
  });
});
