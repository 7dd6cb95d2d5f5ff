import type { ScopeRef } from '../../store/scope';
import type { Log } from '../../log';

/**
 * Recall updates access statistics (they feed forgetting), but never on the read's critical path:
 * recalled ids are collected per scope and flushed shortly after, one update per scope and count.
 * A node recalled three times within a flush window gets +3.
 */

export type TouchFn = (ref: ScopeRef, ids: string[], times: number, at: Date) => Promise<void>;

export class AccessRecorder {
  private readonly pending = new Map<string, { ref: ScopeRef; counts: Map<string, number> }>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly touch: TouchFn,
    private readonly now: () => Date,
    private readonly log: Log,
    // Each flush is a durable write competing with reads: once a second is plenty for statistics.
    private readonly delayMs = 1000,
  ) {}

  record(ref: ScopeRef, ids: string[]): void {
    if (ids.length === 0) return;
    const key = `${ref.tenant_id}\u0000${ref.scope}`;
    let entry = this.pending.get(key);
    if (!entry) {
      entry = { ref, counts: new Map() };
      this.pending.set(key, entry);
    }
    for (const id of ids) entry.counts.set(id, (entry.counts.get(id) ?? 0) + 1);
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.delayMs);
  }

  /** Writes everything recorded so far; resolves when done (tests and shutdown call it). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
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
