import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assembleApi } from '../../src/app/assemble';
import { Metrics } from '../../src/http/metrics';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertIsolated, type Identity } from '../helpers/isolation';
import { pollFor } from '../helpers/wait';
import { allNodes, countIndependently, summary, writeNodes } from './helpers';

/**
 * Feedback acts when it is given (docs/forgetting.md, "Feedback"): negative feedback on nodes is
 * re-decided by an on-demand operator run within seconds — the forgetting summary counts them
 * retired and recall leaves them out — without any sweep or lifecycle/run. Waits poll with a
 * generous bound; nothing asserts how long it took.
 */
describe('feedback re-decides the nodes it touches', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ worker: true });
  });
  after(async () => api?.close());

  const WRONG = ['wrong-1', 'wrong-2', 'wrong-3'];
  const QUERY = 'staging database failover runbook';

  async function seed(id: Identity): Promise<void> {
    await writeNodes(api, id, 20, 'noise');
    const nodes = WRONG.map((c, i) => ({
      client_id: c,
      type: 'evidence',
      title: `failover note ${i}`,
      text: `The staging database failover runbook says step ${i}: promote the replica by hand.`,
    }));
    // One right node on the same subject: it stays recallable throughout.
    nodes.push({
      client_id: 'right-1',
      type: 'evidence',
      title: 'failover is automatic',
      text: 'The staging database failover is automatic since v3; the runbook step of promoting by hand is obsolete.',
    });
    const res = await api.post('/v1/memory/write', { ...id, nodes });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  const recall = async (id: Identity, extra: Record<string, unknown> = {}) => {
    const res = await api.post('/v1/memory/recall_text', { ...id, query_text: QUERY, limit: 10, ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.results as any[];
  };

  const negative = async (id: Identity, clientIds: string[]) => {
    for (let k = 0; k < 4; k += 1) {
      const res = await api.post('/v1/memory/nodes/activate', { ...id, client_ids: clientIds, outcome: 'negative', activate: true, reason: 'evidence proved wrong' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
  };

  it('negative feedback on three nodes shows in the forgetting summary and in recall, and positive feedback brings one back for review', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('fb') };
    await seed(id);

    // Before any operator run the summary reports what is happening to every node, not zeros.
    const before = await summary(api, id);
    assert.equal(before.node_count, 24);
    assert.equal(before.semantic_action_counts.retain, 24);
    assert.equal(before.lifecycle_state_counts.active, 24);
    assert.equal(before.evaluated_count, 0);
    assert.equal(before.undecided_count, 24);
    assert.equal(before.last_run, null);
    const found = (await recall(id)).map((r) => r.client_id);
    for (const c of [...WRONG, 'right-1']) assert.ok(found.includes(c), `${c} is recallable before the feedback`);

    await negative(id, WRONG);

    // The planning surface's summary and recall both reflect it once the on-demand run has landed.
    const planned = await pollFor(
      'the feedback run to retire the three nodes',
      async () => {
        const s = (await api.post('/v1/memory/planning/context', { ...id, query_text: QUERY })).body.planning_summary.forgetting_summary;
        return s.lifecycle_state_counts.retired === 3 && s.evaluated_count === 3 ? s : null;
      },
      60_000,
      200,
    );
    assert.equal(planned.undecided_count, 21);
    assert.equal(planned.semantic_action_counts.retain, 24);
    assert.equal(planned.last_run, null, 'no sweep and no lifecycle/run happened');
    const exec = (await api.post('/v1/memory/execution/introspect', { ...id })).body.execution_summary.forgetting_summary;
    assert.equal(exec.lifecycle_state_counts.retired, 3);

    const after = await pollFor(
      'recall to leave the retired nodes out',
      async () => {
        const r = await recall(id);
        return r.some((x) => WRONG.includes(x.client_id)) ? null : r;
      },
      60_000,
      200,
    );
    assert.equal(after[0].client_id, 'right-1', 'the right node on the subject is still found');
    assert.ok(after.every((r) => r.retired === false));
    const asked = await recall(id, { include_retired: true });
    const retired = asked.filter((r) => WRONG.includes(r.client_id));
    assert.equal(retired.length, 3, 'include_retired brings them back');
    for (const r of retired) assert.equal(r.retired, true);

    // The decisions are the operator's own, written on the nodes.
    const nodes = await allNodes(api, id);
    for (const c of WRONG) {
      const n = nodes.find((x) => x.client_id === c);
      const sem = n.slots.semantic_forgetting_v1;
      assert.equal(sem.lifecycle_state, 'retired', `${c} is retired`);
      assert.match(sem.rationale.join(' '), /feedback says this memory is wrong/);
      assert.equal(n.feedback.negative, 4);
    }
    const mine = countIndependently(nodes);
    const s = await summary(api, id);
    assert.deepEqual(s.lifecycle_state_counts, mine.lifecycle_state_counts);
    assert.deepEqual(s.semantic_action_counts, mine.semantic_action_counts);

    // Positive feedback acts too: ten positives make wrong-1's feedback disagree with itself.
    for (let k = 0; k < 10; k += 1) {
      assert.equal((await api.post('/v1/memory/nodes/activate', { ...id, client_ids: ['wrong-1'], outcome: 'positive', reason: 'it helped after all' })).status, 200);
    }
    // The review candidate and the counts are written by separate steps: wait until both show it.
    const reviewed = await pollFor(
      'wrong-1 to be sent to review and counted as contested',
      async () => {
        const r = await api.post('/v1/memory/lifecycle/summary', id);
        const counts = r.body.forgetting_summary.lifecycle_state_counts;
        const listed = r.body.review_candidates.some((c: any) => c.client_id === 'wrong-1');
        return listed && counts.contested === 1 && counts.retired === 2 ? r.body : null;
      },
      120_000,
      200,
    );
    assert.equal(reviewed.forgetting_summary.lifecycle_state_counts.retired, 2);
    assert.equal(reviewed.forgetting_summary.lifecycle_state_counts.contested, 1);
    assert.equal(reviewed.forgetting_summary.semantic_action_counts.review, 1);
    await pollFor('wrong-1 to be recallable again', async () => (await recall(id)).some((r) => r.client_id === 'wrong-1'), 60_000, 200);
  });

  it('a restarted API still leaves the retired nodes out and counts them', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('fb') };
    await seed(id);
    await negative(id, WRONG);
    await pollFor('the feedback run', async () => (await summary(api, id)).evaluated_count === 3, 60_000, 200);
    // A second API process on the same store: its recall index and forgetting view are built from the store.
    const fresh = await assembleApi(api.deps, new Metrics());
    try {
      const post = async (path: string, body: unknown) => {
        const res = await fresh.app.inject({ method: 'POST', url: path, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
        assert.equal(res.statusCode, 200, res.body);
        return JSON.parse(res.body);
      };
      const r = await post('/v1/memory/recall_text', { ...id, query_text: QUERY, limit: 10 });
      assert.equal(r.results[0].client_id, 'right-1');
      assert.ok(!r.results.some((x: any) => WRONG.includes(x.client_id)), 'retired nodes stay out of recall after a restart');
      const s = (await post('/v1/memory/lifecycle/summary', id)).forgetting_summary;
      assert.equal(s.lifecycle_state_counts.retired, 3);
      assert.equal(s.evaluated_count, 3);
    } finally {
      await fresh.stop();
    }
  });

  it('feedback in one scope retires nothing in another', async () => {
    await assertIsolated({
      what: 'feedback re-decision',
      seed: async (owner) => {
        await seed(owner);
        await negative(owner, WRONG);
        await pollFor('the owner’s feedback run', async () => (await summary(api, owner)).evaluated_count === 3, 60_000, 200);
      },
      sees: async (viewer) => {
        const s = await summary(api, viewer);
        const r = await api.post('/v1/memory/recall_text', { ...viewer, query_text: QUERY, include_retired: true });
        return s.lifecycle_state_counts.retired > 0 || r.body.results.some((x: any) => x.retired);
      },
    });
  });
});
