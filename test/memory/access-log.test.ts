import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allCollections } from '../../src/store/collections';
import { Database } from '../../src/store/database';
import { AccessStore, CLAIM_LEASE_MS, LOG_CHUNK, accessLogCollection } from '../../src/store/memory/access';
import { scopeRef, type ScopeRef } from '../../src/store/scope';
import { testServices, uniqueName } from '../helpers/app';

/**
 * Access counts are logged (one inserted document per LOG_CHUNK nodes) and folded into per-node
 * documents later. Reads must be exact at every point: before a fold, half-way through one, after
 * it, with two processes folding at once, and after a fold that died mid-document and was taken
 * over once its claim expired.
 */
describe('access log: reads and folds are exact', () => {
  let db: Database;
  let name = '';
  before(async () => {
    const { mongoUri } = await testServices();
    name = uniqueName('acclog').replace(/-/g, '_');
    db = await Database.connect(mongoUri, name);
    await db.ensureIndexes(allCollections);
  });
  after(async () => {
    await db?.db.dropDatabase().catch(() => {});
    await db?.close();
  });

  const iso = (d: string) => new Date(d).toISOString();
  /** What each node's access must read: the sum of everything logged for it, the latest time. */
  const expected = (writes: { ids: string[]; n: number[]; at: string }[]) => {
    const out = new Map<string, { count: number; last_at: string }>();
    for (const w of writes) {
      w.ids.forEach((id, i) => {
        const had = out.get(id);
        out.set(id, { count: (had?.count ?? 0) + w.n[i]!, last_at: had && had.last_at > iso(w.at) ? had.last_at : iso(w.at) });
      });
    }
    return out;
  };
  const read = (store: AccessStore, ref: ScopeRef, ids: string[]) => store.of(ref, ids);
  const logLeft = (ref: ScopeRef) => db.raw(accessLogCollection).countDocuments({ tenant_id: ref.tenant_id, scope: ref.scope });

  it('reads add the log to the folded counts, before, during and after a fold', async () => {
    const ref = scopeRef('t1', uniqueName('rd'));
    const store = new AccessStore(db);
    const ids = Array.from({ length: 450 }, (_, i) => `node-${i}`); // three log documents, and one for the second write
    const writes = [
      { ids, n: ids.map(() => 1), at: '2026-01-01T00:00:00Z' },
      { ids: ids.slice(0, 10), n: ids.slice(0, 10).map((_, i) => i + 2), at: '2026-01-02T00:00:00Z' },
    ];
    for (const w of writes) await store.add(ref, w.ids, w.n, new Date(w.at));
    assert.equal(await logLeft(ref), 4, `${LOG_CHUNK} nodes per log document`);
    const want = expected(writes);
    assert.deepEqual(await read(store, ref, ids), want, 'before any fold: all in the log');

    // Half-way: one log document claimed and applied to a part of its nodes, not yet deleted.
    const doc = (await store.claimNext(ref))!;
    await store.apply({ ...doc, ids: doc.ids.slice(0, 7), n: doc.n.slice(0, 7) });
    assert.deepEqual(await read(store, ref, ids), want, 'mid-fold: nothing counted twice, nothing missing');

    // The rest (this store's own claim is live, so it is taken over only once the lease is out).
    const later = new AccessStore(db, () => new Date(Date.now() + CLAIM_LEASE_MS + 1000));
    const r = await later.fold({ ref });
    assert.equal(r.documents, 4);
    assert.equal(r.complete, true);
    assert.equal(await logLeft(ref), 0);
    assert.deepEqual(await read(store, ref, ids), want, 'after the fold: all in the per-node documents');

    // New counts after a fold add to the folded ones.
    await store.add(ref, ['node-0', 'node-449'], [5, 1], new Date('2026-01-03T00:00:00Z'));
    writes.push({ ids: ['node-0', 'node-449'], n: [5, 1], at: '2026-01-03T00:00:00Z' });
    assert.deepEqual(await read(store, ref, ids), expected(writes));
  });

  it('a fold that runs between a read’s two queries changes nothing the read returns', async () => {
    const ref = scopeRef('t1', uniqueName('between'));
    const ids = Array.from({ length: 30 }, (_, i) => `b${i}`);
    const writes = [
      { ids, n: ids.map(() => 1), at: '2026-01-01T00:00:00Z' },
      { ids: ids.slice(0, 5), n: ids.slice(0, 5).map(() => 4), at: '2026-01-02T00:00:00Z' },
    ];
    const plain = new AccessStore(db);
    for (const w of writes) await plain.add(ref, w.ids, w.n, new Date(w.at));
    // A read through a database whose second `find` (whichever collection) first waits for a whole
    // fold by another process: the fold lands between the read's two queries.
    let finds = 0;
    const names = new Set(['memory_node_access', accessLogCollection.name]);
    const wrapped = {
      raw: (spec: { name: string }) => {
        const coll = db.raw(spec as never) as unknown as { find: (...args: unknown[]) => { toArray(): Promise<unknown[]> } };
        if (!names.has(spec.name)) return coll;
        return new Proxy(coll, {
          get(target, prop) {
            if (prop !== 'find') {
              const v = Reflect.get(target, prop, target);
              return typeof v === 'function' ? v.bind(target) : v;
            }
            return (...args: unknown[]) => ({
              toArray: async () => {
                finds += 1;
                if (finds === 2) await new AccessStore(db).fold({ ref });
                return target.find(...args).toArray();
              },
            });
          },
        });
      },
    } as unknown as Database;
    const got = await new AccessStore(wrapped).of(ref, ids);
    assert.equal(finds, 2);
    assert.equal(await logLeft(ref), 0, 'the fold did run in between');
    assert.deepEqual(got, expected(writes));
  });

  it('two processes folding the same log at once count every entry once', async () => {
    const ref = scopeRef('t1', uniqueName('two'));
    const writer = new AccessStore(db);
    const ids = Array.from({ length: 120 }, (_, i) => `n${i}`);
    const writes: { ids: string[]; n: number[]; at: string }[] = [];
    for (let w = 0; w < 12; w++) {
      // overlapping sets, so both folders create and update the same nodes' documents
      const part = ids.filter((_, i) => (i + w) % 3 !== 0);
      const at = `2026-01-01T00:00:${String(w).padStart(2, '0')}Z`;
      writes.push({ ids: part, n: part.map((_, i) => 1 + ((i + w) % 4)), at });
    }
    await Promise.all(writes.map((w) => writer.add(ref, w.ids, w.n, new Date(w.at))));
    const one = new AccessStore(db);
    const two = new AccessStore(db);
    const [a, b] = await Promise.all([one.fold({ ref }), two.fold({ ref })]);
    assert.equal(a.documents + b.documents, 12, 'each log document folded by exactly one of them');
    assert.equal(await logLeft(ref), 0);
    assert.deepEqual(await read(writer, ref, ids), expected(writes));
  });

  it('a fold that died mid-document is taken over after its lease, without counting twice', async () => {
    const ref = scopeRef('t1', uniqueName('crash'));
    const store = new AccessStore(db);
    const ids = Array.from({ length: 50 }, (_, i) => `c${i}`);
    const writes = [
      { ids, n: ids.map(() => 2), at: '2026-01-01T00:00:00Z' },
      { ids: ids.slice(10, 20), n: ids.slice(10, 20).map(() => 1), at: '2026-01-01T00:01:00Z' },
    ];
    for (const w of writes) await store.add(ref, w.ids, w.n, new Date(w.at));
    // The "dead" process: claims the oldest document, applies it to 30 of its 50 nodes, stops.
    const dead = new AccessStore(db);
    const claimed = (await dead.claimNext(ref))!;
    await dead.apply({ ...claimed, ids: claimed.ids.slice(0, 30), n: claimed.n.slice(0, 30) });

    const now = Date.now();
    const soon = new AccessStore(db, () => new Date(now));
    const early = await soon.fold({ ref });
    assert.equal(early.documents, 1, 'within the lease only the unclaimed document is folded');
    assert.equal(await logLeft(ref), 1, 'the claimed one is left to its holder');
    assert.deepEqual(await read(store, ref, ids), expected(writes));

    const takeover = new AccessStore(db, () => new Date(now + CLAIM_LEASE_MS + 1));
    const late = await takeover.fold({ ref });
    assert.equal(late.documents, 1);
    assert.equal(await logLeft(ref), 0);
    assert.deepEqual(await read(store, ref, ids), expected(writes), 'the 30 nodes it had reached are not counted again');
  });

  it('a fold stops when asked and the next one goes on; scopes never see or fold each other’s counts', async () => {
    const ref = scopeRef('t2', uniqueName('iso'));
    const other = scopeRef('t2', uniqueName('iso'));
    const otherTenant = scopeRef('t3', ref.scope);
    const store = new AccessStore(db);
    const ids = Array.from({ length: 3 * LOG_CHUNK }, (_, i) => `s${i}`);
    await store.add(
      ref,
      ids,
      ids.map(() => 1),
      new Date('2026-01-01T00:00:00Z'),
    );
    await store.add(other, ['s0'], [7], new Date('2026-01-01T00:00:00Z'));
    await store.add(otherTenant, ['s0'], [9], new Date('2026-01-01T00:00:00Z'));

    let asked = 0;
    const partial = await store.fold({ ref, stop: () => ++asked > 1 });
    assert.deepEqual(partial, { documents: 1, counts: LOG_CHUNK, complete: false });
    assert.equal((await read(store, ref, ['s0', `s${ids.length - 1}`])).get('s0')?.count, 1);
    const rest = await store.fold({ ref });
    assert.equal(rest.documents, 2);
    assert.equal(await logLeft(ref), 0);
    assert.equal(await logLeft(other), 1, 'another scope’s log is not folded by a scope fold');
    assert.equal(await logLeft(otherTenant), 1);
    assert.equal((await read(store, ref, ['s0'])).get('s0')?.count, 1);
    assert.equal((await read(store, other, ['s0'])).get('s0')?.count, 7);
    assert.equal((await read(store, otherTenant, ['s0'])).get('s0')?.count, 9);
    assert.equal((await read(store, scopeRef('t9', 'none'), ['s0'])).size, 0);

    // A fold of every scope takes the others too; their counts stay theirs.
    await store.fold();
    assert.equal(await logLeft(other), 0);
    assert.equal(await logLeft(otherTenant), 0);
    assert.equal((await read(store, other, ['s0'])).get('s0')?.count, 7);
    assert.equal((await read(store, otherTenant, ['s0'])).get('s0')?.count, 9);
    assert.equal((await read(store, ref, ['s0'])).get('s0')?.count, 1);
  });

  it('rejects ids and counts of different lengths; an id given twice is counted twice, before and after a fold', async () => {
    await assert.rejects(new AccessStore(db).add(scopeRef('t1', 'x'), ['a', 'b'], [1], new Date()), /2 ids but 1 counts/);
    const ref = scopeRef('t1', uniqueName('dup'));
    const store = new AccessStore(db);
    await store.add(ref, ['a', 'b', 'a'], [1, 1, 2], new Date('2026-01-01T00:00:00Z'));
    assert.equal((await read(store, ref, ['a'])).get('a')?.count, 3);
    await store.fold({ ref });
    assert.equal((await read(store, ref, ['a'])).get('a')?.count, 3);
    assert.equal((await read(store, ref, ['b'])).get('b')?.count, 1);
  });
});
