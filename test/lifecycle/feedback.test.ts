import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assembleApi } from '../../src/app/assemble';
import { Metrics } from '../../src/http/metrics';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertIsolated, type Identity } from '../helpers/isolation';
import { allNodes, countIndependently, summary, writeNodes } from './helpers';

/**
 * Feedback acts when it is given (docs/forgetting.md, "Feedback acts when it is given"): nodes
 * given negative feedback with a reason are re-decided before the answer — demoted to cold when
 * feedback says they are wrong, archived when it says so again and again — the next forgetting
 * summary counts them, recall leaves them out ahead of the right evidence, a positive outcome
 * later restores them, and nothing is deleted. The on-demand operator run still re-checks them.
 */
describe('feedback re-decides the nodes it touches', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ worker: true });
  });
  after(async () => api?.close());

  const WRONG = ['wrong-1', 'wrong-2', 'wrong-3'];
  const QUERY = 'staging database failover runbook';
  const REASON = 'evidence proved wrong; superseded by a later fix';

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

  const activate = async (id: Identity, clientIds: string[], outcome: string, times: number) => {
    let last: any;
    for (let k = 0; k < times; k += 1) {
      const res = await api.post('/v1/memory/nodes/activate', { ...id, client_ids: clientIds, outcome, activate: true, reason: REASON });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      last = res.body;
    }
    return last;
  };
  const negative = (id: Identity, clientIds: string[]) => activate(id, clientIds, 'negative', 4);

  it('four negative outcomes archive three nodes before the answer; the next summary and recall show it; positives restore one; nothing is deleted', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('fb') };
    await seed(id);

    // Before any decision the summary reports what is happening to every node, not zeros.
    const before = await summary(api, id);
    assert.equal(before.node_count, 24);
    assert.equal(before.semantic_action_counts.retain, 24);
    assert.equal(before.lifecycle_state_counts.active, 24);
    assert.equal(before.evaluated_count, 0);
    assert.equal(before.stale_signal_count, 0);
    const found = (await recall(id)).map((r) => r.client_id);
    for (const c of [...WRONG, 'right-1']) assert.ok(found.includes(c), `${c} is recallable before the feedback`);

    const answered = await negative(id, WRONG);
    // The answers carry the decisions made before them: archived (at the third negative, -3/+0).
    assert.deepEqual(
      answered.decisions.map((d: any) => d.action),
      ['archive', 'archive', 'archive'],
    );
    for (const n of answered.nodes) assert.equal(n.tier, 'archive');

    // The very next planning context's forgetting summary counts them: no waiting, no sweep.
    const planned = (await api.post('/v1/memory/planning/context', { ...id, query_text: QUERY })).body.planning_summary.forgetting_summary;
    assert.equal(planned.semantic_action_counts.archive, 3);
    assert.equal(planned.lifecycle_state_counts.archived, 3);
    assert.equal(planned.archive_relocation_state_counts.cold_archive, 3);
    assert.equal(planned.evaluated_count, 3);
    assert.equal(planned.stale_signal_count, 3);
    assert.equal(planned.last_run, null, 'no sweep and no lifecycle/run happened');
    const exec = (await api.post('/v1/memory/execution/introspect', { ...id })).body.execution_summary.forgetting_summary;
    assert.equal(exec.semantic_action_counts.archive, 3);

    // Recall leaves them out at once: the right node on the subject comes first.
    const afterFeedback = await recall(id);
    assert.equal(afterFeedback[0].client_id, 'right-1');
    assert.ok(!afterFeedback.some((x) => WRONG.includes(x.client_id)), 'the wrong nodes are not recalled');
    const asked = await recall(id, { include_archived: true });
    const archived = asked.filter((r) => WRONG.includes(r.client_id));
    assert.equal(archived.length, 3, 'include_archived finds them by summary');
    for (const r of archived) assert.equal(r.archived, true);

    // The decisions are the operator's own, written on the nodes; nothing is deleted.
    const nodes = await allNodes(api, id);
    assert.equal(nodes.length, 24);
    for (const c of WRONG) {
      const n = nodes.find((x) => x.client_id === c);
      const sem = n.slots.semantic_forgetting_v1;
      assert.equal(sem.action, 'archive', `${c} is archived`);
      assert.equal(sem.feedback_from_tier, 'hot');
      assert.match(sem.rationale.join(' '), /feedback says this memory is wrong/);
      assert.match(sem.rationale.join(' '), /superseded by a later fix/, 'the reason given is in the decision');
      assert.equal(n.tier, 'archive');
      assert.equal(n.text, '', 'its payload is in the cold store');
      assert.equal(n.feedback.negative, 4);
      assert.equal(n.feedback.last_reason, REASON);
    }
    const mine = countIndependently(nodes);
    const s = await summary(api, id);
    assert.deepEqual(s.lifecycle_state_counts, mine.lifecycle_state_counts);
    assert.deepEqual(s.semantic_action_counts, mine.semantic_action_counts);

    // A positive outcome lifts the verdict once feedback no longer says it is wrong: one positive
    // leaves it archived (+1/-4 is still wrong), the second restores it (+2/-4 disagrees with itself:
    // restored to hot with its payload, and sent to review).
    const oneUp = await activate(id, ['wrong-1'], 'positive', 1);
    assert.equal(oneUp.decisions[0].action, 'archive');
    const twoUp = await activate(id, ['wrong-1'], 'positive', 1);
    assert.equal(twoUp.decisions[0].action, 'review');
    assert.equal(twoUp.decisions[0].target_tier, 'hot');
    assert.equal(twoUp.nodes[0].tier, 'hot');
    const restored = (await api.post('/v1/memory/resolve', { ...id, client_id: 'wrong-1' })).body.node;
    assert.equal(restored.text, 'The staging database failover runbook says step 0: promote the replica by hand.', 'the payload came back byte for byte');
    assert.equal(restored.slots.semantic_forgetting_v1.lifecycle_state, 'contested');
    const reviewed = (await api.post('/v1/memory/lifecycle/summary', id)).body;
    assert.ok(reviewed.review_candidates.some((c: any) => c.client_id === 'wrong-1'));
    assert.equal(reviewed.forgetting_summary.lifecycle_state_counts.contested, 1);
    assert.equal(reviewed.forgetting_summary.lifecycle_state_counts.archived, 2);
    assert.ok(
      (await recall(id)).some((r) => r.client_id === 'wrong-1'),
      'wrong-1 is recallable again',
    );
    assert.equal((await allNodes(api, id)).length, 24, 'still nothing deleted');
  });

  it('two negative outcomes demote a node to cold at once and retire it; a pinned one goes to review instead', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('fb') };
    await seed(id);
    await api.post('/v1/memory/nodes/pin', { ...id, client_ids: ['wrong-3'] });
    const r = await activate(id, ['wrong-1', 'wrong-3'], 'negative', 2);
    const by = Object.fromEntries(r.decisions.map((d: any) => [d.client_id, d]));
    assert.equal(by['wrong-1'].action, 'demote');
    assert.equal(by['wrong-1'].target_tier, 'cold');
    assert.equal(by['wrong-1'].lifecycle_state, 'retired');
    assert.equal(by['wrong-3'].action, 'review');
    assert.equal(by['wrong-3'].target_tier, 'hot', 'pinned: never moved');
    const s = await summary(api, id);
    assert.equal(s.semantic_action_counts.demote, 1);
    assert.equal(s.semantic_action_counts.review, 1);
    assert.equal(s.lifecycle_state_counts.retired, 2);
    assert.equal(s.tier_counts.cold, 1);
    const found = await recall(id);
    assert.ok(!found.some((x) => x.client_id === 'wrong-1' || x.client_id === 'wrong-3'), 'retired nodes are left out of recall');
    const audit = await recall(id, { include_retired: true });
    assert.equal(audit.find((x) => x.client_id === 'wrong-1')?.retired, true);
    // A positive outcome that lifts the verdict brings it back to the tier feedback took it from.
    const up = await activate(id, ['wrong-1'], 'positive', 3);
    assert.equal(up.decisions[0].target_tier, 'hot');
    assert.ok((await recall(id)).some((x) => x.client_id === 'wrong-1'));
  });

  it('a restarted API still leaves the archived nodes out and counts them', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('fb') };
    await seed(id);
    await negative(id, WRONG);
    assert.equal((await summary(api, id)).evaluated_count, 3, 'decided before the answers');
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
      assert.ok(!r.results.some((x: any) => WRONG.includes(x.client_id)), 'archived nodes stay out of recall after a restart');
      const s = (await post('/v1/memory/lifecycle/summary', id)).forgetting_summary;
      assert.equal(s.semantic_action_counts.archive, 3);
      assert.equal(s.lifecycle_state_counts.archived, 3);
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
        assert.equal((await summary(api, owner)).semantic_action_counts.archive, 3);
      },
      sees: async (viewer) => {
        const s = await summary(api, viewer);
        const r = await api.post('/v1/memory/recall_text', { ...viewer, query_text: QUERY, include_retired: true, include_archived: true });
        return s.semantic_action_counts.archive + s.lifecycle_state_counts.retired > 0 || r.body.results.some((x: any) => x.retired || x.archived);
      },
    });
  });
});
