import type { RunStatus } from '../../model/automation/graph';
import type { RunDoc } from '../../model/automation/records';
import { defineCollection, type Database } from '../database';
import { ScopedRuns } from '../runs';
import type { ScopeRef } from '../scope';

export const runsCollection = defineCollection({
  name: 'automation_runs',
  indexes: [
    { key: { tenant_id: 1, scope: 1, run_id: 1 }, unique: true, name: 'scope_run_id', why: 'runs/get, cancel and resume look a run up by its caller id; one id per scope' },
    { key: { tenant_id: 1, scope: 1, _id: 1 }, name: 'scope_id', why: 'runs/list pages newest first (_id < cursor)' },
    { key: { tenant_id: 1, scope: 1, automation_id: 1, _id: 1 }, name: 'scope_automation_id', why: 'runs/list filtered by automation_id' },
    { key: { tenant_id: 1, scope: 1, status: 1, _id: 1 }, name: 'scope_status_id', why: 'runs/list filtered by status' },
    { key: { tenant_id: 1, scope: 1, automation_id: 1, status: 1, _id: 1 }, name: 'scope_automation_status_id', why: 'runs/list filtered by both' },
  ],
});

export type RunPatch = Partial<Omit<RunDoc, '_id' | 'run_id' | 'automation_id' | 'created_at' | 'workflow_id'>>;

const OPEN: RunStatus[] = ['queued', 'running', 'paused'];

/** Automation run records of one tenant+scope (reads and insert: ../runs.ts). Every state change is conditional, so racing writers agree. */
export class AutomationRuns extends ScopedRuns<RunDoc> {
  constructor(db: Database, ref: ScopeRef) {
    super(db, runsCollection, ref);
  }

  /** Newest first: one query per status (each served by an index in order), merged. */
  async list(opts: { automation_id?: string; statuses?: RunStatus[]; before?: string; limit: number }): Promise<RunDoc[]> {
    const base: Record<string, unknown> = {};
    if (opts.automation_id) base.automation_id = opts.automation_id;
    if (opts.before) base._id = { $lt: opts.before };
    const filters = opts.statuses ? opts.statuses.map((status) => ({ ...base, status })) : [base];
    const pages = await Promise.all(filters.map((f) => this.coll.find(f, { sort: { _id: -1 }, limit: opts.limit })));
    return pages
      .flat()
      .sort((a, b) => (a._id < b._id ? 1 : a._id > b._id ? -1 : 0))
      .slice(0, opts.limit);
  }

  /**
   * A mirror write from the run's workflow. Applied only when newer than the last one applied
   * (seq), so a retried activity never moves the record back. False when it was stale.
   */
  async applyMirror(runKey: string, seq: number, patch: Record<string, unknown>): Promise<boolean> {
    const r = await this.coll.updateOne({ _id: runKey, seq: { $lt: seq } }, { $set: { ...patch, seq } } as never);
    return r.matched > 0;
  }

  async requestCancel(runId: string, reason: string | null, at: string): Promise<RunDoc | null> {
    return this.coll.findOneAndUpdate({ run_id: runId, status: { $in: OPEN } }, { $set: { cancel_requested: true, cancel_reason: reason, updated_at: at } });
  }

  /**
   * Ends an open run outside the workflow (its workflow is gone). The seq bump makes any late
   * mirror write of that workflow stale. Null when it had already ended.
   */
  async settle(runId: string, patch: RunPatch & { status: RunStatus }): Promise<RunDoc | null> {
    return this.coll.findOneAndUpdate({ run_id: runId, status: { $in: OPEN } }, { $set: { ...patch, seq: Number.MAX_SAFE_INTEGER } });
  }
}
