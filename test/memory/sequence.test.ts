import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database } from '../../src/store/database';
import { SeqAllocator, allocateSeq } from '../../src/store/memory/sequence';
import { testServices, uniqueName } from '../helpers/app';

/**
 * The write sequence must hand out each number once, across connections and processes: catch-up
 * treats a seq as naming one change. (The local MongoDB-compatible server may return the document
 * of a later update from findOneAndUpdate under concurrency; allocateSeq must notice.)
 */
describe('write sequence allocation', () => {
  const dbs: Database[] = [];
  let name = '';
  before(async () => {
    const { mongoUri } = await testServices();
    name = uniqueName('seq').replace(/-/g, '_');
    dbs.push(await Database.connect(mongoUri, name), await Database.connect(mongoUri, name));
  });
  after(async () => {
    await dbs[0]?.db.dropDatabase().catch(() => {});
    for (const d of dbs) await d.close();
  });

  it('never hands out a number twice, even with concurrent callers on two connections', async () => {
    const seen: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, w) => {
        for (let i = 0; i < 40; i += 1) {
          const n = 1 + (i % 3);
          const first = await allocateSeq(dbs[w % 2]!, n, 'test');
          for (let k = 0; k < n; k += 1) seen.push(first + k);
        }
      }),
    );
    assert.equal(new Set(seen).size, seen.length, 'every allocated number is unique');
  });

  it('the per-process allocator coalesces concurrent requests and keeps them unique', async () => {
    const alloc = new SeqAllocator(dbs[0]!, 'coalesced');
    const firsts = await Promise.all(Array.from({ length: 50 }, () => alloc.next(2)));
    const all = firsts.flatMap((f) => [f, f + 1]);
    assert.equal(new Set(all).size, 100);
  });
});

describe('write sequence reservation', () => {
  let db: Database;
  before(async () => {
    const { mongoUri } = await testServices();
    db = await Database.connect(mongoUri, uniqueName('seqres').replace(/-/g, '_'));
  });
  after(async () => {
    await db.db.dropDatabase().catch(() => {});
    await db.close();
  });

  it('a lone request reserves nothing; sustained demand is served from a reserve, still unique', async () => {
    const alloc = new SeqAllocator(db, 'reserve');
    const abandoned: number[] = [];
    alloc.onAbandoned = (a, b) => {
      for (let s = a; s <= b; s += 1) abandoned.push(s);
    };
    const one = await alloc.next(1);
    const counter = async () => (await db.db.collection<{ _id: string; value: number }>('counters').findOne({ _id: 'reserve' }))!.value;
    assert.equal(await counter(), one, 'no numbers reserved ahead of a lone request');
    const seen = [one];
    for (let round = 0; round < 10; round += 1) {
      const firsts = await Promise.all(Array.from({ length: 8 }, () => alloc.next(1)));
      seen.push(...firsts);
    }
    assert.equal(new Set(seen).size, seen.length, 'every number handed out once');
    const top = await counter();
    assert.ok(top - one < seen.length - 1 + 64 + 1, 'at most one reserve outstanding');
    // The reserve expires: what was not handed out is reported, and never handed out later.
    await new Promise((r) => setTimeout(r, 700));
    const later = await alloc.next(1);
    assert.ok(later > top, 'an expired reserve is not used');
    for (const s of abandoned) assert.ok(!seen.includes(s), `abandoned ${s} was never handed out`);
    assert.equal(seen.length + abandoned.length, top - one + 1, 'every number up to the head was handed out or reported abandoned');
  });
});
