import { USE_DENSE, type DenseProfile } from './score';

/**
 * The dense side of the family index (docs/learning.md, "Learning index"): each embedded family's
 * phrasing vectors and centroid, the hub sums of hub scoring, and where a query's dense look
 * starts. Up to DENSE_EXACT_LIMIT embedded families a query scores every one of them (exactly
 * what the rule in score.ts was calibrated on); above it, the phrasing vectors are kept in
 * inverted lists around centroids (an IVF index: each vector in the list of its nearest centroid,
 * lists split when they grow) and a query scores the families of the lists nearest to it, so its
 * cost follows the lists' sizes, not the scope's.
 */

export const DENSE_EXACT_LIMIT = 2048;
/** A query reads at least this many phrasing vectors, from at least PROBE_MIN_LISTS lists. */
const PROBE_MIN_VECTORS = 512;
const PROBE_MIN_LISTS = 4;
/** A list holding more than this many vectors is split in two (2-means). */
const LIST_MAX = 256;

export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i]! * b[i]!;
  return s;
}

export function unitVector(v: Float32Array | number[]): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
  return Float32Array.from(v, (x) => x * inv);
}

/** Unit mean of vectors. */
export function centroidOf(vectors: readonly Float32Array[]): Float32Array | null {
  if (vectors.length === 0) return null;
  const c = new Float32Array(vectors[0]!.length);
  for (const v of vectors) if (v.length === c.length) for (let i = 0; i < c.length; i += 1) c[i]! += v[i]!;
  return unitVector(c);
}

/** The best cosine between a query vector and any of a family's phrasing vectors. */
export function maxCosine(q: Float32Array, vectors: readonly Float32Array[]): number {
  let best = -1;
  for (const v of vectors) best = Math.max(best, dot(q, v));
  return best;
}

/**
 * The best dense score and its move, and the runner-up: the best score among families with a
 * different move (score.ts denseSimilarity measures a family's lead against it). A family's rival
 * is the best score among the *other* moves: the runner-up for the leader's move, the leader for
 * every other move, whichever of several tied leaders is taken.
 */
export function leaders(cos: Iterable<{ cos: number; key: string }>): { best: { cos: number; key: string } | null; second: number | null } {
  const all = [...cos];
  let best: { cos: number; key: string } | null = null;
  for (const c of all) if (!best || c.cos > best.cos) best = c;
  let second: number | null = null;
  for (const c of all) if (best && c.key !== best.key && (second === null || c.cos > second)) second = c.cos;
  return { best, second };
}

/** Each family's runner-up (see leaders). */
export function runnerUps(cos: ReadonlyMap<string, { cos: number; key: string }>): Map<string, number | null> {
  const { best, second } = leaders(cos.values());
  const out = new Map<string, number | null>();
  for (const [id, c] of cos) out.set(id, best && c.key === best.key ? second : best!.cos);
  return out;
}

interface Embedded {
  vectors: Float32Array[];
  /** Unit mean of the phrasing vectors (hub scoring only uses it). */
  centroid: Float32Array | null;
  /** Cached hub value (mean cosine of the centroid to every other embedded family) and the version it was computed at. */
  hub?: { version: number; value: number };
}

interface List {
  centroid: Float32Array;
  sum: Float64Array;
  /** (family id, phrasing number) of each vector in the list. */
  members: { id: string; k: number }[];
}

export class DenseFamilies {
  profile: DenseProfile = USE_DENSE;
  private readonly docs = new Map<string, Embedded>();
  /** Sum of the embedded families' centroids and their number: each family's hub value in O(dim). */
  private hubSum: Float64Array | null = null;
  private hubCount = 0;
  private hubVersion = 0;
  /** The inverted lists (null while the scope is small enough to scan) and the lists each family's vectors are in. */
  private lists: List[] | null = null;
  private readonly listsOf = new Map<string, Set<List>>();

  get size(): number {
    return this.docs.size;
  }

  /** Whether queries read inverted lists (the scope outgrew the exact scan). */
  get approximate(): boolean {
    return this.lists !== null;
  }

  has(id: string): boolean {
    return this.docs.has(id);
  }

  vectorsOf(id: string): Float32Array[] | null {
    return this.docs.get(id)?.vectors ?? null;
  }

  /** A family's phrasing vectors; `centroidFrom` (default: all of them) are the ones its centroid is the mean of. */
  set(id: string, vectors: Float32Array[], centroidFrom: readonly Float32Array[] = vectors): void {
    this.delete(id);
    const centroid = centroidOf(centroidFrom.length > 0 ? centroidFrom : vectors);
    this.docs.set(id, { vectors, centroid });
    if (centroid) this.hubUpdate(centroid, 1);
    if (this.lists) vectors.forEach((v, k) => this.assign(id, k, v));
    else if (this.docs.size > DENSE_EXACT_LIMIT) this.buildLists();
  }

  delete(id: string): void {
    const d = this.docs.get(id);
    if (!d) return;
    if (d.centroid) this.hubUpdate(d.centroid, -1);
    for (const l of this.listsOf.get(id) ?? []) {
      l.members = l.members.filter((m) => {
        if (m.id !== id) return true;
        const v = d.vectors[m.k]!;
        for (let i = 0; i < v.length; i += 1) l.sum[i]! -= v[i]!;
        return false;
      });
      if (l.members.length > 0) l.centroid = unitVector(Float32Array.from(l.sum));
    }
    this.listsOf.delete(id);
    this.docs.delete(id);
  }

  private hubUpdate(c: Float32Array, sign: 1 | -1): void {
    if (!this.hubSum || this.hubSum.length !== c.length) {
      if (sign < 0) return;
      this.hubSum = new Float64Array(c.length);
      this.hubCount = 0;
    }
    for (let i = 0; i < c.length; i += 1) this.hubSum[i]! += sign * c[i]!;
    this.hubCount += sign;
    this.hubVersion += 1;
  }

  /** Mean cosine of a family's centroid to every other embedded family's (0 with fewer than two). */
  private hub(d: Embedded): number {
    const c = d.centroid;
    if (!c || !this.hubSum || this.hubSum.length !== c.length || this.hubCount < 2) return 0;
    if (d.hub?.version === this.hubVersion) return d.hub.value;
    let s = 0;
    let self = 0;
    for (let i = 0; i < c.length; i += 1) {
      s += c[i]! * this.hubSum[i]!;
      self += c[i]! * c[i]!;
    }
    const value = (s - self) / (this.hubCount - 1);
    d.hub = { version: this.hubVersion, value };
    return value;
  }

  /**
   * The query's dense score of one family: its best phrasing cosine, or with hub scoring
   * (score.ts, DenseProfile) the mean of that and the centroid cosine minus the family's hub value.
   * Null when the family has no vectors.
   */
  score(id: string, q: Float32Array): number | null {
    const d = this.docs.get(id);
    if (!d) return null;
    let cos = maxCosine(q, d.vectors);
    if (this.profile.scoring === 'hub' && d.centroid) cos = 0.5 * cos + 0.5 * dot(q, d.centroid) - this.hub(d);
    return cos;
  }

  /** The families a query's dense look covers, with their scores: every one (exact scan), or those of the nearest lists. */
  nearest(q: Float32Array): Map<string, number> {
    return this.scores(q, this.lists ? this.probe(q) : this.docs.keys());
  }

  /** Every embedded family, scored (a query that must see all of them). */
  all(q: Float32Array): Map<string, number> {
    return this.scores(q, this.docs.keys());
  }

  private scores(q: Float32Array, ids: Iterable<string>): Map<string, number> {
    const out = new Map<string, number>();
    for (const id of ids) out.set(id, this.score(id, q)!);
    return out;
  }

  private probe(q: Float32Array): Set<string> {
    const lists = this.lists!;
    const order = lists.map((l, i) => ({ i, s: dot(q, l.centroid) })).sort((a, b) => b.s - a.s || a.i - b.i);
    const ids = new Set<string>();
    let read = 0;
    for (let n = 0; n < order.length; n += 1) {
      if (n >= PROBE_MIN_LISTS && read >= PROBE_MIN_VECTORS) break;
      const l = lists[order[n]!.i]!;
      for (const m of l.members) ids.add(m.id);
      read += l.members.length;
    }
    return ids;
  }

  /** First lists when the scope outgrows the exact scan: one list per LIST_MAX/2 vectors, seeded evenly, one assignment pass. */
  private buildLists(): void {
    const all: { id: string; k: number; v: Float32Array }[] = [];
    for (const [id, d] of this.docs) d.vectors.forEach((v, k) => all.push({ id, k, v }));
    if (all.length === 0) return;
    const count = Math.max(1, Math.ceil(all.length / (LIST_MAX / 2)));
    const step = all.length / count;
    this.lists = Array.from({ length: count }, (_, i) => {
      const seed = all[Math.floor(i * step)]!.v;
      return { centroid: Float32Array.from(seed), sum: new Float64Array(seed.length), members: [] };
    });
    for (const e of all) this.assign(e.id, e.k, e.v);
  }

  private assign(id: string, k: number, v: Float32Array): void {
    const lists = this.lists!;
    let best = -1;
    let bestS = -Infinity;
    for (let i = 0; i < lists.length; i += 1) {
      if (lists[i]!.sum.length !== v.length) continue; // another encoder's dimension
      const s = dot(v, lists[i]!.centroid);
      if (s > bestS) (bestS = s), (best = i);
    }
    if (best < 0) return;
    const l = lists[best]!;
    l.members.push({ id, k });
    this.link(id, l);
    for (let i = 0; i < v.length; i += 1) l.sum[i]! += v[i]!;
    l.centroid = unitVector(Float32Array.from(l.sum));
    if (l.members.length > LIST_MAX) this.split(best);
  }

  private link(id: string, l: List): void {
    let set = this.listsOf.get(id);
    if (!set) this.listsOf.set(id, (set = new Set()));
    set.add(l);
  }

  /** Splits an overfull list in two around its two most different members (two 2-means passes). */
  private split(i: number): void {
    const l = this.lists![i]!;
    const vecs = l.members.map((m) => this.docs.get(m.id)!.vectors[m.k]!);
    let a = vecs[0]!;
    let b = vecs.reduce((far, v) => (dot(v, a) < dot(far, a) ? v : far), vecs[0]!);
    let side: boolean[] = [];
    for (let pass = 0; pass < 2; pass += 1) {
      side = vecs.map((v) => dot(v, a) >= dot(v, b));
      const ca = centroidOf(vecs.filter((_, j) => side[j]));
      const cb = centroidOf(vecs.filter((_, j) => !side[j]));
      if (!ca || !cb) return;
      (a = ca), (b = cb);
    }
    const halves = [true, false].map((keep): List => {
      const sum = new Float64Array(l.sum.length);
      const members: List['members'] = [];
      l.members.forEach((m, j) => {
        if (side[j] !== keep) return;
        members.push(m);
        const v = vecs[j]!;
        for (let x = 0; x < v.length; x += 1) sum[x]! += v[x]!;
      });
      return { centroid: unitVector(Float32Array.from(sum)), sum, members };
    });
    if (halves[0]!.members.length === 0 || halves[1]!.members.length === 0) return;
    this.lists![i] = halves[0]!;
    this.lists!.push(halves[1]!);
    // Re-link every member of the old list to the half it went to.
    for (const m of l.members) this.listsOf.get(m.id)?.delete(l);
    for (const h of halves) for (const m of h.members) this.link(m.id, h);
  }
}
