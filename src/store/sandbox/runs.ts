import type { RunDoc, RunStatus } from '../../model/sandbox/records';
import { type Database, defineCollection } from '../database';
import { ScopedRuns } from '../runs';
import type { ScopeRef } from '../scope';

export const runsCollection = defineCollection({
  name: 'sandbox_runs',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, run_id: 1 },
      unique: true,
      name: 'scope_run_id',
      why: 'every runs/* route looks a run up by its caller-visible id; one id per scope',
    },
    { key: { session_key: 1, status: 1 }, name: 'session_status', why: 'workdir retention keeps a workdir while a run of its session is open' },
    { key: { tenant_id: 1, scope: 1, _id: -1 }, name: 'scope_id_desc', why: 'runs/list pages newest first (_id is a uuid v7: creation order)' },
    { key: { tenant_id: 1, scope: 1, session_id: 1, _id: -1 }, name: 'scope_session_id_desc', why: 'runs/list of one session, newest first' },
  ],
});

export type RunPatch = Partial<Omit<RunDoc, '_id' | 'run_id' | 'session_id' | 'session_key' | 'created_at'>>;

const OPEN: RunStatus[] = ['queued', 'running'];

/** Whether any run of the session (by its server id, any scope) is queued or running. */
export async function hasOpenRun(db: Database, sessionKey: string): Promise<boolean> {
  const open = await db.raw<RunDoc>(runsCollection).findOne({ session_key: sessionKey, status: { $in: OPEN } }, { projection: { _id: 1 } });
  return open !== null;
}

/** Sandbox run records of one tenant+scope. State changes are conditional, so racing writers agree. */
export class SandboxRuns extends ScopedRuns<RunDoc> {
  constructor(db: Database, ref: ScopeRef) {
    super(db, runsCollection, ref);
  }

  /** Newest first, below `before` (a run's _id), optionally of one session. */
  async list(opts: { session_id?: string; before?: string; limit: number }): Promise<RunDoc[]> {
    const q: Record<string, unknown> = {};
    if (opts.session_id) q.session_id = opts.session_id;
    if (opts.before) q._id = { $lt: opts.before };
    return this.coll.find(q, { sort: { _id: -1 }, limit: opts.limit });
  }

  /** queued → running, once. Null when the run is not queued any more (cancelled, lost, or already started). */
  async markRunning(runId: string, patch: RunPatch): Promise<RunDoc | null> {
    return this.coll.findOneAndUpdate({ run_id: runId, status: 'queued' }, { $set: { ...patch, status: 'running' }, $inc: { attempts: 1 } });
  }

  /** Ends an open run. Null when it had already ended: the first ending wins. */
  async finish(runId: string, patch: RunPatch & { status: RunDoc['status'] }): Promise<RunDoc | null> {
    return this.coll.findOneAndUpdate({ run_id: runId, status: { $in: OPEN } }, { $set: patch });
  }

  /** Progress of an open run (log and output counters). */
  async progress(runId: string, patch: RunPatch): Promise<void> {
    await this.coll.updateOne({ run_id: runId, status: 'running' }, { $set: patch });
  }

  async requestCancel(runId: string, reason: string | null, at: string): Promise<RunDoc | null> {
    return this.coll.findOneAndUpdate({ run_id: runId, status: { $in: OPEN } }, { $set: { cancel_requested: true, cancel_reason: reason, updated_at: at } });
  }
}
