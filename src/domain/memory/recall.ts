import type { Embedder, ScoreBreakdown } from '../../retrieval';
import type { NodeStore, StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import type { AccessRecorder } from './access-recorder';
import type { NodeKind, NodeType, Tier } from '../../model/memory/node';
import type { IndexHit, RecallIndex } from './recall-index';
import type { RecallStrategy } from '../../model/memory/vocabulary';

/**
 * recall_text (contract.md §2): catch up with other processes, rank in the in-process index
 * (BM25 always; vectors when an embedder is configured and the scope has vectors; RRF), weight
 * lightly by importance and tier, load the winners from the store, record access off the
 * critical path.
 *
 * The weighting only re-orders the ranked list the core returned (it never pulls in documents
 * from below the cut), and it is a no-op when importance and tier are uniform, as in a
 * conversation written through one route: the HTTP path keeps the core's ranking quality.
 */

export interface RecallQuery {
  text: string;
  limit: number;
  types?: NodeType[];
  kinds?: NodeKind[];
  tiers?: Tier[];
  tags?: string[];
  include_archived?: boolean;
  /** Nodes the lifecycle operator retired (feedback says they are wrong) are left out unless true. */
  include_retired?: boolean;
  min_score?: number;
  /**
   * Pseudo-relevance feedback (query expansion from the first pass's best hits), on by default.
   * It roughly doubles the lexical cost; callers that only need a few supporting hits (planning)
   * turn it off.
   */
  expand?: boolean;
  /** false: an inspection, not a use; the hits' access statistics (which forgetting weighs) stay as they are. */
  record_access?: boolean;
}

/** The node fields recall loads and returns (what its callers show; not the slots). */
export const RECALL_NODE_FIELDS = ['client_id', 'type', 'kind', 'tier', 'title', 'text', 'summary', 'tags', 'importance', 'created_at', 'updated_at'] as const;
export type RecallNode = Pick<StoredNode, (typeof RECALL_NODE_FIELDS)[number] | 'id' | 'tenant_id' | 'scope'>;

export interface RecallHit {
  node: RecallNode;
  score: number;
  /** Retired by the lifecycle operator (only with include_retired). */
  retired: boolean;
  breakdown: ScoreBreakdown & { weight: { importance: number; tier: Tier; factor: number }; base: number };
}

export interface RecallOutcome {
  hits: RecallHit[];
  strategy: RecallStrategy;
  vector_error: string | null;
  took_ms: number;
}

export interface RecallDeps {
  store: NodeStore;
  index: RecallIndex;
  catchUp: () => Promise<void>;
  embedder: Embedder | null;
  access: AccessRecorder;
  /** Upper bound on waiting for a query embedding before falling back to BM25 alone. */
  embedTimeoutMs?: number;
}

/** Tier factors: a colder node needs a slightly better match to outrank a hot one. */
export const TIER_FACTOR: Record<Tier, number> = { hot: 1, warm: 0.98, cold: 0.95, archive: 0.9 };
/** Importance 0..1 moves a score by at most ±5 %. */
export const IMPORTANCE_WEIGHT = 0.1;

export function weightOf(importance: number, tier: Tier): number {
  return (1 + IMPORTANCE_WEIGHT * (Math.min(1, Math.max(0, importance)) - 0.5)) * TIER_FACTOR[tier];
}

async function embedQuery(embedder: Embedder, text: string, timeoutMs: number): Promise<Float32Array> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      embedder.embed([text]).then((v) => v[0]!),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no query embedding within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

type Ranked = { hits: RecallHit[] };

/** Ranks in the index as it is now, then loads the winners from the store. */
async function rankAndLoad(deps: RecallDeps, ref: ScopeRef, q: RecallQuery, vector: Float32Array | null): Promise<Ranked> {
  const raw = deps.index.search(ref.tenant_id, ref.scope, {
    text: q.text,
    vector,
    limit: q.limit,
    expand: q.expand !== false,
    filter: { types: q.types, kinds: q.kinds, tiers: q.tiers, tags: q.tags, includeArchived: q.include_archived, includeRetired: q.include_retired },
  });
  const weighted = raw
    .map((h: IndexHit, rank) => {
      const factor = weightOf(h.importance, h.tier);
      return { h, rank, score: h.score * factor, factor };
    })
    .sort((a, b) => b.score - a.score || a.rank - b.rank)
    .filter((w) => q.min_score === undefined || w.score >= q.min_score);
  const docs =
    weighted.length > 0
      ? await deps.store.in(ref).getManyFields(
          weighted.map((w) => w.h.docId),
          RECALL_NODE_FIELDS,
        )
      : [];
  const byId = new Map(docs.map((d) => [d.id, d]));
  const hits: RecallHit[] = [];
  for (const w of weighted) {
    const node = byId.get(w.h.docId);
    if (!node) continue;
    hits.push({
      node,
      score: w.score,
      retired: w.h.retired,
      breakdown: { ...w.h.breakdown, base: w.h.score, weight: { importance: w.h.importance, tier: w.h.tier, factor: w.factor } },
    });
  }
  return { hits };
}

/**
 * The catch-up query and the ranking run side by side: the store round trip of the catch-up
 * overlaps the search and the loading of the hits. If the catch-up changed nothing in this
 * tenant+scope (the usual case), the index searched already held every write acknowledged before
 * this read began and the result stands; otherwise the ranking is done again on the caught-up
 * index. Either way the answer includes every acknowledged write, from any process.
 */
export async function recall(deps: RecallDeps, ref: ScopeRef, q: RecallQuery): Promise<RecallOutcome> {
  const t0 = performance.now();
  const versionBefore = deps.index.version(ref.tenant_id, ref.scope);
  const caughtUp = deps.catchUp();
  caughtUp.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
  let vector: Float32Array | null = null;
  let vectorError: string | null = null;
  const dim = deps.embedder ? deps.index.vectorDim(ref.tenant_id, ref.scope) : 0;
  if (deps.embedder && dim > 0) {
    try {
      vector = await embedQuery(deps.embedder, q.text, deps.embedTimeoutMs ?? 3000);
      if (vector.length !== dim) vector = null;
    } catch (err) {
      vectorError = (err as Error).message;
    }
  }
  let ranked = await rankAndLoad(deps, ref, q, vector);
  await caughtUp;
  if (deps.index.version(ref.tenant_id, ref.scope) !== versionBefore) ranked = await rankAndLoad(deps, ref, q, vector);
  if (q.record_access !== false)
    deps.access.record(
      ref,
      ranked.hits.map((h) => h.node.id),
    );
  return {
    hits: ranked.hits,
    strategy: vector ? 'hybrid_rrf' : 'bm25',
    vector_error: vectorError,
    took_ms: Math.round((performance.now() - t0) * 100) / 100,
  };
}
