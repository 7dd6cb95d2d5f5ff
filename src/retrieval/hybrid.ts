// Hybrid retrieval: BM25 (+ feedback + sequence context) and, when vectors exist, exact
// cosine search, fused by reciprocal rank fusion, with a per-result score breakdown that
// the recall API can return as `score_breakdown`.

import { RECALL_DEFAULTS } from './defaults';
import { rrfFuse } from './fuse';
import type { SearchHit, SearchOptions } from './lexical-index';
import type { LexicalSearchable } from './multi-search';
import type { VectorIndex } from './vector-index';
import type { RecallStrategy } from '../model/memory/vocabulary';

export interface HybridQuery {
  text: string;
  /** Query embedding; omit (or null) for lexical-only ranking. */
  vector?: ArrayLike<number> | null;
  limit?: number;
  filter?: (docId: string) => boolean;
  /** The filter by document number (indexes sharing one id table); wins over `filter`. */
  keyFilter?: (key: number) => boolean;
}

export interface HybridOptions {
  search?: SearchOptions;
  /** RRF constant (default 60). */
  rrfK?: number;
  /** RRF weights [lexical, vector] (default RECALL_DEFAULTS.rrfWeights). */
  weights?: [number, number];
  /** Candidates taken from each list before fusion (default max(limit, 20)). */
  depth?: number;
}

export interface ScoreBreakdown {
  strategy: RecallStrategy;
  bm25: { rank: number; score: number; bm25: number; context: number } | null;
  vector: { rank: number; score: number } | null;
  fused: number | null;
}

export interface HybridHit {
  docId: string;
  /** The document's number in the id table the indexes share (the lexical index's, otherwise). */
  key: number;
  score: number;
  breakdown: ScoreBreakdown;
}

export function hybridSearch(lexical: LexicalSearchable, vectors: VectorIndex | null, query: HybridQuery, options: HybridOptions = {}): HybridHit[] {
  const limit = Math.max(1, Math.floor(query.limit ?? 10));
  const depth = Math.max(limit, options.depth ?? 20);
  const search: SearchOptions = { ...(options.search ?? RECALL_DEFAULTS.search), limit: depth };
  if (query.filter) search.filter = query.filter;
  if (query.keyFilter) search.keyFilter = query.keyFilter;
  const lexBreak = (h: SearchHit, rank: number): ScoreBreakdown['bm25'] => ({ rank, score: h.score, bm25: h.bm25 ?? h.score, context: h.context ?? 0 });
  const useVectors = Boolean(vectors && query.vector && vectors.size > 0 && query.vector.length === vectors.dim);
  if (!useVectors) {
    return lexical.search(query.text, { ...search, limit }).map((h, i) => ({
      docId: h.docId,
      key: h.key,
      score: h.score,
      breakdown: { strategy: 'bm25', bm25: lexBreak(h, i + 1), vector: null, fused: null },
    }));
  }

  // Sequence context stays inside the lexical ranking: applying it to the flat RRF scores
  // after fusion was measured to be worse on LoCoMo.
  const lex = lexical.search(query.text, search);
  const vec = (vectors as VectorIndex).search(query.vector as ArrayLike<number>, { limit: depth, filter: query.filter, keyFilter: query.keyFilter });
  const keys = new Map<string, number>();
  for (const h of vec) keys.set(h.docId, h.key);
  for (const h of lex) keys.set(h.docId, h.key);
  const fused = rrfFuse([lex, vec], { k: options.rrfK ?? RECALL_DEFAULTS.rrfK, weights: options.weights ?? RECALL_DEFAULTS.rrfWeights });
  const lexRank = new Map(lex.map((h, i) => [h.docId, { h, rank: i + 1 }]));
  return fused.slice(0, limit).map((o) => {
    const l = lexRank.get(o.docId);
    const v = o.components[1];
    return {
      docId: o.docId,
      key: keys.get(o.docId) as number,
      score: o.score,
      breakdown: {
        strategy: 'hybrid_rrf',
        bm25: l ? lexBreak(l.h, l.rank) : null,
        vector: v && v.rank !== null && v.score !== null ? { rank: v.rank, score: v.score } : null,
        fused: o.score,
      },
    };
  });
}
