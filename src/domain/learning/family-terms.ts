import type { TermStats } from './similarity';

/**
 * The lexical side of the family index (docs/learning.md, "Similarity"): a family's vector is
 * kept as its terms and each one's share of its observations, sqrt(min(1, count/samples)), which
 * do not depend on the scope's statistics; the weights (IDF, generic damping) are looked up at
 * comparison time, and the vector's norm is cached per version of the statistics. The cosine is
 * computed with the same sums in the same order as similarity.ts cosine(queryVector,
 * familyVector), so it is the same number, without building either vector.
 */

export interface FamilyTerms {
  /** The family vector's terms (count > 0, in term_counts order) and their shares. */
  terms: string[];
  shares: Float64Array;
  /** Norm of the family vector at a version of the term statistics. */
  norm: number;
  normAt: number;
}

/** A request's distinct terms (in the order given), their weights and norm, their positions, and their term postings (family id → share). */
export interface PreparedQuery {
  terms: string[];
  weights: number[];
  index: Map<string, number>;
  norm: number;
  postings: (ReadonlyMap<string, number> | undefined)[];
}

export function familyTerms(counts: Record<string, number>, samples: number): FamilyTerms & { all: Map<string, number> } {
  const n = Math.max(1, samples);
  const terms: string[] = [];
  const shares: number[] = [];
  const all = new Map<string, number>();
  for (const [t, c] of Object.entries(counts)) {
    const share = c > 0 ? Math.sqrt(Math.min(1, c / n)) : 0;
    all.set(t, share);
    if (c <= 0) continue;
    terms.push(t);
    shares.push(share);
  }
  return { terms, shares: Float64Array.from(shares), norm: 0, normAt: -1, all };
}

export class TermWeights {
  private weights = new Map<string, number>();
  private at = -1;

  constructor(private readonly stats: TermStats) {}

  /** A term's weight under the current statistics (cached until they change). */
  weight(t: string): number {
    if (this.at !== this.stats.version) {
      this.weights = new Map();
      this.at = this.stats.version;
    }
    let w = this.weights.get(t);
    if (w === undefined) this.weights.set(t, (w = this.stats.weight(t)));
    return w;
  }

  prepare(terms: readonly string[], postingsOf: (t: string) => ReadonlyMap<string, number> | undefined): PreparedQuery {
    const index = new Map<string, number>();
    const distinct: string[] = [];
    const weights: number[] = [];
    for (const t of terms) if (!index.has(t)) index.set(t, distinct.length), distinct.push(t), weights.push(this.weight(t));
    let sq = 0;
    for (const w of weights) sq += w * w;
    return { terms: distinct, weights, index, norm: Math.sqrt(sq), postings: distinct.map(postingsOf) };
  }

  /** The family vector's norm under the current statistics (recomputed only when they changed). */
  normOf(f: FamilyTerms): number {
    if (f.normAt === this.stats.version) return f.norm;
    let s = 0;
    for (let i = 0; i < f.terms.length; i += 1) {
      const w = f.shares[i]! * this.weight(f.terms[i]!);
      s += w * w;
    }
    f.norm = Math.sqrt(s);
    f.normAt = this.stats.version;
    return f.norm;
  }

  /** Lexical cosine of a prepared request and family `id` (whose shares the request's postings hold). */
  cosine(q: PreparedQuery, id: string, f: FamilyTerms): number {
    const fNorm = this.normOf(f);
    if (q.norm === 0 || fNorm === 0) return 0;
    let dot = 0;
    if (q.terms.length <= f.terms.length) {
      for (let j = 0; j < q.terms.length; j += 1) {
        const share = q.postings[j]?.get(id);
        if (share !== undefined) dot += q.weights[j]! * (share * this.weight(q.terms[j]!));
      }
    } else {
      for (let i = 0; i < f.terms.length; i += 1) {
        const at = q.index.get(f.terms[i]!);
        if (at !== undefined) dot += f.shares[i]! * this.weight(f.terms[i]!) * q.weights[at]!;
      }
    }
    return dot / (q.norm * fNorm);
  }

  /**
   * At most the lexical cosine of family `id`, whatever its own norm: the part of the request's
   * norm held by the terms it shares (Cauchy–Schwarz). Cheap: one posting lookup per request term.
   */
  static ceiling(q: PreparedQuery, id: string): number {
    if (q.norm === 0) return 0;
    let shared = 0;
    for (let j = 0; j < q.terms.length; j += 1) if (q.postings[j]?.has(id)) shared += q.weights[j]! ** 2;
    return Math.min(1, Math.sqrt(shared) / q.norm + 1e-9);
  }
}
