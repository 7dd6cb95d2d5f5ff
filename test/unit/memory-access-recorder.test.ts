import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccessRecorder } from '../../src/domain/memory/access-recorder';
import { scopeRef } from '../../src/store/scope';

const quiet = { info() {}, warn() {}, error() {}, debug() {}, child() { return quiet; } } as never;

/**
 * Counts the array elements that array copying and iteration touch while `fn` runs: every element
 * an array iterator yields (spread, for-of, destructuring, Array.from), and every element that
 * concat, slice, map and filter copy. Throws as soon as `budget` is exceeded, so quadratic work
 * fails fast instead of running to the end. Counting, not timing: the same code always counts
 * the same.
 */
async function arrayWork<T>(budget: number, fn: () => Promise<T>): Promise<{ result: T; work: number }> {
  const proto = Array.prototype as unknown as Record<PropertyKey, unknown>;
  const saved = new Map<PropertyKey, unknown>();
  let work = 0;
  const add = (n: number) => {
    work += n;
    if (work > budget) throw new Error(`array work over budget: more than ${budget} elements copied or iterated`);
  };
  const wrap = (key: PropertyKey, count: (self: unknown[], args: unknown[]) => number) => {
    const orig = proto[key] as (...a: unknown[]) => unknown;
    saved.set(key, orig);
    Object.defineProperty(Array.prototype, key, {
      configurable: true,
      writable: true,
      value: function (this: unknown[], ...args: unknown[]) {
        add(count(this, args));
        return orig.apply(this, args);
      },
    });
  };
  const iter = proto[Symbol.iterator] as (this: unknown[]) => Iterator<unknown>;
  saved.set(Symbol.iterator, iter);
  Object.defineProperty(Array.prototype, Symbol.iterator, {
    configurable: true,
    writable: true,
    value: function (this: unknown[]) {
      const it = iter.call(this);
      return {
        next() {
          const r = it.next();
          if (!r.done) add(1);
          return r;
        },
        [Symbol.iterator]() {
          return this;
        },
      };
    },
  });
  wrap('concat', (self, args) => self.length + args.reduce<number>((s, a) => s + (Array.isArray(a) ? a.length : 1), 0));
  wrap('slice', (self) => self.length);
  wrap('map', (self) => self.length);
  wrap('filter', (self) => self.length);
  try {
    const result = await fn();
    return { result, work };
  } finally {
    for (const [key, value] of saved) Object.defineProperty(Array.prototype, key, { configurable: true, writable: true, value });
  }
}

describe('access recorder', () => {
  it('flushes one touch per scope and use count, with every id recorded in between', async () => {
    const calls: { scope: string; ids: string[]; times: number }[] = [];
    const at = new Date('2026-01-01T00:00:00.000Z');
    const rec = new AccessRecorder(async (ref, ids, times) => void calls.push({ scope: ref.scope, ids: [...ids].sort(), times }), () => at, quiet, { delayMs: 60_000, maxPending: Infinity });
    const a = scopeRef('t', 'a');
    const many = Array.from({ length: 5000 }, (_, i) => `n${i}`);
    rec.record(a, many);
    rec.record(a, ['n1', 'n2']);
    rec.record(a, ['n2']);
    rec.record(scopeRef('t', 'b'), ['n1']);
    await rec.flush();
    const byKey = new Map(calls.map((c) => [`${c.scope}:${c.times}`, c.ids]));
    assert.equal(calls.length, 4);
    assert.equal(byKey.get('a:1')?.length, 4998);
    assert.deepEqual(byKey.get('a:2'), ['n1']);
    assert.deepEqual(byKey.get('a:3'), ['n2']);
    assert.deepEqual(byKey.get('b:1'), ['n1']);
    calls.length = 0;
    await rec.flush();
    assert.equal(calls.length, 0, 'nothing is flushed twice');
  });

  it('a flush of N ids hands the store each id once, with O(N) array work (no copy of the id list per id)', async () => {
    const N = 20_000;
    const a = scopeRef('t', 'a');
    const b = scopeRef('t', 'b');
    // Indexed loops only, so the store spy itself adds no counted work.
    const seen = new Map<string, number>();
    let calls = 0;
    let idsHanded = 0;
    const rec = new AccessRecorder(
      async (ref, ids, times) => {
        calls += 1;
        idsHanded += ids.length;
        for (let i = 0; i < ids.length; i++) {
          const key = `${ref.scope}:${ids[i]}`;
          assert.equal(seen.has(key), false, `${key} handed to the store twice`);
          seen.set(key, times);
        }
      },
      () => new Date('2026-01-01T00:00:00.000Z'),
      quiet,
      { delayMs: 60_000, maxPending: Infinity },
    );
    const ids: string[] = new Array(N);
    for (let i = 0; i < N; i++) ids[i] = `n${i}`;
    rec.record(a, ids);
    rec.record(a, ids.slice(0, N / 2)); // the first half twice
    rec.record(b, ids);

    // Grouping 2N distinct (scope, id) pairs by use count touches each a small constant number of
    // times; copying a group's list once per id added (the old flush) would be ~N²/2 per group.
    const { work } = await arrayWork(20 * N, () => rec.flush());
    assert.ok(work <= 20 * N, `array work ${work}`);

    assert.equal(calls, 3, 'one store call per scope and use count');
    assert.equal(idsHanded, 2 * N, 'each recorded id once per scope');
    assert.equal(seen.size, 2 * N);
    for (let i = 0; i < N; i++) {
      assert.equal(seen.get(`a:n${i}`), i < N / 2 ? 2 : 1);
      assert.equal(seen.get(`b:n${i}`), 1);
    }
  });
});

/** A clock and timers the test moves by hand: the schedule is checked without sleeping. */
function fakeTimers() {
  let now = 0;
  let seq = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    timers: {
      now: () => now,
      set: (fn: () => void, ms: number) => {
        seq += 1;
        due.set(seq, { at: now + ms, fn });
        return seq;
      },
      clear: (handle: unknown) => void due.delete(handle as number),
    },
    /** Moves the clock forward, firing every timer that comes due on the way, in order. */
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const next = [...due.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        due.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].fn();
      }
      now = end;
    },
  };
}

describe('access recorder: when it flushes', () => {
  const policy = { delayMs: 1000, quietMs: 250, maxDelayMs: 30_000, maxPending: 1000 };
  const setup = () => {
    const flushed: { ids: string[]; at: number }[] = [];
    const fake = fakeTimers();
    const rec = new AccessRecorder(
      async (_ref, ids) => void flushed.push({ ids: [...ids], at: fake.timers.now() }),
      () => new Date('2026-01-01T00:00:00.000Z'),
      quiet,
      policy,
      fake.timers,
    );
    const settle = () => new Promise((r) => setImmediate(r));
    return { flushed, fake, rec, settle };
  };
  const a = scopeRef('t', 'a');

  it('a single recall is flushed after the batching delay, not before', async () => {
    const { flushed, fake, rec, settle } = setup();
    rec.record(a, ['n1']);
    fake.advance(999);
    await settle();
    assert.equal(flushed.length, 0);
    fake.advance(1);
    await settle();
    assert.deepEqual(flushed, [{ ids: ['n1'], at: 1000 }]);
    assert.equal(rec.pendingNodes, 0);
  });

  it('waits while recalls keep coming, and flushes once they have been quiet', async () => {
    const { flushed, fake, rec, settle } = setup();
    for (let i = 0; i < 50; i++) {
      rec.record(a, [`n${i % 7}`]); // a burst: one recall every 100 ms for 5 s
      fake.advance(100);
    }
    await settle();
    assert.equal(flushed.length, 0, 'nothing is written during the burst');
    assert.equal(rec.pendingNodes, 7);
    fake.advance(150); // 250 ms after the last recall
    await settle();
    assert.equal(flushed.length, 2, 'one write per use count (n0 was recalled 8 times, the others 7)');
    assert.equal(flushed[0]?.at, 5000 - 100 + 250);
    assert.deepEqual(flushed.flatMap((f) => f.ids).sort(), ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6']);
  });

  it('under load that never pauses, flushes after maxDelayMs', async () => {
    const { flushed, fake, rec, settle } = setup();
    for (let i = 0; i < 400; i++) {
      rec.record(a, ['n1']); // every 100 ms for 40 s
      fake.advance(100);
      await settle();
    }
    await settle();
    assert.ok(flushed.length >= 1, 'flushed despite the load');
    assert.equal(flushed[0]?.at, 30_000, 'the oldest count waited maxDelayMs');
    assert.ok(rec.pendingNodes <= 1);
  });

  it('flushes at once when maxPending counts are waiting', async () => {
    const { flushed, rec, settle } = setup();
    rec.record(a, Array.from({ length: 999 }, (_, i) => `n${i}`));
    await settle();
    assert.equal(flushed.length, 0);
    rec.record(a, ['n0']); // a repeat is not a new pending count
    await settle();
    assert.equal(flushed.length, 0);
    rec.record(a, ['n999']);
    await settle();
    assert.equal(flushed.length, 2, 'flushed without waiting (two use counts)');
    assert.equal(flushed.reduce((s, f) => s + f.ids.length, 0), 1000);
    assert.equal(rec.pendingNodes, 0);
  });
});
