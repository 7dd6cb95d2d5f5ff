// Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009):
//   fused(d) = sum_i weight_i / (k + rank_i(d)),  rank 1-based; absent lists add nothing.

export interface RankedItem {
  docId: string;
  score: number;
}

export interface FusedComponent {
  /** 1-based rank in this list, or null when the document is absent from it. */
  rank: number | null;
  score: number | null;
  /** This list's contribution to the fused score. */
  contribution: number;
}

export interface FusedItem {
  docId: string;
  score: number;
  /** One entry per input list, in input order. */
  ranks: (number | null)[];
  components: FusedComponent[];
}

export interface RrfOptions {
  /** Rank constant (default 60). */
  k?: number;
  /** Weight per list (default 1 each). */
  weights?: number[];
  /** Keep at most this many results (default: all). */
  limit?: number;
}

export function rrfFuse(lists: RankedItem[][], options: RrfOptions = {}): FusedItem[] {
  const k = options.k ?? 60;
  if (!(k >= 0)) throw new RangeError('rrfFuse: k must be >= 0');
  const weights = options.weights ?? lists.map(() => 1);
  if (weights.length !== lists.length) throw new RangeError('rrfFuse: weights must match lists');
  const byId = new Map<string, FusedItem>();
  lists.forEach((list, li) => {
    const w = weights[li] ?? 1;
    const seen = new Set<string>();
    let rank = 0;
    for (const item of list) {
      if (seen.has(item.docId)) continue; // first occurrence wins
      seen.add(item.docId);
      rank += 1;
      let f = byId.get(item.docId);
      if (!f) {
        f = {
          docId: item.docId,
          score: 0,
          ranks: lists.map(() => null),
          components: lists.map(() => ({ rank: null, score: null, contribution: 0 })),
        };
        byId.set(item.docId, f);
      }
      const c = w / (k + rank);
      f.score += c;
      f.ranks[li] = rank;
      f.components[li] = { rank, score: item.score, contribution: c };
    }
  });
  const out = [...byId.values()].sort((a, b) => b.score - a.score || bestRank(a) - bestRank(b) || (a.docId < b.docId ? -1 : 1));
  return options.limit !== undefined ? out.slice(0, options.limit) : out;
}

function bestRank(f: FusedItem): number {
  let best = Infinity;
  for (const r of f.ranks) if (r !== null && r < best) best = r;
  return best;
}

/** Named score breakdown for API responses, e.g. {bm25: {rank, score}, vector: {...}, fused}. */
export function scoreBreakdown(item: FusedItem, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  names.forEach((name, i) => {
    const c = item.components[i];
    out[name] = c ? { rank: c.rank, score: c.score, contribution: c.contribution } : null;
  });
  out.fused = item.score;
  return out;
}
