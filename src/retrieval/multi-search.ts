/**
 * One BM25 search over several lexical indexes that share an id table (a recall partition's live
 * and archive indexes): scored with the statistics of all of them together (document count,
 * average length, document frequencies summed), so a document scores what it would in one index
 * holding them all, and the hits are merged by score. Pseudo-relevance feedback takes its
 * documents from the merged first pass; sequence context re-ranks each index's hits by that
 * index's own write order (neighbours are documents of the same index). With one non-empty index
 * it is that index's own search.
 */
import { contextRerank } from './context';
import type { CorpusStats, LexicalIndex, SearchHit, SearchOptions } from './lexical-index';
import type { KeyFilter } from './lexical-query';

/** Something recall can search like one lexical index. */
export interface LexicalSearchable {
  search(query: string, options?: SearchOptions): SearchHit[];
}

export function searchAcross(indexes: LexicalIndex[]): LexicalSearchable {
  return { search: (query, options = {}) => searchAll(indexes, query, options) };
}

type Scored = { index: number; key: number; score: number };

const byScore = (a: Scored, b: Scored) => b.score - a.score || a.key - b.key;

function searchAll(all: LexicalIndex[], query: string, options: SearchOptions): SearchHit[] {
  const indexes = all.filter((i) => i.size > 0);
  if (indexes.length <= 1) return (indexes[0] ?? all[0])?.search(query, options) ?? [];
  const first = indexes[0]!;
  const limit = Math.max(1, Math.min(10_000, Math.floor(options.limit ?? 10)));
  const byId = options.filter;
  const filter: KeyFilter | undefined = options.keyFilter ?? (byId ? (k) => byId(first.idOf(k)) : undefined);
  const dfs = new Map<string, number>();
  const stats: CorpusStats = {
    docs: indexes.reduce((n, i) => n + i.size, 0),
    totalLen: indexes.reduce((n, i) => n + i.totalLength, 0),
    df: (term) => {
      let df = dfs.get(term);
      if (df === undefined) {
        df = indexes.reduce((n, i) => n + i.docFreq(term), 0);
        dfs.set(term, df);
      }
      return df;
    },
  };
  let weights = first.queryTermCounts(query);
  for (const term of [...weights.keys()]) if (stats.df(term) === 0) weights.delete(term);
  if (weights.size === 0) return [];
  const queryTerms = weights.size;
  const evaluate = (w: Map<string, number>, k: number, seeds?: Scored[]): Scored[] =>
    indexes
      .flatMap((idx, index) =>
        idx
          .evaluateWith(
            w,
            stats,
            k,
            filter,
            seeds?.filter((s) => s.index === index).map((s) => s.key),
          )
          .map((h) => ({ index, key: h.key, score: h.score })),
      )
      .sort(byScore);

  let seeds: Scored[] | undefined;
  const fb = options.feedback;
  if (fb && queryTerms <= (fb.maxQueryTerms ?? 16)) {
    const docs = evaluate(weights, Math.max(1, fb.docs ?? 5)).slice(0, Math.max(1, fb.docs ?? 5));
    if (docs.length === 0) return [];
    const expansion = feedbackTerms(indexes, docs, stats, Math.max(1, fb.terms ?? 10), fb.maxDocFreq ?? 1);
    const alpha = Math.min(1, Math.max(0, fb.originalWeight ?? 0.7));
    let qTotal = 0;
    for (const w of weights.values()) qTotal += w;
    const merged = new Map<string, number>();
    for (const [t, w] of weights) merged.set(t, (alpha * w) / qTotal);
    for (const [t, w] of expansion) merged.set(t, (merged.get(t) ?? 0) + (1 - alpha) * w);
    weights = merged;
    seeds = docs;
  }

  const hitOf = (s: Scored): SearchHit => ({ docId: first.idOf(s.key), key: s.key, score: s.score });
  const ctx = options.context;
  if (!ctx || queryTerms > (ctx.maxQueryTerms ?? 16)) return evaluate(weights, limit, seeds).slice(0, limit).map(hitOf);
  const depth = Math.max(limit, ctx.depth ?? 20);
  const firstPass = evaluate(weights, depth, seeds);
  const reranked = indexes.flatMap((idx, index) =>
    contextRerank(
      firstPass.filter((s) => s.index === index).map((s) => ({ docId: String(s.key), score: s.score })),
      (k) => idx.positionOfKey(Number(k)),
      { weight: ctx.weight ?? 0.3, window: ctx.window ?? 2, decay: ctx.decay ?? 1 },
      (pos) => {
        const key = idx.keyAtPosition(pos);
        return key !== undefined && (!filter || filter(key)) ? String(key) : undefined;
      },
      (k) => idx.scoreKeyWith(weights, stats, Number(k)),
    ),
  );
  return reranked
    .map((h) => ({ key: Number(h.docId), h }))
    .sort((a, b) => b.h.score - a.h.score || a.key - b.key)
    .slice(0, limit)
    .map(({ key, h }) => ({ docId: first.idOf(key), key, score: h.score, bm25: h.base, context: h.context }));
}

/** Expansion terms (by string, weights summing to 1) from the feedback documents, as LexicalIndex does for one index. */
function feedbackTerms(indexes: LexicalIndex[], docs: Scored[], stats: CorpusStats, count: number, maxDfRatio: number): Map<string, number> {
  const N = stats.docs;
  const maxDf = Math.max(2, Math.floor(maxDfRatio * N));
  const weights = new Map<string, number>();
  const top = Math.max(...docs.map((d) => d.score)) || 1;
  for (const d of docs) {
    const doc = indexes[d.index]!.termsOfKey(d.key);
    if (!doc) continue;
    const len = doc.length || 1;
    const docWeight = Math.exp(d.score - top);
    for (const { term, tf } of doc.terms) {
      const df = stats.df(term);
      if (df < 2 || df > maxDf) continue;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      weights.set(term, (weights.get(term) ?? 0) + docWeight * (tf / len) * idf);
    }
  }
  const best = [...weights.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
  const sum = best.reduce((a, [, v]) => a + v, 0) || 1;
  return new Map(best.map(([t, v]) => [t, v / sum]));
}
