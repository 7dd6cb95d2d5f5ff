import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/model/clock';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';
import { DAY, allNodes, countIndependently, runOperator, summary, writeNodes } from './helpers';

/**
 * The lifecycle operator end to end: HTTP → Temporal workflow → activities → MongoDB, with the
 * worker and the API sharing one ManualClock so memory can be aged without waiting.
 */
describe('lifecycle operator (POST /v1/memory/lifecycle/run)', () => {
  let api: TestApi;
  const clock = new ManualClock('2026-01-01T00:00:00.000Z');
  before(async () => {
    api = await startTestApi({ worker: true, clock });
  });
  after(async () => api?.close());

  const scope = () => ({ tenant_id: 'acme', scope: uniqueName('lc') });

  it('archives the stale, keeps the activated hot, and the summary counts match the store', async () => {
    const id = scope();
    clock.set('2026-01-01T00:00:00.000Z');
    // 500 nodes; ten of them marked important by their writer.
    await writeNodes(api, id, 500, 'n', (i) => (i % 50 === 7 ? { importance: 0.9 } : {}));
    const activated = ['n-3', 'n-100', 'n-250', 'n-333', 'n-499'];

    clock.advance(120 * DAY);
    for (let k = 0; k < 3; k += 1) {
      const res = await api.post('/v1/memory/nodes/activate', { ...id, client_ids: activated, outcome: 'positive', activate: true, reason: 'helped' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }

    const run = await runOperator(api, id);
    assert.equal(run.examined, 500);
    assert.equal(run.complete, true);
    assert.equal(run.dry_run, false);
    assert.equal(run.decided_at, clock.now().toISOString(), 'the run decides at the injected clock');

    const nodes = await allNodes(api, id);
    assert.equal(nodes.length, 500);
    const byClient = new Map(nodes.map((n) => [n.client_id, n]));
    for (const c of activated) {
      const n = byClient.get(c);
      assert.equal(n.tier, 'hot', `${c} was activated and stays hot`);
      assert.equal(n.slots.semantic_forgetting_v1.action, 'retain');
      assert.ok(n.text.length > 0);
    }
    const important = nodes.filter((n) => n.importance === 0.9);
    assert.equal(important.length, 10);
    for (const n of important) assert.notEqual(n.tier, 'archive', 'an important node is not archived by age alone');

    const stale = nodes.filter((n) => !activated.includes(n.client_id) && n.importance !== 0.9);
    assert.equal(stale.length, 485);
    for (const n of stale) {
      assert.equal(n.tier, 'archive', `${n.client_id} is stale and archived`);
      assert.equal(n.text, '', 'the payload moved to the cold store');
      assert.ok(n.summary.length > 0, 'the summary stays');
      const sem = n.slots.semantic_forgetting_v1;
      assert.equal(sem.action, 'archive');
      assert.equal(sem.current_tier, 'hot');
      assert.equal(sem.target_tier, 'archive');
      assert.equal(sem.lifecycle_state, 'archived');
      assert.equal(sem.decided_at, clock.now().toISOString());
      assert.ok(sem.retention_score < 0.28);
      assert.ok(Array.isArray(sem.rationale) && sem.rationale.length >= 2);
      const rel = n.slots.archive_relocation_v1;
      assert.equal(rel.relocation_state, 'cold_archive');
      assert.equal(rel.relocation_target, 'local_cold_store');
      assert.equal(rel.payload_scope, 'node');
      assert.equal(rel.relocated_at, clock.now().toISOString());
    }
    assert.equal(run.counts.moves.archived, 485);
    assert.equal(run.counts.actions.archive, 485);

    // The summary equals what we count ourselves from the store.
    const mine = countIndependently(nodes);
    const s = await summary(api, id);
    for (const k of Object.keys(mine) as (keyof typeof mine)[]) assert.deepEqual(s[k], mine[k], `forgetting_summary.${k}`);
    assert.equal(s.tier_counts.archive, 485);
    assert.equal(s.evaluated_count, 500);
    assert.equal(s.last_run.run_id, run.run_id);
    assert.equal(typeof s.recommended_action, 'string');
    assert.ok(s.recommended_action.length > 10);
    assert.deepEqual(run.forgetting_summary.tier_counts, s.tier_counts, 'the run returns the summary after acting');

    // Archived memory is found by summary only, flagged, and not by default.
    const plain = await api.post('/v1/memory/recall_text', { ...id, query_text: 'deployment note release train rollout', limit: 10 });
    assert.ok(
      plain.body.results.every((r: any) => r.tier !== 'archive'),
      'recall leaves archived nodes out by default',
    );
    const withArchived = await api.post('/v1/memory/recall_text', { ...id, query_text: 'note 42', include_archived: true, limit: 50 });
    assert.ok(withArchived.body.results.some((r: any) => r.archived === true && r.tier === 'archive'));
  });

  it('is idempotent at one clock, never deletes, and respects dwell times across runs', async () => {
    const id = scope();
    clock.set('2026-03-01T00:00:00.000Z');
    await writeNodes(api, id, 120, 'm');
    const count0 = (await allNodes(api, id)).length;

    clock.advance(25 * DAY); // the score earns cold; demote moves one tier at a time
    const first = await runOperator(api, id);
    assert.equal(first.counts.moves.demoted, 120, JSON.stringify(first.counts));
    const afterFirst = await allNodes(api, id);
    assert.ok(
      afterFirst.every((n) => n.tier === 'warm'),
      'demote moves one tier colder',
    );
    assert.ok(afterFirst.every((n) => n.slots.semantic_forgetting_v1.action === 'demote'));

    const second = await runOperator(api, id);
    assert.equal(second.counts.moves.demoted, 0, 'a second run at the same clock demotes nothing');
    assert.equal(second.counts.moves.archived, 0);
    assert.equal(second.counts.outcomes.unchanged, 120);
    const afterSecond = await allNodes(api, id);
    assert.deepEqual(afterSecond, afterFirst, 'nothing rewritten');

    clock.advance(1 * DAY); // still inside the warm dwell (7 d): held
    const third = await runOperator(api, id);
    assert.equal(third.counts.moves.demoted, 0);
    assert.equal(third.counts.held.dwell, 120, JSON.stringify(third.counts));
    assert.ok((await allNodes(api, id)).every((n) => n.tier === 'warm'));

    clock.advance(7 * DAY); // past the dwell: cold
    const fourth = await runOperator(api, id);
    assert.equal(fourth.counts.moves.demoted, 120, JSON.stringify(fourth.counts));
    assert.ok((await allNodes(api, id)).every((n) => n.tier === 'cold'));

    clock.advance(27 * DAY); // idle 60 d, the archive band, past the cold dwell: archived
    const fifth = await runOperator(api, id);
    assert.equal(fifth.counts.moves.archived, 120, JSON.stringify(fifth.counts));
    assert.ok((await allNodes(api, id)).every((n) => n.tier === 'archive'));
    await runOperator(api, id);
    clock.advance(400 * DAY);
    await runOperator(api, id);
    const final = await allNodes(api, id);
    assert.equal(final.length, count0, 'the node count never changes: nothing is deleted');
    assert.ok(final.every((n) => n.tier === 'archive'));
  });

  it('dry_run decides without changing anything', async () => {
    const id = scope();
    clock.set('2026-05-01T00:00:00.000Z');
    await writeNodes(api, id, 40, 'd');
    clock.advance(100 * DAY);
    const before = await allNodes(api, id);
    const dry = await runOperator(api, id, { dry_run: true });
    assert.equal(dry.dry_run, true);
    assert.equal(dry.examined, 40);
    assert.equal(dry.counts.outcomes.planned, 40);
    assert.equal(dry.counts.moves.archived, 40, 'it says what it would do');
    assert.equal(dry.decisions.length, 40);
    assert.ok(dry.decisions.every((d: any) => d.action === 'archive' && d.outcome === 'planned'));
    assert.deepEqual(await allNodes(api, id), before, 'no node changed');
    const s = await summary(api, id);
    assert.equal(s.evaluated_count, 0);
    assert.equal(s.last_run, null, 'a dry run is not recorded');
  });

  it('never demotes or archives pinned nodes', async () => {
    const id = scope();
    clock.set('2026-07-01T00:00:00.000Z');
    await writeNodes(api, id, 10, 'p');
    const pin = await api.post('/v1/memory/nodes/pin', { ...id, client_ids: ['p-1', 'p-2', 'nope'] });
    assert.equal(pin.status, 200, JSON.stringify(pin.body));
    assert.deepEqual(
      pin.body.nodes.map((n: any) => [n.client_id, n.pinned]),
      [
        ['p-1', true],
        ['p-2', true],
      ],
    );
    assert.deepEqual(pin.body.not_found, ['nope']);
    clock.advance(200 * DAY);
    const run = await runOperator(api, id);
    assert.equal(run.counts.held.pinned, 2);
    const nodes = await allNodes(api, id);
    for (const n of nodes) {
      if (n.pinned) {
        assert.equal(n.tier, 'hot');
        assert.ok(n.text.length > 0);
        assert.equal(n.slots.semantic_forgetting_v1.action, 'retain');
        assert.ok(n.slots.semantic_forgetting_v1.rationale.some((r: string) => r.includes('pinned')));
      } else {
        assert.equal(n.tier, 'archive');
      }
    }
  });

  it('sends contested memory to review and lists it for the evolution review pack', async () => {
    const id = scope();
    clock.set('2026-08-01T00:00:00.000Z');
    await writeNodes(api, id, 5, 'r');
    for (const outcome of ['positive', 'negative', 'positive', 'negative']) {
      const res = await api.post('/v1/memory/nodes/activate', { ...id, client_ids: ['r-2'], outcome, activate: true });
      assert.equal(res.status, 200);
    }
    const run = await runOperator(api, id);
    const d = run.decisions.find((x: any) => x.client_id === 'r-2');
    assert.equal(d.action, 'review');
    assert.equal(d.lifecycle_state, 'contested');
    const res = await api.post('/v1/memory/lifecycle/summary', { ...id, review_limit: 10 });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.review_candidates.map((c: any) => [c.client_id, c.lifecycle_state]),
      [['r-2', 'contested']],
    );
    assert.ok(res.body.review_candidates[0].rationale.some((r: string) => r.includes('contested')));
    const s = res.body.forgetting_summary;
    assert.equal(s.semantic_action_counts.review, 1);
    assert.equal(s.lifecycle_state_counts.contested, 1);
    assert.match(s.recommended_action, /^Review 1 node/);
    assert.equal(await api.modules.lifecycle.services.isArchived({ tenant_id: id.tenant_id, scope: id.scope }, d.id), false);
  });

  it('is bounded by max_nodes and continues where it left off', async () => {
    const id = scope();
    clock.set('2026-09-01T00:00:00.000Z');
    await writeNodes(api, id, 30, 'b');
    clock.advance(100 * DAY);
    const first = await runOperator(api, id, { max_nodes: 12 });
    assert.equal(first.examined, 12);
    assert.equal(first.complete, false);
    assert.ok(first.cursor);
    const second = await runOperator(api, id, { max_nodes: 12 });
    assert.equal(second.examined, 12);
    const firstIds = new Set(first.decisions.map((d: any) => d.id));
    assert.ok(
      second.decisions.every((d: any) => !firstIds.has(d.id)),
      'the second run starts after the first',
    );
    const third = await runOperator(api, id, { max_nodes: 12 });
    // 6 left at the end, then round to the beginning (already decided, unchanged).
    assert.equal(third.examined, 12);
    assert.equal(third.complete, false);
    const nodes = await allNodes(api, id);
    assert.ok(
      nodes.every((n) => n.tier === 'archive'),
      'three bounded runs covered the scope',
    );
  });

  it('runs one at a time per scope: a second request waits for the first, then runs', async () => {
    const id = scope();
    clock.set('2026-10-01T00:00:00.000Z');
    await writeNodes(api, id, 60, 'c');
    clock.advance(100 * DAY);
    const [a, b] = await Promise.all([runOperator(api, id), runOperator(api, id)]);
    assert.notEqual(a.run_id, b.run_id);
    assert.equal(a.workflow_id, b.workflow_id, 'one workflow id per scope');
    // Whichever ran first archived everything; the other found every decision standing.
    assert.equal(a.counts.moves.archived + b.counts.moves.archived, 60);
    assert.equal(a.counts.outcomes.unchanged + b.counts.outcomes.unchanged, 60);
  });

  it('keeps scopes apart', async () => {
    await assertIsolated({
      what: 'lifecycle/run',
      seed: async (owner) => {
        clock.set('2026-11-01T00:00:00.000Z');
        await writeNodes(api, owner, 3, 'iso');
        clock.advance(100 * DAY);
      },
      sees: async (viewer) => {
        const run = await runOperator(api, viewer);
        return run.decisions.some((d: any) => d.client_id === 'iso-1');
      },
    });
  });

  it('rejects bad input with the envelope', async () => {
    const id = scope();
    assertError(await api.post('/v1/memory/lifecycle/run', { ...id, dry_run: 'yes' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/lifecycle/run', { ...id, max_nodes: 0 }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/lifecycle/run', { ...id, max_nodes: 1e9 }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/lifecycle/run', { tenant_id: 'bad tenant!', scope: 's' }), 400, 'invalid_request');
    const ok = await api.post('/v1/memory/lifecycle/run', { ...id, unknown_field: 1 });
    assert.equal(ok.status, 200, 'unknown fields are ignored');
    assert.equal(ok.body.examined, 0);
  });
});
