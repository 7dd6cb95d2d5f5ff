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
