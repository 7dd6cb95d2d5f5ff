import { DenseFamilies, leaders } from './family-dense';
import { fileKeysOf, fileQueryKeys, KindBuckets, kindTermKey, Postings, termKey } from './family-keys';
import { familyTerms, TermWeights, type FamilyTerms } from './family-terms';
import { TopHits, searchPlan, type PostingGroup, type RankOptions } from './family-search';
import { baseName, cosine, familyVector, filesOverlap, norm, queryVector, TermStats } from './similarity';
import { denseSimilarity, kindOnlyRelevance, kindSignal, mergeScore, relevance, type DenseProfile, type Signals } from './score';
import type { FamilySignature } from './types';

export { centroidOf, maxCosine, runnerUps, unitVector } from './family-dense';

/**
 * The in-process index of one scope's learned task families (workflows and patterns), and the
 * search every planning surface and distillation runs against it (docs/learning.md, "Learning
 * index"). What a search costs follows what the request shares with families, not how many there
 * are:
 *
 * - Families are found by keys (family-keys.ts): their terms (globally and within their
 *   task_kind), their files, and their kind; dense vectors by family-dense.ts.
 * - Each family keeps its term shares (how many of its observations used each term) and, per
 *   version of the scope's term statistics, its vector norm: a comparison reads them and never
 *   rebuilds the family's vector (similarity.ts familyVector is the definition it matches).
 * - A search reads the postings of the request's terms from the rarest (heaviest) down and stops
 *   as soon as no family it has not seen could still reach the threshold or the top `limit`
 *   (family-search.ts): a family that shares only the request's lighter terms has a lexical
 *   cosine of at most those terms' share of the request's norm (Cauchy–Schwarz).
 *
 * The answer is the same as scoring every family with the score.ts rules, sorted by score (then
 * id); `test/unit/learning-family-index.test.ts` compares the two on random scopes.
 */

export interface FamilyQuery {
  terms: readonly string[];
  task_kind: string | null;
  files: readonly string[];
  /** Query embedding, when an embedder is configured. */
  vector?: Float32Array | null;
}

export interface FamilyHit<T> {
  id: string;
  doc: T;
  score: number;
  signals: Signals;
}

export interface SearchOptions extends RankOptions {
  minScore: number;
  limit?: number;
  /** Merge score (an observation joining a family) instead of relevance. */
  merge?: boolean;
}

interface Doc<T> extends FamilyTerms {
  sig: FamilySignature;
  value: T;
  cls: string;
  /** Its kind bucket (KindBuckets), null without a kind. */
  bucket: string | null;
}

/** A family's posting keys, each with its value: term postings carry the family's share of the term (a comparison reads it from the posting of a request's term). */
function postingsOf(sig: FamilySignature, shares: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [t, share] of shares) out.set(termKey(t), share).set(kindTermKey(sig.task_kind, t), share);
  if (sig.task_kind) out.set(`k:${sig.task_kind}`, 0);
  for (const k of fileKeysOf(sig.files)) out.set(k, 0);
  return out;
}

function forEachIn(sets: (ReadonlyMap<string, number> | undefined)[], fn: (id: string) => void): void {
  for (const s of sets) if (s) for (const id of s.keys()) fn(id);
}

export class FamilyIndex<T> {
  private readonly docs = new Map<string, Doc<T>>();
  private readonly postings = new Postings();
  private readonly dense = new DenseFamilies();
  private readonly kinds = new KindBuckets();
  private readonly weights: TermWeights;

  /**
   * `moveKey`: what a family would have the caller do first; families with the same key are not
   * each other's runner-up in the dense lead (by default every family is its own key).
   * `classOf`: a family's class for ranking (search `boost` / `include` take classes), e.g. live or
   * archived and stable or candidate; it must change only through put().
   */
  constructor(
    readonly stats: TermStats = new TermStats(),
    private readonly moveKey: (value: T, id: string) => string = (_value, id) => id,
    private readonly classOf: (value: T) => string = () => '',
  ) {
    this.weights = new TermWeights(stats);
  }

  /** How dense scores are computed and judged (score.ts): set by whoever supplies the vectors (vectors.ts). */
  get denseProfile(): DenseProfile {
    return this.dense.profile;
  }

  set denseProfile(p: DenseProfile) {
    this.dense.profile = p;
  }

  get size(): number {
    return this.docs.size;
  }

  get(id: string): T | undefined {
    return this.docs.get(id)?.value;
  }

  *values(): IterableIterator<T> {
    for (const d of this.docs.values()) yield d.value;
  }

  hasVector(id: string): boolean {
    return this.dense.has(id);
  }

  /** Adds or replaces a document; the embeddings survive when the caller passes none. */
  put(id: string, sig: FamilySignature, value: T, vectors?: Float32Array[] | null): void {
    const prev = this.docs.get(id);
    const termKeys = Object.keys(sig.term_counts);
    if (prev) this.stats.replace(Object.keys(prev.sig.term_counts), termKeys);
    else this.stats.add(termKeys);
    const { all, ...terms } = familyTerms(sig.term_counts, sig.samples);
    this.postings.replace(id, prev ? [...postingsOf(prev.sig, familyTerms(prev.sig.term_counts, prev.sig.samples).all).keys()] : [], postingsOf(sig, all));
    const cls = this.classOf(value);
    const bucket = KindBuckets.key(sig.task_kind, sig.files.length > 0, cls);
    if (prev) this.kinds.delete(id, prev.sig.task_kind, prev.bucket, prev.cls);
    this.kinds.add(id, sig.task_kind, bucket, cls);
    this.docs.set(id, { ...terms, sig, value, cls, bucket });
    if (vectors) this.dense.set(id, vectors);
  }

  /**
   * The family's phrasing vectors; `centroidFrom` (default: all of them) are the ones its centroid
   * is the mean of (vectors.ts passes the single goals, not their concatenation).
   */
  setVectors(id: string, vectors: Float32Array[], centroidFrom: readonly Float32Array[] = vectors): void {
    if (!this.docs.has(id) || vectors.length === 0) return;
    this.dense.set(id, vectors, centroidFrom);
  }

  remove(id: string): void {
    const prev = this.docs.get(id);
    if (!prev) return;
    this.postings.replace(id, [...postingsOf(prev.sig, familyTerms(prev.sig.term_counts, prev.sig.samples).all).keys()], new Map());
    this.stats.remove(Object.keys(prev.sig.term_counts));
    this.kinds.delete(id, prev.sig.task_kind, prev.bucket, prev.cls);
    this.dense.delete(id);
    this.docs.delete(id);
  }

  /** Signals of a family that is not (or not necessarily) in the index, e.g. a single execution's; `dense` and `runnerUp` as the caller computed them. */
  signals(q: FamilyQuery, sig: FamilySignature, dense: number | null, qv = queryVector(q.terms, this.stats), runnerUp: number | null = null): Signals {
    const fv = familyVector(sig.term_counts, sig.samples, this.stats);
    const files = filesOverlap(sig.files, q.files);
    return {
      lexical: cosine(qv, fv, norm(qv), norm(fv)),
      dense: q.vector ? dense : null,
      dense_baseline: runnerUp,
      dense_profile: this.denseProfile,
      kind: kindSignal(q.task_kind, sig.task_kind),
      files,
      files_disjoint: sig.files.length > 0 && q.files.length > 0 && !files,
    };
  }

  /** Documents by score (≥ minScore), best first (ties by id); with `boost`, by score + boost. */
  search(q: FamilyQuery, opts: SearchOptions): FamilyHit<T>[] {
    if (opts.include && ![...this.kinds.classes()].some(opts.include)) return [];
    // Distinct query terms in the order given, with their weights (queryVector's order and values).
    const pq = this.weights.prepare(q.terms, (t) => this.postings.get(termKey(t)));
    const { terms, weights } = pq;
    const everything = !(opts.minScore > 0);

    // Files: the families sharing one with the request (exactly those whose files signal is true).
    const sharing = new Set<string>();
    forEachIn(
      fileQueryKeys(q.files).map((k) => this.postings.get(k)),
      (id) => sharing.add(id),
    );

    // Dense: every embedded family's score (or the nearest lists'), the best one's move and the runner-up.
    const near = q.vector && this.dense.size > 0 ? (everything ? this.dense.all(q.vector) : this.dense.nearest(q.vector)) : null;
    const { best, second } = leaders(near ? [...near].map(([id, cos]) => ({ cos, key: this.moveKey(this.docs.get(id)!.value, id) })) : []);
    const denseOf = (id: string, d: Doc<T>): { cos: number | null; rival: number | null } => {
      if (!q.vector || !best) return { cos: null, rival: null };
      const cos = near!.get(id) ?? this.dense.score(id, q.vector);
      if (cos === null) return { cos: null, rival: null };
      return { cos, rival: this.moveKey(d.value, id) === best.key ? second : best.cos };
    };

    const hits = new TopHits<FamilyHit<T>>(opts.limit, opts.boost);
    const seen = new Set<string>();
    const consider = (id: string): void => {
      if (seen.has(id)) return;
      seen.add(id);
      const d = this.docs.get(id)!;
      if (opts.include && !opts.include(d.cls)) return;
      const dn = denseOf(id, d);
      const files = sharing.has(id);
      const kind = kindSignal(q.task_kind, d.sig.task_kind);
      const disjoint = d.sig.files.length > 0 && q.files.length > 0 && !files;
      // A cheap bound first: can its shared terms still carry it to the threshold and into the top `limit`?
      if (dn.cos === null && !canRank(opts, hits, d.cls, { lexical: TermWeights.ceiling(pq, id), dense: null, kind, files, files_disjoint: disjoint })) return;
      const signals: Signals = {
        lexical: this.weights.cosine(pq, id, d),
        dense: q.vector ? dn.cos : null,
        dense_baseline: dn.rival,
        dense_profile: this.denseProfile,
        kind,
        files,
        files_disjoint: disjoint,
      };
      const score = opts.merge ? mergeScore(signals) : relevance(signals);
      if (score >= opts.minScore) hits.add({ id, doc: d.value, score, signals }, d.cls);
    };

    if (everything) {
      // No threshold: every family that shares a term, the kind, a file's base name or (with a query vector) has vectors.
      forEachIn(pq.postings, consider);
      if (q.task_kind) forEachIn([this.postings.get(`k:${q.task_kind}`)], consider);
      forEachIn(
        q.files.map((f) => this.postings.get(`b:${baseName(f)}`)),
        consider,
      );
      if (near) for (const id of near.keys()) consider(id);
      return hits.sorted();
    }

    sharing.forEach(consider);
    // Dense-led families: only a family with the best one's first move can lead the runner-up.
    if (near && best) {
      const leader = best;
      for (const [id, cos] of near) {
        if (denseSimilarity(cos, second, this.denseProfile) > 0 && this.moveKey(this.docs.get(id)!.value, id) === leader.key) consider(id);
      }
    }

    // The request's terms, heaviest first, and how much of its norm the terms from each one on
    // hold: a family not seen yet shares none of the heavier ones, so its lexical cosine is at most that.
    const order = terms.map((_, j) => j).sort((a, b) => weights[b]! - weights[a]! || (terms[a]! < terms[b]! ? -1 : 1));
    const rest: number[] = new Array(order.length + 1).fill(0);
    for (let i = order.length - 1; i >= 0; i -= 1) rest[i] = rest[i + 1]! + weights[order[i]!]! ** 2;
    const plan = searchPlan({ kind: q.task_kind, merge: !!opts.merge, minScore: opts.minScore, maxBoost: this.maxBoost(opts) });
    /** Reads one group's postings of the request's terms, heaviest first, while one of its unseen families could still count; true when all were read. */
    const walk = (group: PostingGroup, key: (t: string) => string): boolean => {
      for (let i = 0; i < order.length; i += 1) {
        const lmax = pq.norm > 0 ? Math.sqrt(rest[i]!) / pq.norm + 1e-9 : 0;
        if (!plan.live(group, lmax, hits.worst())) return false;
        forEachIn([this.postings.get(key(terms[order[i]!]!))], consider);
      }
      return true;
    };
    if (plan.kind === null) {
      walk('none', termKey);
    } else {
      // The request's own kind first: its families fill the top `limit` and raise the bar the others must pass.
      const kind = plan.kind;
      if (walk('match', (t) => kindTermKey(kind, t))) this.fillKind(kind, q.files.length > 0, opts, hits, seen, consider);
      walk('none', (t) => kindTermKey(null, t));
      walk('other', termKey);
    }
    return hits.sorted();
  }

  private maxBoost(opts: RankOptions): number {
    if (!opts.boost) return 0;
    let m = 0;
    for (const c of this.kinds.classes()) m = Math.max(m, opts.boost(c));
    return m;
  }

  /**
   * Families of the request's kind that share no term or file all score alike (score.ts
   * kindOnlyRelevance: 0, the kind alone being no evidence), so they are read only by a search
   * with no floor, and then only the first `limit` by id of each (files, class) bucket can rank.
   */
  private fillKind(kind: string, queryFiles: boolean, opts: SearchOptions, hits: TopHits<FamilyHit<T>>, seen: ReadonlySet<string>, consider: (id: string) => void): void {
    if (opts.merge) return;
    for (const b of this.kinds.of(kind)) {
      if (opts.include && !opts.include(b.cls)) continue;
      const score = kindOnlyRelevance(b.files && queryFiles);
      if (score < opts.minScore) continue;
      const worst = hits.worst();
      if (worst && score + (opts.boost?.(b.cls) ?? 0) < worst.rank) continue;
      for (const id of opts.limit ? b.ids.first(opts.limit, seen) : b.ids.values()) consider(id);
    }
  }
}

/** Whether a family whose signals are at most `ceiling` could still score ≥ minScore and rank into the top `limit`. */
function canRank<H extends { id: string; score: number }>(opts: SearchOptions, hits: TopHits<H>, cls: string, ceiling: Signals): boolean {
  const score = opts.merge ? mergeScore(ceiling) : relevance(ceiling);
  if (score < opts.minScore) return false;
  const worst = hits.worst();
  return !worst || score + (opts.boost?.(cls) ?? 0) >= worst.rank;
}
