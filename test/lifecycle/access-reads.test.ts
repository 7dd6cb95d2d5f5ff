import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/model/clock';
import { accessCollection, accessKey } from '../../src/store/memory/access';
import { scopeRef } from '../../src/store/scope';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { DAY, runOperator, writeNodes } from './helpers';
import { pollFor } from '../helpers/wait';

/**
 * Lifecycle reads whose result does not depend on access statistics skip the access lookup
 * (`{ access: false }`): review candidates, rehydration candidates, node activation and pinning,
 * payload rehydration. They must still answer exactly what the nodes say. Archive rehydrate
 * writes a decision (retention score, basis) that counts access, so it keeps reading it.
 *
 * Access lookups are counted at the access collection itself (every `find` on it for this
 * test's scope), so the test does not depend on which store method a read goes through.
 */
describe('lifecycle reads and access statistics', () => {
  let api: TestApi;
  const clock = new ManualClock('2026-01-01T00:00:00.000Z');
  const lookups: string[][] = [];

  before(async () => {
    api = await startTestApi({ worker: true, clock });
    const db = api.db as unknown as { raw: (spec: { name: string }) => object };
    const raw = db.raw.bind(api.db);
    db.raw = (spec) => {
      const coll = raw(spec) as { find: (filter: unknown, ...rest: unknown[]) => unknown };
      if (spec.name !== accessCollection.name) return coll;
      return new Proxy(coll, {
        get(target, prop) {
          if (prop === 'find') {
            return (filter: { _id?: { $in?: string[] } }, ...rest: unknown[]) => {
              lookups.push(filter?._id?.$in ?? []);
              return target.find(filter, ...rest);
            };
          }
          const v = Reflect.get(target, prop, target);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    };
  });
  after(async () => api?.close());

  async function ok(path: string, body: unknown) {
    const res = await api.post(path, body);
    assert.equal(res.status, 200, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  it('candidates, activation, pinning and payloads are right without the access lookup; archive rehydrate counts access', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('ar') };
    const ref = scopeRef(id.tenant_id, id.scope);
    const ofScope = () => lookups.filter((keys) => keys.some((k) => k.startsWith(accessKey(ref, ''))));
    clock.set('2026-01-01T00:00:00.000Z');
    await writeNodes(api, id, 3, 'old');
    await ok('/v1/memory/write', { ...id, nodes: [{ client_id: 'contested', type: 'event', title: 'contested note', text: 'Rollback advice for the release train.' }] });
    await ok('/v1/memory/nodes/activate', { ...id, client_ids: ['contested'], outcome: 'positive', activate: false });
    await ok('/v1/memory/nodes/activate', { ...id, client_ids: ['contested'], outcome: 'negative', activate: false });
    const oldText = (await ok('/v1/memory/resolve', { ...id, client_id: 'old-0' })).node.text as string;

    // A hundred days on: the old notes are archived, the contested one goes to review.
    clock.advance(100 * DAY);
    await runOperator(api, id);

    // Then every node is recalled a few times: counted access exists for all of them.
    const resolved = async (cid: string) => (await ok('/v1/memory/resolve', { ...id, client_id: cid })).node;
    const ids = await Promise.all(['old-0', 'old-1', 'old-2', 'contested'].map(async (c) => (await resolved(c)).id as string));
    await api.modules.memory.services.nodes(ref).touch(ids, clock.now(), 4);
    const contested = await resolved('contested');
    assert.equal(contested.access.count, 4, 'resolve shows the counted access');
    const sem = contested.slots.semantic_forgetting_v1;
    assert.equal(sem.action, 'review');

    const old0 = await resolved('old-0');

    const services = api.modules.lifecycle.services;
    lookups.length = 0;
    const review = await services.reviewCandidates(ref);
    assert.deepEqual(review, [
      {
        id: contested.id,
        client_id: 'contested',
        type: contested.type,
        kind: contested.kind,
        tier: contested.tier,
        title: 'contested note',
        summary: contested.summary,
        lifecycle_state: 'contested',
        retention_score: sem.retention_score,
        rationale: sem.rationale,
        decided_at: sem.decided_at,
      },
    ]);

    const listed = await services.rehydrationCandidates(ref, '');
    assert.deepEqual(listed.map((c) => c.client_id).sort(), ['old-0', 'old-1', 'old-2']);
    const c0 = listed.find((c) => c.client_id === 'old-0')!;
    assert.equal(c0.id, old0.id);
    assert.equal(c0.summary, old0.summary);
    assert.equal(c0.archived_at, old0.slots.archive_relocation_v1.relocated_at);
    assert.equal(c0.payload_bytes, Buffer.byteLength(oldText, 'utf8'));
    const searched = await services.rehydrationCandidates(ref, 'note 1 deployment', { limit: 3 });
    assert.ok(
      searched.some((c) => c.client_id === 'old-1'),
      JSON.stringify(searched),
    );
    for (const c of searched) assert.equal(c.score > 0, true);

    const payload = await ok('/v1/memory/anchor/payload/rehydrate', { ...id, client_id: 'old-0', mode: 'full' });
    assert.equal(payload.payload.text, oldText);
    assert.equal(payload.node.id, old0.id);

    const pinned = await ok('/v1/memory/nodes/pin', { ...id, client_ids: ['contested', 'nope'], pinned: true });
    assert.deepEqual(pinned.nodes, [{ id: contested.id, client_id: 'contested', tier: contested.tier, pinned: true }]);
    assert.deepEqual(pinned.not_found, ['nope']);

    const activated = await ok('/v1/memory/nodes/activate', { ...id, ids: [contested.id], activate: true });
    assert.equal(activated.nodes.length, 1);
    assert.equal(activated.nodes[0].feedback.positive, 1);
    assert.equal(activated.nodes[0].feedback.negative, 1);
    assert.equal(activated.nodes[0].activation.count, 1);
    assert.deepEqual(activated.decisions, [], 'an activation without an outcome decides nothing');

    assert.deepEqual(ofScope(), [], 'none of these reads looked up access statistics');
    const after = await resolved('contested');
    assert.equal(after.access.count, 4, 'and access statistics are untouched by them');

    // With an outcome, feedback is decided before the answer, and a decision counts access as the operator's do.
    lookups.length = 0;
    const judged = await ok('/v1/memory/nodes/activate', { ...id, ids: [contested.id], outcome: 'positive', activate: false });
    assert.equal(judged.nodes[0].feedback.positive, 2);
    assert.deepEqual(
      judged.decisions.map((d: any) => d.id),
      [contested.id],
    );
    assert.ok(ofScope().length > 0, 'the decision read access statistics');
    assert.equal((await resolved('contested')).access.count, 4, 'and left them as they were');

    // The candidate search above is a recall, and a recall counts a use of each hit: that count is
    // flushed in the background, so wait until old-0 shows it before rehydrating (else the basis
    // below would read 4 or 5 depending on when the flush lands).
    const uses = 4 + (searched.some((c) => c.client_id === 'old-0') ? 1 : 0);
    await pollFor(`old-0 to show ${uses} uses`, async () => (await resolved('old-0')).access.count === uses);

    // Archive rehydrate decides with access: the basis it records counts those uses.
    const back = await ok('/v1/memory/archive/rehydrate', { ...id, client_ids: ['old-0'], target_tier: 'warm' });
    assert.equal(back.nodes[0].payload_restored, true);
    assert.ok(ofScope().length > 0, 'archive rehydrate reads access statistics');
    const restored = await resolved('old-0');
    assert.equal(restored.text, oldText);
    assert.equal(restored.slots.semantic_forgetting_v1.basis.split('|')[6], String(uses), restored.slots.semantic_forgetting_v1.basis);
  });
});
