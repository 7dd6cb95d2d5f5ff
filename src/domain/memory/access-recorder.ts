import type { ScopeRef } from '../../store/scope';
import type { Log } from '../../log';

/**
 * Recall updates access statistics (they feed forgetting), but never on the read's critical path:
 * recalled ids are collected per scope and flushed later, one write per scope with each node's
 * count. A node recalled three times before a flush gets +3.
 *
 * A flush waits until recall is quiet. When each counted node was an upsert, that cost the local
 * MongoDB-compatible server about as much CPU as a recall's own load, and flushing every second
 * during a burst of recalls doubled the recall p95 at 100k nodes (docs/benchmarks.md, "Access
 * flushes wait for a quiet moment"). A flush is a cheaper log insert now, but it still waits: it
 * happens once `delayMs` has passed since the first pending count and no recall has been recorded for
 * `quietMs`. Under sustained load it happens anyway after `maxDelayMs`, or as soon as
 * `maxPending` (scope, node) counts are waiting (that bounds the memory held). A burst that
 * recalls the same nodes again is counted in one write per node.
 *
 * What a kill -9 loses is what is pending: at most `maxDelayMs` of counts. A stop (stop(), SIGINT,
 * SIGTERM) flushes them.
 *
 * A flush only logs the counts (one inserted document per 200 nodes; src/store/memory/access.ts).
 * Folding that log into per-node documents is the costly part, so it waits longer: `foldQuietMs`
 * after the last recall, and it stops as soon as a recall comes back (the next quiet moment goes
 * on). Under load that never pauses it runs anyway once the oldest unfolded flush is
 * `foldMaxDelayMs` old, without stopping. Reads are exact whether or not a fold has run.
 */

/** Writes `n[i]` uses of `ids[i]` at `at`. */
export type TouchFn = (ref: ScopeRef, ids: string[], n: number[], at: Date) => Promise<void>;

/** Folds the access log; `stop` true asks it to end early. `complete`: nothing left to fold. */
export type FoldFn = (stop: () => boolean) => Promise<{ complete: boolean }>;

export interface AccessFlushPolicy {
  /** Collect for at least this long before a flush (batching). */
  delayMs: number;
  /** Flush only once no recall has been recorded for this long... */
  quietMs: number;
  /** ...or once the oldest pending count is this old... */
  maxDelayMs: number;
  /** ...or as soon as this many (scope, node) counts are pending. */
  maxPending: number;
  /** Fold the log once no recall has been recorded for this long... */
  foldQuietMs: number;
  /** ...or once the oldest unfolded flush is this old. */
  foldMaxDelayMs: number;
}

export const DEFAULT_ACCESS_FLUSH: AccessFlushPolicy = {
  delayMs: 1000,
  quietMs: 250,
  maxDelayMs: 30_000,
  maxPending: 20_000,
  foldQuietMs: 30_000,
  foldMaxDelayMs: 600_000,
};

/** Time and timers for the flush schedule (tests drive a fake one). */
export interface FlushTimers {
  now(): number;
  /** `background`: the timer alone does not keep the process alive. */
  set(fn: () => void, ms: number, background?: boolean): unknown;
  clear(handle: unknown): void;
}

const realTimers: FlushTimers = {
  now: () => performance.now(),
  set: (fn, ms, background) => {
    const t = setTimeout(fn, ms);
    if (background) t.unref();
    return t;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class AccessRecorder {
  private readonly pending = new Map<string, { ref: ScopeRef; counts: Map<string, number> }>();
  private pendingCount = 0;
  private firstPendingAt: number | null = null;
  private lastRecordAt = 0;
  private timer: unknown = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly policy: AccessFlushPolicy;
  /** When the oldest flush not folded yet was written (null: nothing to fold). */
  private foldDueSince: number | null = null;
  private foldTimer: unknown = null;
  private folding: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly touch: TouchFn,
    private readonly now: () => Date,
    private readonly log: Log,
    policy: Partial<AccessFlushPolicy> = {},
    private readonly timers: FlushTimers = realTimers,
    private readonly fold: FoldFn | null = null,
  ) {
    this.policy = { ...DEFAULT_ACCESS_FLUSH, ...policy };
  }

  record(ref: ScopeRef, ids: string[]): void {
    if (ids.length === 0) return;
    const key = `${ref.tenant_id}\u0000${ref.scope}`;
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { ref, counts: new Map() };
      this.pending.set(key, entry);
    }
    for (const id of ids) {
      const n = entry.counts.get(id);
      if (n === undefined) this.pendingCount += 1;
      entry.counts.set(id, (n ?? 0) + 1);
    }
    const t = this.timers.now();
    this.lastRecordAt = t;
    if (this.firstPendingAt === null) this.firstPendingAt = t;
    if (this.pendingCount >= this.policy.maxPending) {
      void this.flush();
      return;
    }
    if (this.timer === null) this.arm(this.policy.delayMs);
  }

  /** Counts waiting for a flush, as (scope, node) pairs. */
  get pendingNodes(): number {
    return this.pendingCount;
  }

  private arm(ms: number): void {
    this.timer = this.timers.set(() => this.check(), Math.max(1, Math.ceil(ms)));
  }

  /** The timer fired: flush if recall is quiet (or the counts are old), else look again later. */
  private check(): void {
    this.timer = null;
    if (this.firstPendingAt === null) return;
    const { delayMs, quietMs, maxDelayMs } = this.policy;
    const quietAt = Math.max(this.firstPendingAt + delayMs, this.lastRecordAt + quietMs);
    const at = Math.min(quietAt, this.firstPendingAt + maxDelayMs);
    const wait = at - this.timers.now();
    if (wait <= 0) void this.flush();
    else this.arm(wait);
  }

  /** Writes everything recorded so far; resolves when done (tests and shutdown call it). */
  flush(): Promise<void> {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
    this.firstPendingAt = null;
    this.pendingCount = 0;
    const batch = [...this.pending.values()];
    this.pending.clear();
    this.flushing = this.flushing.then(async () => {
      const at = this.now();
      let wrote = false;
      for (const { ref, counts } of batch) {
        const ids: string[] = new Array(counts.size);
        const n: number[] = new Array(counts.size);
        let i = 0;
        for (const [id, times] of counts) {
          ids[i] = id;
          n[i] = times;
          i += 1;
        }
        try {
          await this.touch(ref, ids, n, at);
          wrote = true;
        } catch (err) {
          this.log.warn(`recording recall access failed (${ids.length} nodes): ${(err as Error).message}`);
        }
      }
      if (wrote) this.foldLater();
    });
    return this.flushing;
  }

  /**
   * Asks for a fold of the access log (a flush wrote to it; at start, other processes may have left
   * some): it runs once recall has been quiet for `foldQuietMs`, or when the oldest unfolded flush
   * is `foldMaxDelayMs` old.
   */
  foldLater(): void {
    if (this.fold === null || this.stopped) return;
    if (this.foldDueSince === null) this.foldDueSince = this.timers.now();
    if (this.foldTimer === null && this.folding === null) this.armFold(this.policy.foldQuietMs);
  }

  private armFold(ms: number): void {
    this.foldTimer = this.timers.set(() => this.checkFold(), Math.max(1, Math.ceil(ms)), true);
  }

  private checkFold(): void {
    this.foldTimer = null;
    const since = this.foldDueSince;
    if (since === null || this.stopped || this.fold === null) return;
    const now = this.timers.now();
    const forcedAt = since + this.policy.foldMaxDelayMs;
    const quietAt = this.lastRecordAt + this.policy.foldQuietMs;
    const forced = now >= forcedAt;
    if (!forced && now < quietAt) {
      this.armFold(Math.min(quietAt, forcedAt) - now);
      return;
    }
    this.foldDueSince = null;
    const started = this.lastRecordAt;
    // A fold that waited for quiet gives way to the next recall; a forced one runs to the end.
    const stop = () => this.stopped || (!forced && this.lastRecordAt !== started);
    this.folding = this.fold(stop)
      .then(
        (r) => r.complete,
        (err) => {
          this.log.warn(`folding the access log failed: ${(err as Error).message}`);
          return false;
        },
      )
      .then((complete) => {
        this.folding = null;
        if (!complete) this.foldDueSince = Math.min(since, this.foldDueSince ?? since);
        if (this.foldDueSince !== null && !this.stopped) this.armFold(this.policy.foldQuietMs);
      });
  }

  /** Folds are not started any more, a running one ends after its current log document, and what is pending is flushed. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.foldTimer !== null) this.timers.clear(this.foldTimer);
    this.foldTimer = null;
    await this.folding;
    await this.flush();
  }
}
