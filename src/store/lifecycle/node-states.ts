import type { NodeKind, Tier } from '../../model/memory/node';
import type { Database } from '../database';
import { prefetchedPages } from '../pages';
import { nodesCollection, type NodeDoc } from '../memory/nodes';

/**
 * The few fields of a node the forgetting summary counts by (tier, kind, the two lifecycle slots,
 * and the feedback counters that say how to count a node no operator run has decided yet), read
 * for every scope at once: once at start to build the in-process forgetting view, then as the
 * view's change feed (nodeStatesSince / nodeStatesAt). The feed is projected too: the
 * view re-reads every node written since its last catch-up, and whole nodes (a few KB each, the
 * slots and text) cost the server its reply encoding and this process its decoding for nothing.
 */
export interface NodeState {
  id: string;
  tenant_id: string;
  scope: string;
  tier: Tier;
  kind: NodeKind | null;
  seq: number;
  slots: Record<string, unknown>;
  /** Feedback counters: the lifecycle state of a node no operator run has decided yet. */
  feedback: { positive: number; negative: number };
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
  'feedback.positive': 1,
  'feedback.negative': 1,
} as const;

type Raw = NodeDoc & { tenant_id: string; scope: string };

function toState(d: unknown): NodeState {
  const doc = d as {
    _id: string;
    tenant_id: string;
    scope: string;
    tier: Tier;
    kind?: NodeKind | null;
    seq: number;
    slots?: Record<string, unknown>;
    feedback?: { positive?: number; negative?: number };
  };
  const feedback = { positive: doc.feedback?.positive ?? 0, negative: doc.feedback?.negative ?? 0 };
  return { id: doc._id, tenant_id: doc.tenant_id, scope: doc.scope, tier: doc.tier, kind: doc.kind ?? null, seq: doc.seq, slots: doc.slots ?? {}, feedback };
}

/** States of nodes of every scope changed after `afterSeq`, ascending by seq, at most `limit` (seq index). */
export async function nodeStatesSince(db: Database, afterSeq: number, limit: number): Promise<NodeState[]> {
  const page = await db.findAll<Raw>(nodesCollection, { filter: { seq: { $gt: afterSeq } }, projection: PROJECTION, sort: { seq: 1 }, limit });
  return page.map(toState);
}

/** States of nodes of every scope whose current seq is one of `seqs` (seq index, `$in`). */
export async function nodeStatesAt(db: Database, seqs: number[]): Promise<NodeState[]> {
  if (seqs.length === 0) return [];
  const page = await db.findAll<Raw>(nodesCollection, { filter: { seq: { $in: seqs } }, projection: PROJECTION });
  return page.map(toState);
}

/**
 * Every node of every scope, projected (a start-up scan, never on a request path). Read in bounded
 * pages in seq order on the seq index: the local MongoDB-compatible server materialises a whole
 * result (and sorts it in memory when no index serves the sort), so one unbounded sorted scan of
 * 100k nodes exhausts its heap (see store/memory/change-feed.ts, scanForIndex). Every node has
 * exactly one current seq, so each appears once; the view is order-independent.
 */
export async function* scanNodeStates(db: Database, pageSize = 1000): AsyncGenerator<NodeState> {
  for await (const page of prefetchedPages<NodeState>((last) => nodeStatesSince(db, last?.seq ?? 0, pageSize), pageSize)) yield* page;
}
