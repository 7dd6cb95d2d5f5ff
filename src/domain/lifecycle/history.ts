import type { Log } from '../../log';
import type { CountHistory, CountSample } from '../../store/lifecycle/count-history';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import type { ForgettingView, ScopeTally } from './forgetting-view';

/**
 * Node counts by tier and lifecycle state over time (the inspector's chart; docs/inspector.md).
 * The forgetting view knows the counts only as they are now, so the API samples them: every
 * RECORD_EVERY_MS it catches the view up and writes the counts of each scope that changed since
 * the last sample into the current hour's document. A scope that does not change writes nothing;
 * its last sample holds until it does.
 */

export const RECORD_EVERY_MS = 60_000;
const HOUR_MS = 3_600_000;

/** The start of the hour `at` falls in, as an ISO string. */
export const hourOf = (at: Date): string => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS).toISOString();

export function sampleOf(t: ScopeTally | null, at: string): CountSample {
  return {
    at,
    node_count: t?.nodes ?? 0,
    tier_counts: { hot: t?.tiers.hot ?? 0, warm: t?.tiers.warm ?? 0, cold: t?.tiers.cold ?? 0, archive: t?.tiers.archive ?? 0 },
    lifecycle_state_counts: {
      active: t?.states.active ?? 0,
      contested: t?.states.contested ?? 0,
      retired: t?.states.retired ?? 0,
      archived: t?.states.archived ?? 0,
    },
  };
}

export class HistoryRecorder {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly deps: { view: ForgettingView; store: CountHistory; clock: Clock; log: Log }) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.record().catch((err) => this.deps.log.warn(`count history not recorded: ${(err as Error).message}`));
    }, RECORD_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => {});
  }

  /** Writes one sample per scope whose counts changed since the last call; returns how many. One at a time. */
  record(): Promise<number> {
    this.running ??= this.recordNow().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async recordNow(): Promise<number> {
    await this.deps.view.sync();
    const now = this.deps.clock.now();
    const changed = this.deps.view.takeChanged();
    for (const [i, t] of changed.entries()) {
      try {
        await this.deps.store.put(t.ref, sampleOf(t, hourOf(now)), now.toISOString());
      } catch (err) {
        // Not written: try these again at the next tick.
        for (const rest of changed.slice(i)) rest.changed = true;
        throw err;
      }
    }
    return changed.length;
  }

  /** The stored samples and the live counts (after catching the view up). */
  async read(ref: ScopeRef, opts: { since?: string; limit: number }): Promise<{ points: CountSample[]; current: CountSample }> {
    await this.deps.view.sync();
    const current = sampleOf(this.deps.view.tally(ref), this.deps.clock.now().toISOString());
    const points = await this.deps.store.read(ref, opts);
    return { points, current };
  }
}
