// Sequence-context re-ranking for conversational / episodic memory.
//
// A memory written as part of a sequence (dialogue turns, steps of one run) is often
// only understandable with its neighbours: "Luna and Oliver!" answers the question in
// the turn before it. Given a first-pass ranking with scores and the write order of the
// documents, every candidate gets a share of the best score among its neighbours:
//
//   score'(d) = score(d) + weight * max_{0 < |pos(n) - pos(d)| <= window} decay^(|pos(n)-pos(d)|-1) * score(n)
//
// Candidates are the first-pass hits plus, when `idAt` is given, their neighbours; a
// neighbour's own score comes from `scoreOf` (e.g. its exact BM25 score), or 0.
// Positions come from the caller (e.g. write order within one tenant+scope); documents
// without a position keep their score.

export interface ContextHit {
  docId: string;
  score: number;
}

export interface ContextOptions {
  /** Share of the neighbour score added (default 0.3). 0 disables. */
  weight?: number;
  /** Neighbours considered on each side (default 2). */
  window?: number;
  /** Multiplier per extra step of distance (default 1: flat). */
  decay?: number;
}

export interface ContextResult extends ContextHit {
  /** The document's own score (first pass or scoreOf). */
  base: number;
  /** The added neighbour share. */
  context: number;
}

export function contextRerank(
  hits: ContextHit[],
  positionOf: (docId: string) => number | undefined,
  options: ContextOptions = {},
  idAt?: (position: number) => string | undefined,
  scoreOf?: (docId: string) => number,
): ContextResult[] {
  const weight = options.weight ?? 0.3;
  const window = Math.max(1, Math.floor(options.window ?? 2));
  const decay = options.decay ?? 1;
  if (weight <= 0 || hits.length === 0) {
    return hits.map((h) => ({ docId: h.docId, score: h.score, base: h.score, context: 0 }));
  }
  const own = new Map<string, number>();
  const pos = new Map<string, number | undefined>();
  const byPos = new Map<number, number>(); // position -> own score
  for (const h of hits) {
    if (own.has(h.docId)) continue;
    own.set(h.docId, h.score);
    const p = positionOf(h.docId);
    pos.set(h.docId, p);
    if (p !== undefined) byPos.set(p, h.score);
  }
  if (idAt) {
    const seeds = [...byPos.keys()];
    for (const p of seeds) {
      for (let d = -window; d <= window; d += 1) {
        if (d === 0 || byPos.has(p + d)) continue;
        const id = idAt(p + d);
        if (id === undefined || own.has(id)) continue;
        const s = scoreOf ? scoreOf(id) : 0;
        own.set(id, s);
        pos.set(id, p + d);
        byPos.set(p + d, s);
      }
    }
  }
  const out: ContextResult[] = [];
  for (const [docId, base] of own) {
    const p = pos.get(docId);
    let best = 0;
    if (p !== undefined) {
      for (let d = -window; d <= window; d += 1) {
        if (d === 0) continue;
        const n = byPos.get(p + d);
        if (n !== undefined) {
          const s = n * decay ** (Math.abs(d) - 1);
          if (s > best) best = s;
        }
      }
    }
    const context = weight * best;
    out.push({ docId, score: base + context, base, context });
  }
  out.sort((a, b) => b.score - a.score || (a.docId < b.docId ? -1 : a.docId > b.docId ? 1 : 0));
  return out;
}
