import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CatchUp, type ChangeFeed } from '../../src/domain/memory/catch-up';

/** A fake store: documents keyed by id, each with its current seq; a shared counter hands out seqs. */
class FakeStore implements ChangeFeed<{ id: string; seq: number; v: string }> {
  docs = new Map<string, { id: string; seq: number; v: string }>();
  counter = 0;
  queries = { after: 0, at: 0, head: 0 };
  /** The sequence head (highest seq allocated), when this fake offers the probe. */
  head?: () => Promise<number>;
  constructor(withHead = false) {
    if (withHead)
      this.head = async () => {
        this.queries.head += 1;
        return this.counter;
      };
  }
  allocate(): number {
    this.counter += 1;
    return this.counter;
  }
  commit(id: string, seq: number, v: string): void {
    this.docs.set(id, { id, seq, v });
  }
  async after(afterSeq: number, limit: number) {
    this.queries.after += 1;
    return [...this.docs.values()]
      .filter((d) => d.seq > afterSeq)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, limit)
      .map((d) => ({ ...d }));
  }
  async at(seqs: number[]) {
    this.queries.at += 1;
    const want = new Set(seqs);
    return [...this.docs.values()].filter((d) => want.has(d.seq)).map((d) => ({ ...d }));
  }
}

function baseSetup(opts: { ttl?: number; maxHoles?: number; batch?: number; head?: boolean } = {}) {
  const store = new FakeStore(opts.head ?? false);
  const index = new Map<string, { seq: number; v: string }>();
  let clock = 1_000;
  const cu = new CatchUp(
    store,
    (items) => {
      for (const d of items) index.set(d.id, { seq: d.seq, v: d.v });
    },
    () => 0,
    { holeTtlMs: opts.ttl ?? 30_000, maxHoles: opts.maxHoles ?? 1000, batch: opts.batch ?? 1000, now: () => clock },
  );
  return { store, index, cu, advance: (ms: number) => (clock += ms) };
}

/** The suite runs twice: with the range query on every pass, and with the head probe in front of it. */
for (const head of [false, true])
  describe(`catch-up of the recall index from the write sequence${head ? ' (head probe)' : ''}`, () => {
    const setup = (opts: { ttl?: number; maxHoles?: number; batch?: number } = {}) => baseSetup({ ...opts, head });
    it('applies changes in seq order and moves the watermark', async () => {
      const { store, index, cu } = setup();
      store.commit('a', store.allocate(), 'a1');
      store.commit('b', store.allocate(), 'b1');
      await cu.sync();
      assert.deepEqual([...index.keys()].sort(), ['a', 'b']);
      assert.equal(cu.watermark, 2);
      assert.equal(cu.stats.holes, 0);
    });

    it('out-of-order commit: seq S committing after S+1 was seen is still applied (hole re-read)', async () => {
      const { store, index, cu } = setup();
      const s1 = store.allocate(); // writer A takes 1 ...
      const s2 = store.allocate(); // ... writer B takes 2 and commits first
      store.commit('b', s2, 'b1');
      await cu.sync();
      assert.equal(cu.watermark, 2, 'watermark passed the unseen seq 1');
      assert.deepEqual(cu.holeSeqs(), [1], 'seq 1 is remembered as a hole');
      assert.equal(index.has('a'), false);
      store.commit('a', s1, 'a1'); // A's commit lands late
      await cu.sync();
      assert.equal(index.get('a')?.v, 'a1', 'the late commit is found through the hole');
      assert.deepEqual(cu.holeSeqs(), []);
      assert.equal(cu.stats.holes_found, 1);
    });

    it('an update that committed late with a lower seq still replaces what was seen', async () => {
      const { store, index, cu } = setup();
      store.commit('x', store.allocate(), 'x1'); // seq 1
      await cu.sync();
      const u1 = store.allocate(); // 2: update U1 allocated first
      const u2 = store.allocate(); // 3: update U2 commits first
      store.commit('x', u2, 'x-after-U2');
      await cu.sync();
      assert.equal(index.get('x')?.v, 'x-after-U2');
      store.commit('x', u1, 'x-after-U1-and-U2'); // U1 commits last: the doc's seq goes back to 2
      await cu.sync();
      assert.equal(index.get('x')?.v, 'x-after-U1-and-U2');
    });

    it('a seq overwritten before anyone saw it never appears: its hole expires', async () => {
      const { store, cu, advance } = setup({ ttl: 30_000 });
      store.commit('x', store.allocate(), 'x1'); // 1
      store.commit('x', store.allocate(), 'x2'); // 2 overwrites 1 before the first catch-up
      store.commit('y', store.allocate(), 'y1'); // 3
      await cu.sync();
      assert.deepEqual(cu.holeSeqs(), [1]);
      advance(10_000);
      await cu.sync();
      assert.deepEqual(cu.holeSeqs(), [1], 'still watched within the TTL');
      advance(25_000);
      await cu.sync();
      assert.deepEqual(cu.holeSeqs(), [], 'given up after the TTL');
      assert.equal(cu.stats.holes_expired, 1);
    });

    it('caps the hole set, dropping the oldest first', async () => {
      const { store, cu } = setup({ maxHoles: 3 });
      for (let i = 0; i < 10; i += 1) store.allocate(); // 1..10 never commit
      store.commit('z', store.allocate(), 'z'); // 11
      await cu.sync();
      assert.deepEqual(cu.holeSeqs(), [8, 9, 10]);
    });

    it('reads several batches when far behind', async () => {
      const { store, index, cu } = setup({ batch: 2 });
      for (let i = 0; i < 7; i += 1) store.commit(`n${i}`, store.allocate(), 'v');
      await cu.sync();
      assert.equal(index.size, 7);
      assert.equal(cu.watermark, 7);
    });

    it('a read arriving during a pass waits for the next pass, which sees its write', async () => {
      const store = new FakeStore(head);
      const index = new Map<string, string>();
      let release!: () => void;
      let gate: Promise<void> | null = new Promise<void>((r) => (release = r));
      const slow: ChangeFeed<{ id: string; seq: number; v: string }> = {
        after: async (s, l) => {
          const result = await store.after(s, l); // the query is "issued" now …
          if (gate) await gate; // … and answers late
          return result;
        },
        at: (s) => store.at(s),
        ...(store.head ? { head: store.head } : {}),
      };
      const cu = new CatchUp(slow, (items) => items.forEach((d) => index.set(d.id, d.v)));
      const first = cu.sync(); // issued before the write below
      store.commit('late', store.allocate(), 'w');
      const second = cu.sync(); // must not be satisfied by the first pass
      gate = null;
      release();
      await first;
      await second;
      assert.equal(index.get('late'), 'w');
    });

    it("passes this process's own seqs without querying for them", async () => {
      const { store, index, cu } = setup();
      for (let i = 0; i < 5; i += 1) {
        const seq = store.allocate();
        store.commit(`local${i}`, seq, 'v');
        cu.noteLocal(seq); // written and applied by this process
      }
      await cu.sync();
      assert.equal(cu.watermark, 5);
      assert.equal(index.size, 0, 'nothing was loaded: the index has them already');
      // A remote write after a local one is still found, and the local one below it is no hole.
      const local = store.allocate();
      store.commit('mine', local, 'v');
      cu.noteLocal(local);
      const remote = store.allocate();
      store.commit('theirs', remote, 'v');
      await cu.sync();
      assert.equal(index.get('theirs')?.v, 'v');
      assert.equal(index.has('mine'), false);
      assert.deepEqual(cu.holeSeqs(), []);
    });

    it('a result that raced with a local write is re-read on the next pass', async () => {
      const store = new FakeStore(head);
      const index = new Map<string, string>();
      let racing = true;
      const cu = new CatchUp(store, (items) => {
        const again: number[] = [];
        for (const d of items) {
          if (racing)
            again.push(d.seq); // the index refused it: a local write came after the query
          else index.set(d.id, d.v);
        }
        return again;
      });
      store.commit('x', store.allocate(), 'remote');
      await cu.sync();
      assert.equal(index.has('x'), false);
      assert.deepEqual(cu.holeSeqs(), [1]);
      racing = false;
      await cu.sync();
      assert.equal(index.get('x'), 'remote');
    });

    it('init() turns recent unseen seqs into holes', async () => {
      const { store, index, cu } = setup();
      cu.init(5, [4]);
      store.commit('four', 4, 'v');
      await cu.sync();
      assert.equal(index.get('four')?.v, 'v');
      assert.equal(cu.watermark, 5);
    });
    if (head) {
      it('head probe: no range query while the head is at the watermark', async () => {
        const { store, cu } = setup();
        store.commit('a', store.allocate(), 'a1');
        await cu.sync();
        const after = store.queries.after;
        await cu.sync();
        await cu.sync();
        assert.equal(store.queries.after, after, 'nothing new: only the head was read');
        assert.ok(store.queries.head >= 3);
      });

      it('head probe: a seq allocated but not yet committed is found once it commits', async () => {
        const { store, index, cu } = setup();
        const s = store.allocate(); // the head moves before the write lands
        await cu.sync();
        assert.equal(index.has('slow'), false);
        store.commit('slow', s, 'v');
        await cu.sync();
        assert.equal(index.get('slow')?.v, 'v');
      });

      it('head probe: a head below the watermark (counter reset) falls back to the range query', async () => {
        const { store, index, cu } = setup();
        store.commit('a', store.allocate(), 'a1');
        store.commit('b', store.allocate(), 'b1');
        await cu.sync();
        store.counter = 0; // e.g. a restored database without its counters
        store.commit('c', 3, 'c1');
        await cu.sync();
        assert.equal(index.get('c')?.v, 'c1');
      });

      it("head probe: this process's own writes need neither query", async () => {
        const { store, cu } = setup();
        const seq = store.allocate();
        store.commit('mine', seq, 'v');
        cu.noteLocal(seq);
        await cu.sync();
        assert.equal(store.queries.after, 0);
        assert.equal(cu.watermark, seq);
      });
    }
  });

describe('catch-up start from a full scan', () => {
  it('applies every scanned item, starts at the highest seq seen and watches the unseen seqs near the watermark as holes', async () => {
    const cu = new CatchUp(new FakeStore(), () => {});
    const applied: number[] = [];
    async function* scan() {
      // Seq 9 is below the watermark read before the scan but not committed yet; 12 committed during the scan.
      for (const seq of [1, 2, 3, 4, 5, 6, 7, 8, 10, 12]) yield { id: `n${seq}`, seq, v: 'x' };
    }
    await cu.initFromScan(10, scan(), (n) => applied.push(n.seq));
    assert.deepEqual(applied, [1, 2, 3, 4, 5, 6, 7, 8, 10, 12]);
    assert.equal(cu.watermark, 12);
    assert.deepEqual(cu.holeSeqs(), [9, 11]);
  });
});
