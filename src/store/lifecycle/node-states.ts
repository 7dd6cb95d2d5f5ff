import type { Filter } from 'mongodb';
import type { NodeKind, Tier } from '../../domain/memory/node';
import type { Database } from '../database';
import { nodesCollection, type NodeDoc } from '../memory/nodes';

/**
 * The few fields of a node the forgetting summary counts by (tier, kind and the two lifecycle
 * slots), read for every scope at once. Used once at start to build the in-process forgetting
 * view; after that the view follows the memory change feed (NodeStore.changesSince).
 */
export interface NodeState {
  id: string;
  tenant_id: string;
  scope: string;
  tier: Tier;
  kind: NodeKind | null;
  seq: number;
  slots: Record<string, unknown>;
}

const PROJECTION = {
  _id: 1,
  tenant_id: 1,
  scope: 1,
  tier: 1,
  kind: 1,
  seq: 1,
  'slots.semantic_forgetting_v1.action': 1,
  'slots.semantic_forgetting_v1.lifecycle_state': 1,
  'slots.archive_relocation_v1.relocation_state': 1,
  'slots.archive_relocation_v1.relocation_target': 1,
  'slots.archive_relocation_v1.payload_scope': 1,
} as const;

/**
 * Every node of every scope, projected (a start-up scan, never on a request path). Read in bounded
 * pages in seq order on the seq index: the local MongoDB-compatible server materialises a whole
 * result (and sorts it in memory when no index serves the sort), so one unbounded sorted scan of
 * 100k nodes exhausts its heap (see store/memory/change-feed.ts, scanForIndex). Every node has
 * exactly one current seq, so each appears once; the view is order-independent.
 */
export async function* scanNodeStates(db: Database, pageSize = 1000): AsyncGenerator<NodeState> {
  const raw = db.raw<NodeDoc>(nodesCollection);
  for (let last = 0; ; ) {
    const page = await raw
      .find({ seq: { $gt: last } } as Filter<NodeDoc & { tenant_id: string; scope: string }>, { projection: PROJECTION })
      .sort({ seq: 1 })
      .limit(pageSize)
      .toArray();
    for (const d of page) {
      const doc = d as unknown as { _id: string; tenant_id: string; scope: string; tier: Tier; kind?: NodeKind | null; seq: number; slots?: Record<string, unknown> };
      yield { id: doc._id, tenant_id: doc.tenant_id, scope: doc.scope, tier: doc.tier, kind: doc.kind ?? null, seq: doc.seq, slots: doc.slots ?? {} };
    }
    if (page.length < pageSize) break;
    last = (page[page.length - 1] as unknown as { seq: number }).seq;
  }
}
