import type { MemoryEdge, MemoryNode, NodeRevision } from '../../model/memory/node';
import { defineCollection } from '../database';

/** How nodes, revisions and edges are stored, and the collections with their indexes. */

/** A node as stored: `_id` instead of `id`, and `client_key` (client_id, or `~<id>` without one). */
export type NodeDoc = Omit<MemoryNode, 'id'> & { _id: string; client_key: string };
export type StoredNode = MemoryNode & { tenant_id: string; scope: string };
export type RevisionDoc = NodeRevision & { _id: string };
export type EdgeDoc = Omit<MemoryEdge, 'id'> & { _id: string };

export const nodesCollection = defineCollection({
  name: 'memory_nodes',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, client_key: 1 },
      unique: true,
      name: 'scope_client_key',
      // client_key is always present (client_id, or ~<id>), so the unique index needs no partial filter,
      // which the local server does not support.
      why: 'client_id idempotency and resolve by client_id',
    },
    {
      key: { tenant_id: 1, scope: 1, _id: 1 },
      name: 'scope_id',
      // The local server serves unique indexes for exact matches only; ranges and sorts need this one.
      why: 'find pagination (_id > cursor in id order) and full-scope scans (packs, lifecycle)',
    },
    { key: { seq: 1 }, name: 'seq', why: 'other processes catch up on seq > watermark, and re-read holes by seq $in' },
    {
      key: { tenant_id: 1, scope: 1, kind: 1, _id: 1 },
      name: 'scope_kind_id',
      why: 'learning reads the workflows, patterns and policies of a scope; sessions/list pages kind=session in id order',
    },
  ],
});

export const revisionsCollection = defineCollection({
  name: 'memory_node_revisions',
  // Uniqueness comes from _id (`<node_id>:<revision>`); this index is non-unique so the local server
  // can serve the node_id prefix in revision order.
  indexes: [{ key: { tenant_id: 1, scope: 1, node_id: 1, revision: 1 }, name: 'node_revision', why: 'resolve lists a node’s history' }],
});

export const edgesCollection = defineCollection({
  name: 'memory_edges',
  indexes: [
    // _id last: edges of one node come back in id order and `_id > cursor` pages through them.
    { key: { tenant_id: 1, scope: 1, src: 1, _id: 1 }, name: 'scope_src_id', why: 'edges out of a node (resolve, packs)' },
    { key: { tenant_id: 1, scope: 1, dst: 1, _id: 1 }, name: 'scope_dst_id', why: 'edges into a node (resolve; the events of a session, in order)' },
  ],
});

export function toNode(doc: NodeDoc & { tenant_id?: string; scope?: string }): StoredNode {
  const { _id, client_key: _ck, ...rest } = doc;
  return { id: _id, ...(rest as Omit<MemoryNode, 'id'>), tenant_id: doc.tenant_id ?? '', scope: doc.scope ?? '' };
}
