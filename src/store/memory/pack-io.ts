import type { Filter } from 'mongodb';
import type { MemoryEdge, MemoryNode, NodeRevision } from '../../model/memory/node';
import { duplicateIndexes } from '../mongo-errors';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';
import { edgesCollection, nodesCollection, revisionsCollection, type NodeDoc, type NodeStore } from './nodes';

/**
 * Whole-node writes for pack imports: nodes keep their ids (and every bookkeeping field), so an
 * import is an upsert keyed by node id. Unchanged nodes are left alone (no new seq, so other
 * processes' indexes do nothing); changed and new ones take a fresh seq so they reach every
 * process's index. A node whose client_id is held by a different node of the target scope is a
 * conflict: reported, not overwritten.
 */

type RevisionDoc = NodeRevision & { _id: string };
type EdgeDoc = Omit<MemoryEdge, 'id'> & { _id: string };
export type ImportableNode = Omit<MemoryNode, 'seq'>;

export interface NodeImportResult {
  created: number;
  updated: number;
  unchanged: number;
  conflicts: { id: string; client_id: string | null }[];
}

export class ScopedNodeImport {
  private readonly nodes: ScopedCollection<NodeDoc>;
  private readonly revisions: ScopedCollection<RevisionDoc>;
  private readonly edges: ScopedCollection<EdgeDoc>;

  constructor(
    private readonly store: NodeStore,
    readonly ref: ScopeRef,
    sameContent: (stored: ImportableNode, incoming: ImportableNode) => boolean,
  ) {
    this.nodes = store.db.scoped<NodeDoc>(nodesCollection, ref);
    this.revisions = store.db.scoped<RevisionDoc>(revisionsCollection, ref);
    this.edges = store.db.scoped<EdgeDoc>(edgesCollection, ref);
    this.same = sameContent;
  }

  private readonly same: (stored: ImportableNode, incoming: ImportableNode) => boolean;

  async putNodes(incoming: ImportableNode[]): Promise<NodeImportResult> {
    const result: NodeImportResult = { created: 0, updated: 0, unchanged: 0, conflicts: [] };
    if (incoming.length === 0) return result;
    const existing = await this.nodes.find({ _id: { $in: incoming.map((n) => n.id) } } as Filter<NodeDoc>);
    const byId = new Map(existing.map((d) => [d._id, d]));
    const changed: { node: ImportableNode; isNew: boolean }[] = [];
    for (const n of incoming) {
      const doc = byId.get(n.id);
      if (doc) {
        const { _id, client_key: _ck, seq: _seq, tenant_id: _t, scope: _s, ...rest } = doc as NodeDoc & { tenant_id: string; scope: string };
        if (this.same({ id: _id, ...rest } as ImportableNode, n)) {
          result.unchanged += 1;
          continue;
        }
      }
      changed.push({ node: n, isNew: !doc });
    }
    if (changed.length === 0) return result;
    const first = await this.store.nextSeq(changed.length);
    const ops = changed.map(({ node }, i) => {
      const { id, ...rest } = node;
      const doc: NodeDoc = { _id: id, client_key: node.client_id ?? `~${id}`, ...rest, seq: first + i };
      return { replaceOne: { filter: { _id: id }, replacement: doc, upsert: true } };
    });
    let failed = new Set<number>();
    try {
      await this.nodes.bulkWrite(ops as never, false);
    } catch (err) {
      const dups = duplicateIndexes(err);
      if (dups === null) throw err;
      failed = new Set(dups);
    }
    changed.forEach(({ node, isNew }, i) => {
      if (failed.has(i)) result.conflicts.push({ id: node.id, client_id: node.client_id });
      else if (isNew) result.created += 1;
      else result.updated += 1;
    });
    return result;
  }

  async putRevisions(revisions: NodeRevision[]): Promise<number> {
    if (revisions.length === 0) return 0;
    const ops = revisions.map((r) => {
      const _id = `${r.node_id}:${r.revision}`;
      return { replaceOne: { filter: { _id }, replacement: { _id, ...r }, upsert: true } };
    });
    await this.revisions.bulkWrite(ops as never, false);
    return revisions.length;
  }

  async putEdges(edges: MemoryEdge[]): Promise<number> {
    if (edges.length === 0) return 0;
    const ops = edges.map(({ id, ...e }) => ({ replaceOne: { filter: { _id: id }, replacement: { _id: id, ...e }, upsert: true } }));
    await this.edges.bulkWrite(ops as never, false);
    return edges.length;
  }
}

/** Which of `ids` already belong to a node of another tenant or scope (exact _id lookups; ids only). */
export async function idsHeldElsewhere(store: NodeStore, ref: ScopeRef, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const docs = await store.db
    .raw<NodeDoc>(nodesCollection)
    .find({ _id: { $in: ids } } as Filter<NodeDoc & { tenant_id: string; scope: string }>, { projection: { _id: 1, tenant_id: 1, scope: 1 } })
    .toArray();
  return docs.filter((d) => d.tenant_id !== ref.tenant_id || d.scope !== ref.scope).map((d) => d._id);
}
