import type { ScopeRef } from '../../store/scope';
import type { Log } from '../../log';

/**
 * Recall updates access statistics (they feed forgetting), but never on the read's critical path:
 * recalled ids are collected per scope and flushed later, one update per scope and count. A node
 * recalled three times before a flush gets +3.
 *
 * A flush waits until recall is quiet. Each counted node is one upsert, and on the local
 * MongoDB-compatible server that costs about as much CPU as a recall's own load. Flushing every
 * second during a burst of recalls put that work beside the burst: at 100k nodes it doubled the
 * recall p95 (docs/benchmarks.md, "Access flushes wait for a quiet moment"). So a flush happens
 * once `delayMs` has passed since the first pending count and no recall has been recorded for
 * `quietMs`. Under sustained load it happens anyway after `maxDelayMs`, or as soon as
 * `maxPending` (scope, node) counts are waiting (that bounds the memory held). A burst that
 * recalls the same nodes again is counted in one write per node.
 *
 * What a kill -9 loses is what is pending: at most `maxDelayMs` of counts. A stop (stop(), SIGINT,
 * SIGTERM) flushes them.
 */

export type TouchFn = (ref: ScopeRef, ids: string[], times: number, at: Date) => Promise<void>;

export interface AccessFlushPolicy {
  /** Collect for at least this long before a flush (batching). */
  delayMs: number;
  /** Flush only once no recall has been recorded for this long... */
  quietMs: number;
  /** ...or once the oldest pending count is this old... */
  maxDelayMs: number;
  /** ...or as soon as this many (scope, node) counts are pending. */
  maxPending: number;
}

export const DEFAULT_ACCESS_FLUSH: AccessFlushPolicy = { delayMs: 1000, quietMs: 250, maxDelayMs: 30_000, maxPending: 20_000 };

/** Time and timers for the flush schedule (tests drive a fake one). */
export interface FlushTimers {
  now(): number;
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: FlushTimers = {
  now: () => performance.now(),
  set: (fn, ms) => setTimeout(fn, ms),
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

  constructor(
    private readonly touch: TouchFn,
    private readonly now: () => Date,
    private readonly log: Log,
    policy: Partial<AccessFlushPolicy> = {},
    private readonly timers: FlushTimers = realTimers,
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
      for (const { ref, counts } of batch) {
        const byTimes = new Map<number, string[]>();
        for (const [id, n] of counts) {
          const ids = byTimes.get(n);
          if (ids) ids.push(id);
          else byTimes.set(n, [id]);
        }
        for (const [times, ids] of byTimes) {
          try {
            await this.touch(ref, ids, times, at);
          } catch (err) {
            this.log.warn(`recording recall access failed (${ids.length} nodes): ${(err as Error).message}`);
          }
        }
      }
    });
    return this.flushing;
  }
}
