/**
 * Query evaluation of the lexical index (lexical-index.ts): exact BM25 top-k over the posting
 * lists, term-at-a-time into a dense accumulator for small queries, MaxScore-style pruned
 * evaluation for long lists. It reads the index through a Corpus (the postings arena, document
 * lengths and ids, as they are at the call) and owns only its scratch arrays.
 */
import { TopK } from './arena';

/** What evaluation reads of the index, as it is at the call (arrays are not copied). */
export interface Corpus {
  /** Postings: `slot << 8 | tf`, each term's list a sorted region (lexical-index.ts). */
  arena: Uint32Array;
  docLen: Uint32Array;
  /** The document number (id table key) of each slot; negative: a dead slot. */
  slotKey: Int32Array;
  nextSlot: number;
  liveDocs: number;
  totalLen: number;
}

/** Keeps a document (by its number in the id table) or not. */
export type KeyFilter = (key: number) => boolean;

export interface QueryTerm {
  term: number;
  weight: number; // idf * query weight
  ub: number; // upper bound of this term's contribution
  start: number;
  end: number;
}

interface PrunedCursor {
  starts: Int32Array; // forward cursors into the non-essential lists
  ends: Int32Array;
  weights: Float64Array;
  prefix: Float64Array;
  fe: number; // first essential term
  heap: TopK;
  limit: number;
  filter: KeyFilter | undefined;
  theta: number;
  avgdl: number; // the average document length, never 0
}

const EMPTY: Corpus = { arena: new Uint32Array(0), docLen: new Uint32Array(0), slotKey: new Int32Array(0), nextSlot: 0, liveDocs: 0, totalLen: 0 };

export class QueryEvaluator {
  // scratch
  private acc: Float64Array = new Float64Array(0);
  private touched: Int32Array = new Int32Array(1024);
  private marks: Uint32Array = new Uint32Array(0);
  private seen: Uint32Array = new Uint32Array(0); // one bit per slot touched by accumulate
  private stamp = 0;
  /** The corpus of the evaluation under way (set by `on`). */
  private c: Corpus = EMPTY;

  constructor(
    private readonly k1: number,
    private readonly b: number,
    private readonly taatMax: number,
    private readonly primeBudget: number,
  ) {}

  /** Evaluates against `corpus` until the next call of `on`: every evaluation starts with it. */
  on(corpus: Corpus): this {
    this.c = corpus;
    return this;
  }

  /** Forgets the corpus once an evaluation is over, so it keeps no replaced array alive. */
  release(): void {
    this.c = EMPTY;
  }

  /** Frees the scratch arrays (after a compaction renumbered the slots they are sized for). */
  dropScratch(): void {
    this.acc = new Float64Array(0);
    this.marks = new Uint32Array(0);
    this.seen = new Uint32Array(0);
  }

  /** Top `limit` slots for prepared terms; `seeds` are likely winners to score first. */
  evaluate(terms: QueryTerm[], limit: number, filter?: KeyFilter, seeds?: number[]): { slot: number; score: number }[] {
    if (terms.length === 0) return [];
    let total = 0;
    for (const q of terms) total += q.end - q.start;
    return total <= this.taatMax || terms.length === 1 ? this.taat(terms, limit, filter) : this.pruned(terms, limit, filter, seeds);
  }

  /** Term-at-a-time: accumulate every list into the dense array, then select the top k. */
  taat(terms: QueryTerm[], limit: number, filter?: KeyFilter): { slot: number; score: number }[] {
    let total = 0;
    for (const q of terms) total += q.end - q.start;
    this.ensureScratch(total);
    let nt = 0;
    for (const q of terms) nt = this.accumulate(q.start, q.end, q.weight, nt);
    return this.selectTop(nt, limit, filter);
  }

  private selectTop(nt: number, limit: number, filter?: KeyFilter): { slot: number; score: number }[] {
    const { acc, touched, seen } = this;
    const { slotKey } = this.c;
    const heap = new TopK(limit);
    let theta = -Infinity;
    for (let j = 0; j < nt; j += 1) {
      const slot = touched[j] as number;
      const sc = acc[slot] as number;
      acc[slot] = 0;
      seen[slot >>> 5] = 0;
      if (sc < theta) continue;
      const key = slotKey[slot] as number;
      if (key < 0 || (filter && !filter(key))) continue;
      if (heap.push(sc, slot) && heap.size === limit) theta = heap.threshold();
    }
    return heap.sorted();
  }

  /** First position in [from, end) whose slot is >= target (galloping + binary search). */
  private seek(from: number, end: number, target: number): number {
    const arena = this.c.arena;
    if (from >= end || (arena[from] as number) >>> 8 >= target) return from;
    let step = 1;
    let lo = from;
    let hi = from + 1;
    while (hi < end && (arena[hi] as number) >>> 8 < target) {
      lo = hi;
      step *= 2;
      hi = lo + step;
    }
    if (hi > end) hi = end;
    // invariant: slot(lo) < target, answer in (lo, hi]
    while (lo + 1 < hi) {
      const mid = (lo + hi) >>> 1;
      if ((arena[mid] as number) >>> 8 < target) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /** Exact BM25 score of one slot for the prepared terms (a seek in each list). */
  scoreSlot(terms: QueryTerm[], slot: number, norm: number): number {
    const { k1 } = this;
    const { arena } = this.c;
    let score = 0;
    for (const q of terms) {
      const p = this.seek(q.start, q.end, slot);
      if (p < q.end) {
        const v = arena[p] as number;
        if (v >>> 8 === slot) {
          const tf = v & 255;
          score += (q.weight * tf * (k1 + 1)) / (tf + norm);
        }
      }
    }
    return score;
  }

  /**
   * Threshold priming for MaxScore: score exactly the best documents of the rarest terms
   * first, so the heap starts with a realistic k-th score and most lists become
   * non-essential at once. Returns the slots already offered to the heap.
   */
  private prime(terms: QueryTerm[], heap: TopK, limit: number, filter?: KeyFilter, seeds?: number[]): void {
    this.stamp = (this.stamp + 1) >>> 0 || 1;
    const stamp = this.stamp;
    this.ensureScratch(this.primeBudget);
    const { acc, touched, marks, k1, b } = this;
    const { arena, docLen, slotKey, liveDocs, totalLen } = this.c;
    if (seeds) {
      const avg = liveDocs ? totalLen / liveDocs : 1;
      for (const slot of seeds) {
        const key = slotKey[slot] as number;
        if (key < 0 || marks[slot] === stamp) continue;
        marks[slot] = stamp;
        if (filter && !filter(key)) continue;
        heap.push(this.scoreSlot(terms, slot, k1 * (1 - b + (b * (docLen[slot] as number)) / (avg || 1))), slot);
      }
    }
    const byLen = [...terms].sort((x, y) => x.end - x.start - (y.end - y.start));
    const avgdl = liveDocs ? totalLen / liveDocs : 1;
    const bl = b / (avgdl || 1);
    // Rarest lists first, until the posting budget is spent (the last list may be cut short:
    // its first postings still give valid candidates, all of which are scored exactly).
    let budget = this.primeBudget;
    let nt = 0;
    for (const q of byLen) {
      if (budget <= 0) break;
      const stop = Math.min(q.end, q.start + budget);
      budget -= stop - q.start;
      const w = q.weight;
      for (let p = q.start; p < stop; p += 1) {
        const v = arena[p] as number;
        const slot = v >>> 8;
        const tf = v & 255;
        const cur = acc[slot] as number;
        if (cur === 0) {
          touched[nt] = slot;
          nt += 1;
        }
        acc[slot] = cur + (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + bl * (docLen[slot] as number)));
      }
    }
    const best = new TopK(Math.max(1, Math.min(nt, limit + 16)));
    for (let j = 0; j < nt; j += 1) {
      const slot = touched[j] as number;
      const sc = acc[slot] as number;
      acc[slot] = 0;
      if (sc < best.threshold()) continue; // cannot enter the full heap
      if ((slotKey[slot] as number) >= 0 && marks[slot] !== stamp) best.push(sc, slot);
    }
    for (let j = 0; j < best.size; j += 1) {
      const slot = best.slots[j] as number;
      marks[slot] = stamp;
      if (filter && !filter(slotKey[slot] as number)) continue;
      const norm = k1 * (1 - b + bl * (docLen[slot] as number));
      heap.push(this.scoreSlot(terms, slot, norm), slot);
    }
  }

  /** Scratch arrays sized for the current slot range (and `postings` touched entries). */
  private ensureScratch(postings: number): void {
    const nextSlot = this.c.nextSlot;
    const n = Math.max(1024, nextSlot + (nextSlot >> 2));
    if (this.acc.length < nextSlot) this.acc = new Float64Array(n);
    if (this.seen.length << 5 < nextSlot) this.seen = new Uint32Array((n >>> 5) + 1);
    if (this.marks.length < nextSlot) this.marks = new Uint32Array(n);
    if (this.touched.length < postings) this.touched = new Int32Array(Math.max(postings, this.touched.length * 2));
  }

  /**
   * Pruned evaluation for long posting lists (exact top-k, in the spirit of MaxScore):
   * 1. prime the heap with exactly scored documents of the rarest terms (threshold θ);
   * 2. terms sorted by upper bound: the longest prefix whose bounds sum to <= θ is
   *    "non-essential" (a document matching only those cannot enter the top k);
   * 3. accumulate the essential lists term-at-a-time into a dense array;
   * 4. visit the other touched documents in slot order; each that can still beat θ gets
   *    the non-essential terms via forward cursors, largest bound first, stopping as soon
   *    as it cannot make it.
   * Kept as small monomorphic methods without closures so V8 optimises them.
   */
  pruned(terms: QueryTerm[], limit: number, filter?: KeyFilter, seeds?: number[]): { slot: number; score: number }[] {
    const ts = [...terms].sort((a, b) => a.ub - b.ub);
    const m = ts.length;
    const prefix = new Float64Array(m);
    let sum = 0;
    for (let i = 0; i < m; i += 1) {
      sum += (ts[i] as QueryTerm).ub;
      prefix[i] = sum;
    }
    const heap = new TopK(limit);
    this.prime(ts, heap, limit, filter, seeds);
    // Read the lists from the largest bound down while they are essential, i.e. while the
    // bounds of the lists not yet read could still add up past θ. (Scoring the best partial
    // sums exactly between lists, to lift θ sooner, was measured and did not pay off.)
    let nt = 0;
    let i = m - 1;
    while (i >= 0 && (prefix[i] as number) > heap.threshold()) {
      const q = ts[i] as QueryTerm;
      nt = this.accumulate(q.start, q.end, q.weight, nt);
      i -= 1;
    }
    const fe = i + 1; // lists [0, fe) were not read: they are looked up per candidate

    const starts = new Int32Array(fe);
    const ends = new Int32Array(fe);
    const weights = new Float64Array(fe);
    for (let i = 0; i < fe; i += 1) {
      const q = ts[i] as QueryTerm;
      starts[i] = q.start;
      ends[i] = q.end;
      weights[i] = q.weight;
    }
    const avgdl = (this.c.liveDocs ? this.c.totalLen / this.c.liveDocs : 1) || 1;
    const cursor: PrunedCursor = { starts, ends, weights, prefix, fe, heap, limit, filter, theta: heap.threshold(), avgdl };
    this.visitTouched(cursor);
    return heap.sorted();
  }

  /**
   * Visits every slot the essential lists touched, in increasing slot order (the
   * non-essential cursors only move forward): the bitmap `accumulate` set is walked word by
   * word, lowest bit first, and cleared on the way.
   */
  private visitTouched(cursor: PrunedCursor): void {
    const { acc, seen } = this;
    const neTotal = cursor.fe > 0 ? (cursor.prefix[cursor.fe - 1] as number) : 0;
    const words = (this.c.nextSlot + 31) >>> 5;
    for (let w = 0; w < words; w += 1) {
      let bits = seen[w] as number;
      if (bits === 0) continue;
      seen[w] = 0;
      const base = w << 5;
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const slot = base + 31 - Math.clz32(low);
        const a = acc[slot] as number;
        acc[slot] = 0;
        if (a + neTotal > cursor.theta) this.visit(slot, a, cursor);
      }
    }
  }

  /** Adds postings [start, end) with weight w into the accumulator; returns the new touched count. */
  private accumulate(start: number, end: number, w: number, ntIn: number): number {
    let nt = ntIn;
    if (this.touched.length < nt + (end - start)) {
      const grown = new Int32Array(Math.max(this.touched.length * 2, nt + (end - start)));
      grown.set(this.touched.subarray(0, nt));
      this.touched = grown;
    }
    const { acc, touched, seen, k1, b } = this;
    const { arena, docLen, liveDocs, totalLen } = this.c;
    const avgdl = liveDocs ? totalLen / liveDocs : 1;
    const bl = b / (avgdl || 1);
    const base = 1 - b;
    const k1p1 = k1 + 1;
    for (let p = start; p < end; p += 1) {
      const v = arena[p] as number;
      const slot = v >>> 8;
      const tf = v & 255;
      const cur = acc[slot] as number;
      if (cur === 0) {
        touched[nt] = slot;
        nt += 1;
        seen[slot >>> 5] = (seen[slot >>> 5] as number) | (1 << (slot & 31));
      }
      acc[slot] = cur + (w * tf * k1p1) / (tf + k1 * (base + bl * (docLen[slot] as number)));
    }
    return nt;
  }

  /** Finishes one candidate of the pruned path (see `pruned`). */
  private visit(slot: number, partial: number, c: PrunedCursor): void {
    let score = partial;
    const { prefix, fe, starts, ends, weights } = c;
    let theta = c.theta;
    const { k1, b } = this;
    const { arena, docLen } = this.c;
    const norm = k1 * (1 - b + (b * (docLen[slot] as number)) / c.avgdl);
    for (let i = fe - 1; i >= 0; i -= 1) {
      if (score + (prefix[i] as number) <= theta) break;
      const end = ends[i] as number;
      const p = this.seek(starts[i] as number, end, slot);
      starts[i] = p;
      if (p < end) {
        const v = arena[p] as number;
        if (v >>> 8 === slot) {
          const tf = v & 255;
          score += ((weights[i] as number) * tf * (k1 + 1)) / (tf + norm);
        }
      }
    }
    if (score <= theta) return;
    // Checked only now, for the few that made it: most candidates fall short of θ first.
    const key = this.c.slotKey[slot] as number;
    if (key < 0 || this.marks[slot] === this.stamp) return; // dead, or already scored
    if (c.filter && !c.filter(key)) return;
    c.heap.push(score, slot);
    if (c.heap.size === c.limit) {
      theta = c.heap.threshold();
      c.theta = theta;
    }
  }
}
