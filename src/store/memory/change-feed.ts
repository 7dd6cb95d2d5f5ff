import type { Database } from '../database';
import { prefetchedPages } from '../pages';
import { nodesCollection, toNode, type NodeDoc, type StoredNode } from './node-docs';

/**
 * The cross-scope change feed of the node store: what catch-up and the start-up index build
 * read. Every query is index-served and bounded (see scanForIndex for why that matters on the
 * local MongoDB-compatible server).
 */

/** Fields the in-process recall index needs; the rest stays in the store. */
export const INDEX_PROJECTION = {
  _id: 1,
  tenant_id: 1,
  scope: 1,
  client_id: 1,
  type: 1,
  kind: 1,
  tier: 1,
  title: 1,
  text: 1,
  summary: 1,
  tags: 1,
  importance: 1,
  seq: 1,
  created_at: 1,
  // Whether the lifecycle operator retired the node (recall leaves retired nodes out).
  'slots.semantic_forgetting_v1.lifecycle_state': 1,
} as const;

const SEQ_PROJECTION = { _id: 1, seq: 1, tenant_id: 1, scope: 1 } as const;

type ScopedNodeDoc = NodeDoc & { tenant_id: string; scope: string };

/** Where a change is: enough for catch-up to decide whether it must load the node. */
export interface SeqRef {
  id: string;
  seq: number;
  tenant_id: string;
  scope: string;
}

export type IndexedNodeFields = Pick<
  StoredNode,
  'id' | 'tenant_id' | 'scope' | 'client_id' | 'type' | 'kind' | 'tier' | 'title' | 'text' | 'summary' | 'tags' | 'importance' | 'seq' | 'created_at'
> & {
  slots?: Record<string, unknown>;
};

/** Nodes of every scope changed after `afterSeq`, in seq order (for in-process index catch-up). */
export async function changesSince(db: Database, afterSeq: number, limit: number): Promise<StoredNode[]> {
  const docs = await db.findAll<ScopedNodeDoc>(nodesCollection, { filter: { seq: { $gt: afterSeq } }, sort: { seq: 1 }, limit });
  return docs.map(toNode);
}

/** Nodes of every scope whose current seq is one of `seqs` (re-reading catch-up holes; seq index, $in). */
export async function changesAt(db: Database, seqs: number[]): Promise<StoredNode[]> {
  if (seqs.length === 0) return [];
  const docs = await db.findAll<ScopedNodeDoc>(nodesCollection, { filter: { seq: { $in: seqs } } });
  return docs.map(toNode);
}

/** {id, seq, tenant_id, scope} of nodes changed after `afterSeq`, in seq order: what catch-up checks before loading anything. */
export async function seqsSince(db: Database, afterSeq: number, limit: number): Promise<SeqRef[]> {
  const docs = await db.findAll<ScopedNodeDoc>(nodesCollection, { filter: { seq: { $gt: afterSeq } }, projection: SEQ_PROJECTION, sort: { seq: 1 }, limit });
  return docs.map((d) => ({ id: d._id, seq: d.seq, tenant_id: d.tenant_id, scope: d.scope }));
}

/** {id, seq, tenant_id, scope} of nodes whose current seq is one of `seqs`. */
export async function seqsAt(db: Database, seqs: number[]): Promise<SeqRef[]> {
  if (seqs.length === 0) return [];
  const docs = await db.findAll<ScopedNodeDoc>(nodesCollection, { filter: { seq: { $in: seqs } }, projection: SEQ_PROJECTION });
  return docs.map((d) => ({ id: d._id, seq: d.seq, tenant_id: d.tenant_id, scope: d.scope }));
}

/** Nodes of any scope by id (exact _id lookups), for applying changes found by seqsSince/seqsAt. */
export async function byIds(db: Database, ids: string[], projection?: Record<string, 1>): Promise<StoredNode[]> {
  if (ids.length === 0) return [];
  const docs = await db.findAll<ScopedNodeDoc>(nodesCollection, { filter: { _id: { $in: ids } }, projection });
  return docs.map(toNode);
}

/**
 * Every node of every scope, scope by scope in id order (= creation order: ids are UUIDv7), with
 * only the fields the recall index needs. Used once at start to build the in-process index;
 * creation order matters because recall's sequence context uses write order.
 *
 * Every query is a bounded page served by an index: the local MongoDB-compatible server
 * materialises a result before returning it, so one unbounded scan (or an in-memory sort) of
 * 100k nodes exhausts its heap. First the scopes are listed from {tenant_id, scope} pages in seq
 * order, then each scope is read in pages on its (tenant_id, scope, _id) index. Pages are small
 * (300) because each page's documents live until indexed: larger pages raise the API process's
 * peak memory while the index is built (measured at 100k nodes: ~270 MB RSS with 2,000, ~230 MB with 300).
 */
export async function* scanForIndex(db: Database, pageSize = 300): AsyncGenerator<IndexedNodeFields> {
  type Raw = NodeDoc & { tenant_id: string; scope: string; seq: number };
  const scopes = new Map<string, { tenant_id: string; scope: string }>();
  const seqPages = prefetchedPages<Raw>(
    (last) => db.findAll<Raw>(nodesCollection, { filter: { seq: { $gt: last?.seq ?? 0 } }, projection: { tenant_id: 1, scope: 1, seq: 1 }, sort: { seq: 1 }, limit: pageSize }),
    pageSize,
  );
  for await (const page of seqPages) {
    for (const d of page) scopes.set(`${d.tenant_id}\u0000${d.scope}`, { tenant_id: d.tenant_id, scope: d.scope });
  }
  for (const ref of scopes.values()) {
    const pages = prefetchedPages<Raw>((last) => {
      const filter: Record<string, unknown> = { tenant_id: ref.tenant_id, scope: ref.scope };
      if (last) filter._id = { $gt: last._id };
      return db.findAll<Raw>(nodesCollection, { filter, projection: INDEX_PROJECTION, sort: { _id: 1 }, limit: pageSize });
    }, pageSize);
    for await (const page of pages) {
      for (const d of page) {
        const { _id, ...rest } = d as unknown as Record<string, unknown> & { _id: string };
        yield { id: _id, ...(rest as Omit<IndexedNodeFields, 'id'>) };
      }
    }
  }
}
