import type { Filter } from 'mongodb';
import { defineCollection, type Database } from '../database';
import type { ScopeRef } from '../scope';

/**
 * Hourly samples of a scope's node counts by tier and lifecycle state (the inspector's chart).
 * One document per scope and hour, written by the API processes' history recorder
 * (domain/lifecycle/history.ts) whenever the scope's counts changed: the last counts seen in an
 * hour win. Several processes write the same hour's document with the same counts (their views
 * agree after catch-up), so the write is an idempotent upsert keyed by scope and hour.
 */
export const countHistoryCollection = defineCollection({
  name: 'lifecycle_count_history',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, at: 1 },
      name: 'scope_at',
      why: 'the history route reads one scope’s samples in time order, from `since` or the latest N',
    },
  ],
});

export interface CountSample {
  at: string;
  node_count: number;
  tier_counts: { hot: number; warm: number; cold: number; archive: number };
  lifecycle_state_counts: { active: number; contested: number; retired: number; archived: number };
}

interface CountSampleDoc extends CountSample {
  _id: string;
  recorded_at: string;
}

export class CountHistory {
  constructor(private readonly db: Database) {}

  private coll(ref: ScopeRef) {
    return this.db.scoped<CountSampleDoc>(countHistoryCollection, ref);
  }

  /** Writes (or overwrites) the sample of the hour `sample.at` starts. */
  async put(ref: ScopeRef, sample: CountSample, recordedAt: string): Promise<void> {
    const _id = `${ref.tenant_id}/${ref.scope}/${sample.at}`;
    await this.coll(ref).updateOne({ _id } as Filter<CountSampleDoc>, { $set: { ...sample, recorded_at: recordedAt } }, { upsert: true });
  }

  /** Samples in time order: from `since` (the first `limit`), or the latest `limit`. */
  async read(ref: ScopeRef, opts: { since?: string; limit: number }): Promise<CountSample[]> {
    const projection = { _id: 0, at: 1, node_count: 1, tier_counts: 1, lifecycle_state_counts: 1 };
    if (opts.since !== undefined) {
      return this.coll(ref).find({ at: { $gte: opts.since } } as Filter<CountSampleDoc>, { sort: { at: 1 }, limit: opts.limit, projection });
    }
    const latest = await this.coll(ref).find({}, { sort: { at: -1 }, limit: opts.limit, projection });
    return latest.reverse();
  }
}
