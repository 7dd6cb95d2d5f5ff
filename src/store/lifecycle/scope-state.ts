import type { Filter } from 'mongodb';
import { defineCollection, type Database } from '../database';
import { scopeRef, type ScopeRef } from '../scope';
import { REHYDRATION_MODES, type RehydrationMode } from '../../model/lifecycle/vocabulary';

/**
 * One small document per tenant+scope that has memory: the scope registry the scheduled sweep
 * walks (so it never has to discover scopes by scanning nodes), the operator's resume cursor and
 * last run, and the event counters the forgetting summary cannot derive from node state
 * (rehydrations by mode). Created the first time any Lore process sees a node of the scope.
 */
export const scopeStateCollection = defineCollection({
  name: 'lifecycle_scopes',
  // _id is `<tenant>/<scope>` (a tenant id has no '/'), so the sweep pages the registry in _id
  // order on the primary index and one scope's document is an exact _id match.
  indexes: [],
});

/** The rehydration modes, each counted in rehydration_mode_counts. */
export const REHYDRATION_MODE_KEYS = REHYDRATION_MODES;
export type RehydrationModeKey = RehydrationMode;

export interface LastRun {
  run_id: string;
  decided_at: string;
  examined: number;
  complete: boolean;
  trigger: string;
  counts: { retain: number; demote: number; archive: number; review: number };
}

export interface ScopeStateDoc {
  _id: string;
  first_seen_at: string;
  /** Where the next run resumes (last node id examined), null to start from the beginning. */
  cursor: string | null;
  /** Where the operator's next look for hook noise resumes (docs/forgetting.md, "Hook noise"); absent or null: the window's start. */
  noise_cursor?: string | null;
  last_run: LastRun | null;
  rehydration_mode_counts: Record<RehydrationModeKey, number>;
  activations: number;
  archive_rehydrations: number;
}

export const scopeStateId = (ref: ScopeRef) => `${ref.tenant_id}/${ref.scope}`;

const fresh = (ref: ScopeRef, at: string): ScopeStateDoc => ({
  _id: scopeStateId(ref),
  first_seen_at: at,
  cursor: null,
  last_run: null,
  rehydration_mode_counts: { summary: 0, partial: 0, full: 0, differential: 0 },
  activations: 0,
  archive_rehydrations: 0,
});

export class ScopeStates {
  constructor(private readonly db: Database) {}

  private coll(ref: ScopeRef) {
    return this.db.scoped<ScopeStateDoc>(scopeStateCollection, ref);
  }

  private byId(ref: ScopeRef): Filter<ScopeStateDoc> {
    return { _id: scopeStateId(ref) } as Filter<ScopeStateDoc>;
  }

  /** Registers the scope (no-op when known). */
  async ensure(ref: ScopeRef, at: string): Promise<void> {
    await this.coll(ref).insertNew(fresh(ref, at));
  }

  async get(ref: ScopeRef): Promise<ScopeStateDoc | null> {
    return this.coll(ref).findOne(this.byId(ref));
  }

  /** Adds to event counters (e.g. `rehydration_mode_counts.full`), registering the scope if needed. */
  async increment(ref: ScopeRef, inc: Record<string, number>, at: string): Promise<void> {
    await this.ensure(ref, at);
    await this.coll(ref).updateOne(this.byId(ref), { $inc: inc });
  }

  async recordRun(ref: ScopeRef, cursor: string | null, lastRun: LastRun, at: string): Promise<void> {
    await this.ensure(ref, at);
    await this.coll(ref).updateOne(this.byId(ref), { $set: { cursor, last_run: lastRun } });
  }

  /** Where the next look for hook noise starts (null: from the beginning of its window). */
  async setNoiseCursor(ref: ScopeRef, cursor: string | null): Promise<void> {
    await this.coll(ref).updateOne(this.byId(ref), { $set: { noise_cursor: cursor } });
  }

  /** The registered scopes after `after` (a scope id), in id order: the sweep's pages. */
  async list(after: string | null, limit: number): Promise<{ id: string; ref: ScopeRef }[]> {
    const q = after === null ? {} : { _id: { $gt: after } };
    const docs = await this.db
      .raw<ScopeStateDoc>(scopeStateCollection)
      .find(q as Filter<ScopeStateDoc & { tenant_id: string; scope: string }>, { projection: { _id: 1, tenant_id: 1, scope: 1 } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => ({ id: d._id, ref: scopeRef(d.tenant_id, d.scope) }));
  }

  /**
   * A tenant's registered scopes after `after` (a scope name), in name order. The ids of one
   * tenant are exactly those in [`<tenant>/`, `<tenant>0`): '0' follows '/', and a tenant id has no '/'.
   */
  async scopesOf(tenantId: string, after: string | null, limit: number): Promise<ScopeStateDoc[]> {
    const from = after === null ? { $gte: `${tenantId}/` } : { $gt: `${tenantId}/${after}` };
    const docs = await this.db
      .raw<ScopeStateDoc>(scopeStateCollection)
      .find({ _id: { ...from, $lt: `${tenantId}0` } } as Filter<ScopeStateDoc & { tenant_id: string; scope: string }>)
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return docs;
  }

  /**
   * Tenants with registered scopes after `after`, in id order (`<tenant>/` sorts 'a-b' before 'a'):
   * one indexed lookup per tenant,
   * each skipping past the previous tenant's ids (see scopesOf), so a tenant with many scopes
   * costs no more than one with a few.
   */
  async tenants(after: string | null, limit: number): Promise<string[]> {
    const out: string[] = [];
    let from = after === null ? '' : `${after}0`;
    while (out.length < limit) {
      const doc = await this.db
        .raw<ScopeStateDoc>(scopeStateCollection)
        .findOne({ _id: { $gte: from } } as Filter<ScopeStateDoc & { tenant_id: string; scope: string }>, { sort: { _id: 1 }, projection: { _id: 1 } });
      if (!doc) break;
      const tenant = doc._id.slice(0, doc._id.indexOf('/'));
      out.push(tenant);
      from = `${tenant}0`;
    }
    return out;
  }
}
