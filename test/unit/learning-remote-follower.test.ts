import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RemoteFollower } from '../../src/domain/learning/remote';
import type { NodeStore, SeqRef, StoredNode } from '../../src/store/memory/nodes';

/**
 * Learning's follower of other processes' writes (remote.ts): it reads the change feed as
 * {id, seq} pairs and loads only what this process did not write itself. Before, one gap among
 * this process's own seqs (a number its sequence allocator gave up) made the next learning read
 * load every node written since, whole: the first planning request after 100 000 writes took 26 s.
 */

function fakeStore(nodes: { id: string; seq: number }[]) {
  const loads: string[][] = [];
  let rangeReads = 0;
  const refs = (xs: typeof nodes): SeqRef[] => xs.map((n) => ({ id: n.id, seq: n.seq, tenant_id: 't', scope: 's' }));
  const store = {
    seqsSince: async (after: number, limit: number) => {
      rangeReads += 1;
      return refs(nodes.filter((n) => n.seq > after).slice(0, limit));
    },
    seqsAt: async (seqs: number[]) => refs(nodes.filter((n) => seqs.includes(n.seq))),
    currentSeq: async () => Math.max(0, ...nodes.map((n) => n.seq)),
    byIds: async (ids: string[]) => {
      loads.push(ids);
      return nodes.filter((n) => ids.includes(n.id)).map((n) => ({ ...n, tenant_id: 't', scope: 's' }) as unknown as StoredNode);
    },
  } as unknown as NodeStore;
  return { store, loads, rangeReads: () => rangeReads };
}

describe('learning: following other processes writes', () => {
  it('passes its own writes and the numbers it gave up without loading anything', async () => {
    // 2 000 local writes; numbers 700..763 were reserved and given up (never written).
    const nodes = Array.from({ length: 2100 }, (_, i) => ({ id: `n${i + 1}`, seq: i + 1 })).filter((n) => n.seq < 700 || n.seq > 763);
    const { store, loads, rangeReads } = fakeStore(nodes);
    const handled: StoredNode[] = [];
    const f = new RemoteFollower(
      store,
      async (ns) => void handled.push(...ns),
      (err) => assert.fail(err),
    );
    f.start(0);
    for (const n of nodes) f.local(n.seq, n.id);
    f.abandoned(700, 763);
    await f.sync();
    assert.deepEqual(loads, [], 'nothing loaded');
    assert.equal(handled.length, 0);
    assert.equal(f.watermark, 2100);
    assert.equal(rangeReads(), 0, 'the head probe showed nothing new: no range query either');
  });

  it('loads only the other process’s nodes among its own, in seq order', async () => {
    const nodes = Array.from({ length: 3000 }, (_, i) => ({ id: `n${i + 1}`, seq: i + 1 }));
    const remote = new Set([5, 1500, 2999]);
    const { store, loads } = fakeStore(nodes);
    const handled: string[] = [];
    const f = new RemoteFollower(
      store,
      async (ns) => void handled.push(...ns.map((n) => n.id)),
      (err) => assert.fail(err),
    );
    f.start(0);
    for (const n of nodes) if (!remote.has(n.seq)) f.local(n.seq, n.id);
    await f.sync();
    assert.deepEqual(loads.flat().sort(), ['n1500', 'n2999', 'n5']);
    assert.deepEqual(handled, ['n5', 'n1500', 'n2999']);
    assert.equal(f.loaded, 3);
    assert.equal(f.watermark, 3000);
  });
});
