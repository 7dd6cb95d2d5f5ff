import type { NodeState } from '../../model/automation/graph';
import type { NodeDoc } from '../../model/automation/records';
import { defineCollection, type Database } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

export const runNodesCollection = defineCollection({
  name: 'automation_run_nodes',
  indexes: [{ key: { tenant_id: 1, scope: 1, run_key: 1, order: 1 }, name: 'scope_run_order', why: 'runs/get include_nodes lists a run’s nodes in graph order' }],
});

export type NodePatch = Partial<Omit<NodeDoc, '_id' | 'run_key' | 'node_id' | 'kind' | 'order' | 'seq'>>;

/**
 * One document per (run, node): a run's nodes are written independently by its workflow's
 * mirror activity, and a 200-node run with outputs would not fit one document.
 */
export class AutomationRunNodes {
  private readonly coll: ScopedCollection<NodeDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<NodeDoc>(runNodesCollection, ref);
  }

  async insertMany(docs: NodeDoc[]): Promise<void> {
    await this.coll.insertMany(docs);
  }

  async list(runKey: string): Promise<NodeDoc[]> {
    return this.coll.find({ run_key: runKey }, { sort: { order: 1 } });
  }

  async listIn(runKey: string, states: NodeState[]): Promise<NodeDoc[]> {
    return (await this.list(runKey)).filter((n) => states.includes(n.state));
  }

  /** Mirror writes for several nodes; each applies only when newer than the node's last (seq). */
  async applyMirror(seq: number, changes: { _id: string; patch: Record<string, unknown> }[]): Promise<void> {
    await this.coll.bulkWrite(changes.map((c) => ({ updateOne: { filter: { _id: c._id, seq: { $lt: seq } }, update: { $set: { ...c.patch, seq } } } })) as never, false);
  }

  /** Settles every node still open when the run is ended outside its workflow. */
  async settleOpen(runKey: string, at: string, reason: string): Promise<void> {
    await this.coll.updateMany(
      { run_key: runKey, state: { $in: ['running', 'paused'] } },
      { $set: { state: 'cancelled', finished_at: at, updated_at: at, seq: Number.MAX_SAFE_INTEGER } },
    );
    await this.coll.updateMany({ run_key: runKey, state: 'pending' }, { $set: { state: 'skipped', skip_reason: reason, updated_at: at, seq: Number.MAX_SAFE_INTEGER } });
  }

  async deleteRun(runKey: string): Promise<void> {
    await this.coll.deleteMany({ run_key: runKey });
  }
}
