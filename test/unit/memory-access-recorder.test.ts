import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccessRecorder } from '../../src/domain/memory/access-recorder';
import { scopeRef } from '../../src/store/scope';

const quiet = {
  info() {},
  warn() {},
  error() {},
  debug() {},
  child() {
    return quiet;
  },
} as never;

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
  it('flushes one touch per scope, each id with its use count, with every id recorded in between', async () => {
    const calls: { scope: string; counts: Map<string, number> }[] = [];
    const at = new Date('2026-01-01T00:00:00.000Z');
    const rec = new AccessRecorder(
      async (ref, ids, n) => void calls.push({ scope: ref.scope, counts: new Map(ids.map((id, i) => [id, n[i]!])) }),
      () => at,
      quiet,
      { delayMs: 60_000, maxPending: Infinity },
    );
    const a = scopeRef('t', 'a');
    const many = Array.from({ length: 5000 }, (_, i) => `n${i}`);
    rec.record(a, many);
    rec.record(a, ['n1', 'n2']);
    rec.record(a, ['n2']);
    rec.record(scopeRef('t', 'b'), ['n1']);
    await rec.flush();
    assert.equal(calls.length, 2);
    const [ca, cb] = calls;
    assert.equal(ca!.scope, 'a');
    assert.equal(ca!.counts.size, 5000);
    assert.equal(ca!.counts.get('n0'), 1);
    assert.equal(ca!.counts.get('n1'), 2);
    assert.equal(ca!.counts.get('n2'), 3);
    assert.equal(ca!.counts.get('n4999'), 1);
    assert.deepEqual([...cb!.counts], [['n1', 1]]);
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
      async (ref, ids, n) => {
        calls += 1;
        idsHanded += ids.length;
        for (let i = 0; i < ids.length; i++) {
          const key = `${ref.scope}:${ids[i]}`;
          assert.equal(seen.has(key), false, `${key} handed to the store twice`);
          seen.set(key, n[i]!);
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

    // Handing over 2N distinct (scope, id) pairs touches each a small constant number of times;
    // copying a list once per id added (an old flush did) would be ~N²/2.
    const { work } = await arrayWork(20 * N, () => rec.flush());
    assert.ok(work <= 20 * N, `array work ${work}`);

    assert.equal(calls, 2, 'one store call per scope');
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
    assert.equal(flushed.length, 1, 'one write for the scope, after the burst');
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
    rec.record(
      a,
      Array.from({ length: 999 }, (_, i) => `n${i}`),
    );
    await settle();
    assert.equal(flushed.length, 0);
    rec.record(a, ['n0']); // a repeat is not a new pending count
    await settle();
    assert.equal(flushed.length, 0);
    rec.record(a, ['n999']);
    await settle();
    assert.equal(flushed.length, 1, 'flushed without waiting');
    assert.equal(
      flushed.reduce((s, f) => s + f.ids.length, 0),
      1000,
    );
    assert.equal(rec.pendingNodes, 0);
  });
});

describe('access recorder: when it folds the log', () => {
  const policy = { delayMs: 1000, quietMs: 250, maxDelayMs: 30_000, maxPending: 1000, foldQuietMs: 30_000, foldMaxDelayMs: 600_000 };
  /** A fold that takes `docs` steps of 100 ms each (fake time), asking `stop` before each. */
  const setup = (docs = 5) => {
    const fake = fakeTimers();
    const folds: { at: number; done: number; stopped: boolean }[] = [];
    let left = 0;
    const fold = async (stop: () => boolean) => {
      const run = { at: fake.timers.now(), done: 0, stopped: false };
      folds.push(run);
      if (left === 0) left = docs;
      while (left > 0) {
        if (stop()) {
          run.stopped = true;
          return { complete: false };
        }
        await new Promise((r) => setImmediate(r));
        left -= 1;
        run.done += 1;
      }
      return { complete: true };
    };
    const rec = new AccessRecorder(
      async () => {},
      () => new Date('2026-01-01T00:00:00.000Z'),
      quiet,
      policy,
      fake.timers,
      fold,
    );
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    };
    /** One recall, its flush 1 s later, and the fold that starts once recall has been quiet for 30 s. */
    const toFirstFold = async () => {
      rec.record(a, ['n1']);
      fake.advance(1000);
      await settle();
      fake.advance(30_000);
      await settle();
      assert.equal(folds.length, 1);
    };
    const folded = () => folds.reduce((sum, f) => sum + f.done, 0);
    return { fake, folds, rec, settle, toFirstFold, folded };
  };
  const a = scopeRef('t', 'a');

  it('folds foldQuietMs after the last recall, not during a burst', async () => {
    const { fake, folds, rec, settle } = setup();
    for (let i = 0; i < 100; i++) {
      rec.record(a, ['n1']); // a recall every second for 100 s: flushes happen, folds must not
      fake.advance(1000);
      await settle();
    }
    assert.equal(folds.length, 0, 'no fold while recall keeps coming');
    fake.advance(29_000); // 30 s after the last recall (its flush came 1 s after it)
    await settle();
    fake.advance(1000);
    await settle();
    assert.equal(folds.length, 1);
    assert.equal(folds[0]!.done, 5, 'the fold ran to the end');
    fake.advance(120_000);
    await settle();
    assert.equal(folds.length, 1, 'nothing more to fold');
  });

  it('a fold gives way to the next recall and goes on at the next quiet moment', async () => {
    const { fake, folds, rec, settle, toFirstFold, folded } = setup(1000);
    await toFirstFold();
    rec.record(a, ['n2']); // recall is back while the fold runs
    await settle();
    assert.equal(folds[0]!.stopped, true, 'the fold stopped');
    assert.ok(folds[0]!.done < 1000);
    fake.advance(31_000);
    await settle();
    assert.ok(folds.length >= 2, 'folding went on once recall was quiet again');
    for (let i = 0; i < 200 && folded() < 1000; i++) await settle();
    assert.equal(folded(), 1000, 'every log document folded once');
  });

  it('under load that never pauses, folds once the oldest flush is foldMaxDelayMs old, without giving way', async () => {
    const { fake, folds, rec, settle, folded } = setup(1000);
    let recallsWhileFolding = 0;
    for (let i = 0; i < 700 || (folded() < 1000 && i < 2000); i++) {
      if (folds.length === 1 && folded() < 1000) recallsWhileFolding += 1;
      rec.record(a, ['n1']); // a recall every second, until the fold is done
      fake.advance(1000);
      await settle();
    }
    assert.equal(folds.length, 1, 'one forced fold');
    assert.ok(folds[0]!.at >= 600_000 && folds[0]!.at <= 602_000, `forced at ${folds[0]!.at}`);
    assert.ok(recallsWhileFolding > 0, 'recalls came while the fold ran');
    assert.equal(folds[0]!.stopped, false, 'it did not give way to them');
    assert.equal(folds[0]!.done, 1000);
  });

  it('stop() ends a running fold and starts no new one', async () => {
    const { fake, folds, rec, settle, toFirstFold } = setup(1000);
    await toFirstFold();
    await rec.stop();
    assert.equal(folds[0]!.stopped, true);
    rec.foldLater();
    fake.advance(1_000_000);
    await settle();
    assert.equal(folds.length, 1);
  });
});
