import type { Filter } from 'mongodb';
import type { Access } from '../../domain/memory/node';
import { defineCollection, type Database } from '../database';
import { duplicateIndexes } from '../mongo-errors';
import type { ScopeRef } from '../scope';

/**
 * Access statistics (how often recall returned a node, and when last) live apart from node content.
 * Recall records them for every hit, so at recall rates they are the most written thing in the
 * store; as fields of the node document each flush rewrote whole nodes and held the nodes
 * collection's lock while recall's own reads waited behind it (measured at 100k nodes: ~4 ms of
 * server CPU per recall and a p95 tail of 2-3x the median). Here each node has a small document
 * keyed by tenant, scope and node id, in a collection no read of node content waits on.
 *
 * A node's access is its stored `access` (what it was created or imported with) plus what this
 * collection has counted since; `last_at` is the later of the two (see `withAccess`).
 */

export interface AccessDoc {
  _id: string;
  tenant_id: string;
  scope: string;
  node_id: string;
  count: number;
  last_at: string;
}

export const accessCollection = defineCollection({
  name: 'memory_node_access',
  // Lookups are by _id alone (exact, on the unique _id index); the id carries tenant and scope.
  indexes: [],
});

/** The key of a node's access document: one per tenant, scope and node, so scopes never share one. */
export const accessKey = (ref: ScopeRef, nodeId: string) => `${ref.tenant_id}\u001f${ref.scope}\u001f${nodeId}`;

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

export class AccessStore {
  constructor(private readonly db: Database) {}

  private get coll() {
    return this.db.raw<AccessDoc>(accessCollection);
  }

  /**
   * Adds `times` uses at `at` to each node (ids of this scope; an unknown id only costs a small
   * document). One upsert per node, in one command: each is atomic on the server, so processes
   * counting the same node at once all count (a duplicate-key race between two first upserts, which
   * MongoDB can report, is retried once as what it then is, an update).
   */
  async add(ref: ScopeRef, nodeIds: string[], times: number, at: Date): Promise<void> {
    if (nodeIds.length === 0) return;
    const iso = at.toISOString();
    const ops = nodeIds.map((id) => ({
      updateOne: {
        filter: { _id: accessKey(ref, id) } as Filter<AccessDoc>,
        update: { $inc: { count: times }, $max: { last_at: iso }, $setOnInsert: { tenant_id: ref.tenant_id, scope: ref.scope, node_id: id } },
        upsert: true,
      },
    }));
    try {
      await this.coll.bulkWrite(ops, { ordered: false });
    } catch (err) {
      const dups = duplicateIndexes(err);
      // Without per-write detail the failed upserts are unknown (redoing all would count twice).
      if (dups === null || dups.length === 0 || dups.some((i) => ops[i] === undefined)) throw err;
      await this.coll.bulkWrite(dups.map((i) => ops[i]!), { ordered: false });
    }
  }

  /** Counted access per node id of this scope (nodes never recalled are absent). */
  async of(ref: ScopeRef, nodeIds: string[]): Promise<Map<string, Access>> {
    const out = new Map<string, Access>();
    if (nodeIds.length === 0) return out;
    const docs = await this.coll.find({ _id: { $in: nodeIds.map((id) => accessKey(ref, id)) } } as Filter<AccessDoc>).toArray();
    for (const d of docs) if (d.tenant_id === ref.tenant_id && d.scope === ref.scope) out.set(d.node_id, { count: d.count, last_at: d.last_at });
    return out;
  }

  /** `nodes` with their counted access added to the access they were stored with. */
  async withAccess<N extends { id: string; access: Access }>(ref: ScopeRef, nodes: N[]): Promise<N[]> {
    if (nodes.length === 0) return nodes;
    const counted = await this.of(ref, nodes.map((n) => n.id));
    if (counted.size === 0) return nodes;
    return nodes.map((n) => {
      const c = counted.get(n.id);
      if (!c) return n;
      const base = n.access ?? { count: 0, last_at: null };
      return { ...n, access: { count: base.count + c.count, last_at: later(base.last_at, c.last_at) } };
    });
  }
}
