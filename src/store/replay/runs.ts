import type { RunDoc } from '../../model/replay/types';
import { type Database, defineCollection } from '../database';
import { ScopedRuns } from '../runs';
import type { ScopeRef } from '../scope';

export const runsCollection = defineCollection({
  name: 'replay_runs',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, run_id: 1 },
      unique: true,
      name: 'scope_run_id',
      why: 'every replay route finds a run by its caller-visible id; one id per scope (run/start is idempotent on it)',
    },
    {
      key: { tenant_id: 1, scope: 1, 'metadata.anchor': 1, _id: 1 },
      name: 'scope_metadata_anchor',
      why: 'the continuity review pack finds the runs of a task by the anchor their metadata names, newest first',
    },
  ],
});

export type RunPatch = Partial<Omit<RunDoc, '_id' | 'run_id' | 'created_at'>>;

/** Replay runs of one tenant+scope. State changes are conditional on the state read, so racing writers agree. */
export class ReplayRuns extends ScopedRuns<RunDoc> {
  constructor(db: Database, ref: ScopeRef) {
    super(db, runsCollection, ref);
  }

  /** The newest runs whose metadata.anchor is `anchor` (the task they belong to). */
  async listByAnchor(anchor: string, limit: number): Promise<RunDoc[]> {
    return this.coll.find({ 'metadata.anchor': anchor } as never, { sort: { _id: -1 }, limit });
  }

  /** open → ended, once. Null when the run had already ended: the first ending wins. */
  async end(key: string, patch: RunPatch): Promise<RunDoc | null> {
    return this.coll.findOneAndUpdate({ _id: key, state: 'open' }, { $set: { ...patch, state: 'ended' } });
  }

  /** Changes fields of an open run (e.g. the playbook version a run resolved when it began). */
  async updateOpen(key: string, patch: RunPatch): Promise<RunDoc | null> {
    return this.coll.findOneAndUpdate({ _id: key, state: 'open' }, { $set: patch });
  }

  async setLearning(key: string, learning: RunDoc['learning'], at: string): Promise<void> {
    await this.coll.updateOne({ _id: key }, { $set: { learning, updated_at: at } });
  }
}
