import type { Filter } from 'mongodb';
import { defineCollection, isDuplicateKey, type Database } from '../database';
import type { ScopeRef } from '../scope';

/**
 * Delegation records: who delegated what to whom, and how it went. Their own collection (not
 * memory nodes): they are bookkeeping an agent reads back by id, agent or status, not evidence
 * to recall. One record per record_id within a scope; changes bump `revision` and append to a
 * short history.
 */

export interface DelegationRecord {
  id: string;
  record_id: string;
  from_agent: string;
  to_agent: string;
  task: string;
  status: string;
  result: string | null;
  run_id: string | null;
  session_id: string | null;
  parent_record_id: string | null;
  target_files: string[];
  metadata: Record<string, unknown>;
  tags: string[];
  content_hash: string;
  revision: number;
  history: { revision: number; status: string; actor: string; at: string }[];
  actor: string;
  created_at: string;
  updated_at: string;
}

type Doc = Omit<DelegationRecord, 'id'> & { _id: string };

export const delegationCollection = defineCollection({
  name: 'delegation_records',
  indexes: [
    { key: { tenant_id: 1, scope: 1, record_id: 1 }, unique: true, name: 'scope_record_id', why: 'write and find by record_id' },
    { key: { tenant_id: 1, scope: 1, _id: 1 }, name: 'scope_id', why: 'find pages in creation order (_id > cursor)' },
  ],
});

const toRecord = (d: Doc): DelegationRecord => {
  const { _id, ...rest } = d as Doc & { tenant_id?: string; scope?: string };
  const { tenant_id: _t, scope: _s, ...r } = rest;
  return { id: _id, ...r } as DelegationRecord;
};

export interface DelegationFilter {
  record_ids?: string[];
  from_agent?: string;
  to_agent?: string;
  statuses?: string[];
  run_id?: string;
  session_id?: string;
}

const HISTORY_MAX = 50;

export class DelegationStore {
  constructor(private readonly db: Database) {}

  private coll(ref: ScopeRef) {
    return this.db.scoped<Doc>(delegationCollection, ref);
  }

  async get(ref: ScopeRef, recordId: string): Promise<DelegationRecord | null> {
    const d = await this.coll(ref).findOne({ record_id: recordId } as Filter<Doc>);
    return d ? toRecord(d) : null;
  }

  async insert(ref: ScopeRef, r: DelegationRecord): Promise<'created' | 'exists'> {
    const { id, ...rest } = r;
    try {
      await this.coll(ref).insertOne({ _id: id, ...rest });
      return 'created';
    } catch (err) {
      if (isDuplicateKey(err)) return 'exists';
      throw err;
    }
  }

  /** Replaces the content if the stored revision is still `expectRevision`; null when someone else got there first. */
  async update(
    ref: ScopeRef,
    recordDocId: string,
    expectRevision: number,
    set: Partial<DelegationRecord>,
    entry: DelegationRecord['history'][number],
  ): Promise<DelegationRecord | null> {
    const d = await this.coll(ref).findOneAndUpdate(
      { _id: recordDocId, revision: expectRevision } as Filter<Doc>,
      {
        $set: { ...set, revision: expectRevision + 1 },
        $push: { history: { $each: [entry], $slice: -HISTORY_MAX } },
      } as never,
    );
    return d ? toRecord(d) : null;
  }

  async find(ref: ScopeRef, f: DelegationFilter, opts: { limit: number; after?: string }): Promise<DelegationRecord[]> {
    const q: Record<string, unknown> = {};
    if (f.record_ids) q.record_id = f.record_ids.length === 1 ? f.record_ids[0] : { $in: f.record_ids };
    if (f.from_agent) q.from_agent = f.from_agent;
    if (f.to_agent) q.to_agent = f.to_agent;
    if (f.statuses) q.status = f.statuses.length === 1 ? f.statuses[0] : { $in: f.statuses };
    if (f.run_id) q.run_id = f.run_id;
    if (f.session_id) q.session_id = f.session_id;
    if (opts.after) q._id = { $gt: opts.after };
    const docs = await this.coll(ref).find(q as Filter<Doc>, { sort: { _id: 1 }, limit: opts.limit });
    return docs.map(toRecord);
  }
}
