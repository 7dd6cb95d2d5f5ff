import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allCollections } from '../../src/store/collections';
import { Database } from '../../src/store/database';
import { AccessStore } from '../../src/store/memory/access';
import { NodeStore } from '../../src/store/memory/nodes';
import { scopeRef } from '../../src/store/scope';
import { testServices, uniqueName } from '../helpers/app';

/**
 * Recall loads its hits and records access by `_id` alone (the local server serialises a
 * collection's queries, and a tenant/scope filter beside `_id $in` is far slower there); the
 * tenant+scope check moved into the store methods, so they must still never cross a scope.
 */
describe('node store: loads and access updates by id stay inside their scope', () => {
  let db: Database;
  let name = '';
  before(async () => {
    const { mongoUri } = await testServices();
    name = uniqueName('byid').replace(/-/g, '_');
    db = await Database.connect(mongoUri, name);
    await db.ensureIndexes(allCollections);
  });
  after(async () => {
    await db?.db.dropDatabase().catch(() => {});
    await db?.close();
  });

  it('getMany returns only the scope’s nodes, in the order asked; touch updates only them', async () => {
    const store = new NodeStore(db);
    const a = store.in(scopeRef('t1', 'a'));
    const b = store.in(scopeRef('t1', 'b'));
    const other = store.in(scopeRef('t2', 'a'));
    const now = new Date('2026-01-01T00:00:00.000Z');
    const content = (text: string) => ({ type: 'event' as const, text, summary: text, actor: 'test' });
    const [a1, a2] = await a.insert([content('a one'), content('a two')], now);
    const [b1] = await b.insert([content('b one')], now);
    const [o1] = await other.insert([content('other one')], now);
    const ids = [a2!.id, b1!.id, o1!.id, a1!.id, 'missing'];

    assert.deepEqual(
      (await a.getMany(ids)).map((n) => n.id),
      [a2!.id, a1!.id],
    );
    assert.deepEqual(
      (await b.getMany(ids)).map((n) => n.id),
      [b1!.id],
    );
    assert.deepEqual(await a.getMany([]), []);

    const later = new Date('2026-01-02T00:00:00.000Z');
    await a.touch(ids, later, 3);
    assert.equal((await a.get(a1!.id))?.access.count, 3);
    assert.equal((await a.get(a2!.id))?.access.last_at, later.toISOString());
    assert.equal((await b.get(b1!.id))?.access.count, 0, 'another scope of the tenant is untouched');
    assert.equal((await other.get(o1!.id))?.access.count, 0, 'another tenant is untouched');
  });

  it('access is counted apart from the node: no node rewrite, added to the stored access, exact across processes', async () => {
    const ref = scopeRef('t3', uniqueName('acc'));
    const one = new NodeStore(db).in(ref);
    const two = new NodeStore(db).in(ref); // a second process on the same database
    const now = new Date('2026-01-01T00:00:00.000Z');
    const [n] = await one.insert([{ type: 'event' as const, text: 'counted', summary: 'counted', actor: 'test' }], now);
    const before = (await one.get(n!.id, { access: false }))!;

    // Both "processes" count the same never-counted node at once: one creates its document, the other's
    // insert loses the race and is counted as a bump instead.
    const t1 = new Date('2026-01-02T00:00:00.000Z');
    const t2 = new Date('2026-01-03T00:00:00.000Z');
    await Promise.all([one.touch([n!.id], t2, 2), two.touch([n!.id], t1, 3), one.touch([n!.id], t1, 1)]);
    const seen = (await two.get(n!.id))!;
    assert.deepEqual(seen.access, { count: 6, last_at: t2.toISOString() }, 'every use counted once; last_at is the latest, whatever the order');
    const raw = (await one.get(n!.id, { access: false }))!;
    assert.equal(raw.seq, before.seq, 'counting access gives the node no new seq');
    assert.equal(raw.updated_at, before.updated_at);
    assert.deepEqual(raw.access, { count: 0, last_at: null }, 'the node document itself is not rewritten');
    assert.deepEqual((await one.find({}, { limit: 10 }))[0]?.access, seen.access, 'find shows the same');
    assert.deepEqual((await one.getMany([n!.id]))[0]?.access, seen.access);

    // A node stored with access of its own (an imported pack's) keeps it, and the counted uses add to it.
    const counted = new AccessStore(db);
    const imported = { id: n!.id, access: { count: 5, last_at: '2026-02-01T00:00:00.000Z' } };
    assert.deepEqual((await counted.withAccess(ref, [imported]))[0]!.access, { count: 11, last_at: '2026-02-01T00:00:00.000Z' });
    assert.deepEqual((await counted.withAccess(scopeRef('t3', 'elsewhere'), [imported]))[0]!.access, imported.access, 'counts are per scope');
  });
});
