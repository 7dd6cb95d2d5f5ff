import { baseName, cosine, familyVector, filesOverlap, norm, queryVector, TermStats } from '../../src/domain/learning/similarity';
import type { FamilyHit, FamilyQuery } from '../../src/domain/learning/family-index';
import { kindSignal, mergeScore, relevance, USE_DENSE, type DenseProfile, type Signals } from '../../src/domain/learning/score';
import type { FamilySignature } from '../../src/domain/learning/types';

/**
 * The family index as it was before issue 31 (a scan of every family sharing a term, kind or file
 * base name with the request, each family's vector rebuilt per comparison), kept as the reference
 * the indexed search must agree with (test/unit/learning-family-index.test.ts). Search options as
 * the planner used them: `include`/`boost` by class, applied after scoring, then `limit`.
 */
interface Doc<T> {
  sig: FamilySignature;
  value: T;
  /** Unit embeddings of the family's phrasings (its goals and their concatenation); the query's dense cosine is the best of them. */
  vectors: Float32Array[] | null;
  /** Unit mean of the phrasing vectors (hub scoring only uses it). */
  centroid: Float32Array | null;
  /** Cached hub value (mean cosine of the centroid to every other embedded family) and the index version it was computed at. */
  hub?: { version: number; value: number };
}

/** The best cosine between a query vector and any of a family's phrasing vectors. */
function maxCosine(q: Float32Array, vectors: readonly Float32Array[]): number {
  let best = -1;
  for (const v of vectors) best = Math.max(best, dot(q, v));
  return best;
}

/**
 * For each document, the best dense cosine among documents with a different `key` (a different
 * first move): the runner-up its lead is measured against (score.ts, denseSimilarity). One pass
 * keeps the best cosine overall and the best of any other key.
 */
function runnerUps(cos: ReadonlyMap<string, { cos: number; key: string }>): Map<string, number | null> {
  let best: { cos: number; key: string } | null = null;
  for (const c of cos.values()) if (!best || c.cos > best.cos) best = c;
  let second: number | null = null;
  for (const c of cos.values()) if (best && c.key !== best.key && (second === null || c.cos > second)) second = c.cos;
  const out = new Map<string, number | null>();
  for (const [id, c] of cos) out.set(id, best && c.key === best.key ? second : best!.cos);
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let s = 0;
  for (let i = 0; i < a.length; i += 1) s += a[i]! * b[i]!;
  return s;
}

function unitVector(v: Float32Array | number[]): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
  return Float32Array.from(v, (x) => x * inv);
}

/** Unit mean of vectors. */
function centroidOf(vectors: readonly Float32Array[]): Float32Array | null {
  if (vectors.length === 0) return null;
  const c = new Float32Array(vectors[0]!.length);
  for (const v of vectors) if (v.length === c.length) for (let i = 0; i < c.length; i += 1) c[i]! += v[i]!;
  return unitVector(c);
}

export class ReferenceFamilyIndex<T> {
  private readonly docs = new Map<string, Doc<T>>();
  /**
   * How dense scores are computed and judged (score.ts, DenseProfile): set by whoever supplies the
   * vectors (vectors.ts), since the calibration belongs to the encoder.
   */
  denseProfile: DenseProfile = USE_DENSE;
  /** Sum of the embedded families' centroids and their number: each family's hub value in O(dim). */
  private hubSum: Float64Array | null = null;
  private hubCount = 0;
  private hubVersion = 0;
  private readonly byTerm = new Map<string, Set<string>>();
  private readonly byKind = new Map<string, Set<string>>();
  private readonly byFile = new Map<string, Set<string>>();

  /**
   * `moveKey`: what a family would have the caller do first; families with the same key are not
   * each other's runner-up in the dense lead (by default every family is its own key).
   */
  constructor(
    readonly stats: TermStats = new TermStats(),
    private readonly moveKey: (value: T, id: string) => string = (_value, id) => id,
    private readonly classOf: (value: T) => string = () => '',
  ) {}

  get size(): number {
    return this.docs.size;
  }

  get(id: string): T | undefined {
    return this.docs.get(id)?.value;
  }

  *values(): IterableIterator<T> {
    for (const d of this.docs.values()) yield d.value;
  }

  private link(map: Map<string, Set<string>>, key: string, id: string, add: boolean): void {
    let set = map.get(key);
    if (add) {
      if (!set) map.set(key, (set = new Set()));
      set.add(id);
    } else if (set) {
      set.delete(id);
      if (set.size === 0) map.delete(key);
    }
  }

  private postings(id: string, sig: FamilySignature, add: boolean): void {
    for (const t of Object.keys(sig.term_counts)) this.link(this.byTerm, t, id, add);
    if (sig.task_kind) this.link(this.byKind, sig.task_kind, id, add);
    for (const f of sig.files) this.link(this.byFile, baseName(f), id, add);
  }

  /** Adds or replaces a document; the embeddings survive when the caller passes none. */
  put(id: string, sig: FamilySignature, value: T, vectors?: Float32Array[] | null): void {
    const prev = this.docs.get(id);
    if (prev) {
      this.postings(id, prev.sig, false);
      this.stats.remove(Object.keys(prev.sig.term_counts));
    }
    if (vectors && prev?.centroid) this.hubUpdate(prev.centroid, -1);
    const centroid = vectors ? centroidOf(vectors) : (prev?.centroid ?? null);
    if (vectors && centroid) this.hubUpdate(centroid, 1);
    this.docs.set(id, { sig, value, vectors: vectors ?? prev?.vectors ?? null, centroid });
    this.postings(id, sig, true);
    this.stats.add(Object.keys(sig.term_counts));
  }

  /**
   * The family's phrasing vectors; `centroidFrom` (default: all of them) are the ones its centroid
   * is the mean of (vectors.ts passes the single goals, not their concatenation).
   */
  setVectors(id: string, vectors: Float32Array[], centroidFrom: readonly Float32Array[] = vectors): void {
    const d = this.docs.get(id);
    if (!d || vectors.length === 0) return;
    if (d.centroid) this.hubUpdate(d.centroid, -1);
    d.vectors = vectors;
    d.centroid = centroidOf(centroidFrom.length > 0 ? centroidFrom : vectors);
    if (d.centroid) this.hubUpdate(d.centroid, 1);
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
  private hub(d: Doc<T>): number {
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

  hasVector(id: string): boolean {
    return !!this.docs.get(id)?.vectors;
  }

  remove(id: string): void {
    const prev = this.docs.get(id);
    if (!prev) return;
    this.postings(id, prev.sig, false);
    this.stats.remove(Object.keys(prev.sig.term_counts));
    if (prev.centroid) this.hubUpdate(prev.centroid, -1);
    this.docs.delete(id);
  }

  private candidates(q: FamilyQuery): Set<string> {
    const out = new Set<string>();
    const add = (s: Set<string> | undefined) => s?.forEach((id) => out.add(id));
    for (const t of q.terms) add(this.byTerm.get(t));
    if (q.task_kind) add(this.byKind.get(q.task_kind));
    for (const f of q.files) add(this.byFile.get(baseName(f)));
    // Dense vectors can find a paraphrase that shares no term: then every document with a vector is a candidate.
    if (q.vector) for (const [id, d] of this.docs) if (d.vectors) out.add(id);
    return out;
  }

  /** Signals of one family for a query; `dense` is its best phrasing cosine, `runnerUp` the runner-up's (denseSimilarity). */
  signals(q: FamilyQuery, sig: FamilySignature, dense: number | null, qv = queryVector(q.terms, this.stats), runnerUp: number | null = null): Signals {
    const fv = familyVector(sig.term_counts, sig.samples, this.stats);
    return {
      lexical: cosine(qv, fv, norm(qv), norm(fv)),
      dense: q.vector ? dense : null,
      dense_baseline: runnerUp,
      dense_profile: this.denseProfile,
      kind: kindSignal(q.task_kind, sig.task_kind),
      files: filesOverlap(sig.files, q.files),
      files_disjoint: sig.files.length > 0 && q.files.length > 0 && !filesOverlap(sig.files, q.files),
    };
  }

  /**
   * The query's dense score for each embedded document, with its move key: its best phrasing
   * cosine, or with hub scoring (score.ts, DenseProfile) the mean of that and the centroid cosine
   * minus the document's hub value.
   */
  private denseCosines(v: Float32Array): Map<string, { cos: number; key: string }> {
    const out = new Map<string, { cos: number; key: string }>();
    const hub = this.denseProfile.scoring === 'hub';
    for (const [id, d] of this.docs) {
      if (!d.vectors) continue;
      let cos = maxCosine(v, d.vectors);
      if (hub && d.centroid) cos = 0.5 * cos + 0.5 * dot(v, d.centroid) - this.hub(d);
      out.set(id, { cos, key: this.moveKey(d.value, id) });
    }
    return out;
  }

  /** Documents by relevance (≥ minScore), best first. `filter` narrows before scoring. */
  search(q: FamilyQuery, opts: { minScore: number; limit?: number; merge?: boolean; include?: (cls: string) => boolean; boost?: (cls: string) => number }): FamilyHit<T>[] {
    const qv = queryVector(q.terms, this.stats);
    // The runner-up is taken over every embedded family of the scope (not only the filtered ones):
    // a family leads only if it stands out from everything learned.
    const dense = q.vector ? this.denseCosines(q.vector) : null;
    const rivals = dense ? runnerUps(dense) : null;
    const hits: FamilyHit<T>[] = [];
    for (const id of this.candidates(q)) {
      const d = this.docs.get(id)!;
      if (opts.include && !opts.include(this.classOf(d.value))) continue;
      const signals = this.signals(q, d.sig, dense?.get(id)?.cos ?? null, qv, rivals?.get(id) ?? null);
      const score = opts.merge ? mergeScore(signals) : relevance(signals);
      if (score >= opts.minScore) hits.push({ id, doc: d.value, score, signals });
    }
    const rank = (h: FamilyHit<T>) => h.score + (opts.boost?.(this.classOf(h.doc)) ?? 0);
    hits.sort((a, b) => rank(b) - rank(a) || (a.id < b.id ? -1 : 1));
    return opts.limit ? hits.slice(0, opts.limit) : hits;
  }
}
