import { mergeCeiling, relevanceCeiling, type KindSignal } from './score';

/**
 * The two pieces of the family index's search (family-index.ts) that decide how much of the index
 * a request reads: which posting lists can still hold a hit, and the best `limit` hits so far.
 */

export interface RankOptions {
  /**
   * Added to a hit's score for ranking only (hit.score stays the score), by the family's class
   * (FamilyIndex classOf): the planner ranks stable workflows a little higher.
   */
  boost?: (cls: string) => number;
  /** Families of these classes only (e.g. live or archived workflows). */
  include?: (cls: string) => boolean;
}

export interface Ranked<H> {
  hit: H;
  rank: number;
}

/** The hits so far, best first (rank, then id); with a limit, only the best `limit`. */
export class TopHits<H extends { id: string; score: number }> {
  private readonly items: Ranked<H>[] = [];

  constructor(
    private readonly limit: number | undefined,
    private readonly boost: ((cls: string) => number) | undefined,
  ) {}

  private static before(a: { rank: number; id: string }, b: { rank: number; id: string }): boolean {
    return a.rank > b.rank || (a.rank === b.rank && a.id < b.id);
  }

  add(hit: H, cls: string): void {
    const r = { hit, rank: hit.score + (this.boost?.(cls) ?? 0) };
    if (!this.limit) {
      this.items.push(r);
      return;
    }
    if (this.items.length >= this.limit && !TopHits.before({ rank: r.rank, id: hit.id }, this.key(this.items[this.items.length - 1]!))) return;
    let i = this.items.length;
    while (i > 0 && TopHits.before({ rank: r.rank, id: hit.id }, this.key(this.items[i - 1]!))) i -= 1;
    this.items.splice(i, 0, r);
    if (this.items.length > this.limit) this.items.pop();
  }

  private key(r: Ranked<H>): { rank: number; id: string } {
    return { rank: r.rank, id: r.hit.id };
  }

  /** The last of a full top `limit` (a family must rank at least this high to enter), else null. */
  worst(): { rank: number; id: string } | null {
    if (!this.limit || this.items.length < this.limit) return null;
    return this.key(this.items[this.items.length - 1]!);
  }

  sorted(): H[] {
    if (!this.limit) this.items.sort((a, b) => b.rank - a.rank || (a.hit.id < b.hit.id ? -1 : 1));
    return this.items.map((r) => r.hit);
  }
}

/**
 * The groups of term postings a request with a task_kind reads: its own kind's (`match`), those
 * of families without a kind (`none`; every family when the request names no kind), and the
 * global ones for families of another kind (`other`, worth reading only when a family of another
 * kind can still reach the threshold on its words).
 */
export type PostingGroup = 'match' | 'none' | 'other';

export interface SearchPlan {
  kind: string | null;
  /**
   * Whether a family of the group not seen yet, which shares only terms whose part of the
   * request's norm is `lexicalMax`, could still score ≥ minScore and rank at least as high as
   * `worst`.
   */
  live(group: PostingGroup, lexicalMax: number, worst: { rank: number } | null): boolean;
}

const KIND_OF_GROUP: Record<PostingGroup, KindSignal> = { match: 'match', none: 'none', other: 'mismatch' };

export function searchPlan(p: { kind: string | null; merge: boolean; minScore: number; maxBoost: number }): SearchPlan {
  const ceiling = p.merge ? mergeCeiling : relevanceCeiling;
  return {
    kind: p.kind,
    live(group, l, worst) {
      const c = ceiling(l, KIND_OF_GROUP[group]);
      return c >= p.minScore && (!worst || c + p.maxBoost >= worst.rank);
    },
  };
}
