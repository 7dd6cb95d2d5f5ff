// In-process BM25 index with incremental upsert/remove and compact storage.
//
// Layout (no document text is kept):
// - every document gets an internal *slot*, a number that only grows; an update gives
//   the document a new slot and tombstones the old one, so every posting list stays
//   sorted by slot (needed for forward cursors in the pruned query path); a separate
//   write-order position survives updates (used by sequence context);
// - postings for all terms live in ONE Uint32Array arena, each entry `slot << 8 | tf`
//   (tf = field-weighted term frequency, clamped to 255); a term owns a contiguous region
//   whose capacity doubles when full: it grows in place at the arena end, or moves to a
//   free region of the new size (per-size free lists) or to the arena end;
// - a forward index (slot -> varint-coded sorted term ids and tfs, one Uint8Array arena)
//   makes removal exact (df and length statistics are corrected at once) and feeds
//   pseudo-relevance feedback;
// - compaction (renumber live slots densely, rewrite both arenas exactly) runs inside a
//   write when dead postings and lost space pass a threshold, or on demand (`compact()`);
// - a bulk load (`beginBulk()` … `endBulk()`, used to build the index at start) records only
//   the forward lists and statistics, then lays out every posting list once, exactly sized:
//   no grown regions, no free lists, no second copy of the arena.
//
// Scoring: Okapi BM25 (Lucene-style idf = ln(1 + (N - df + .5)/(df + .5))) with
// BM25F-style integer field weights folded into tf and length at index time.
// Query evaluation is exact: term-at-a-time into a dense accumulator for small queries, a
// MaxScore-style pruned evaluation (threshold priming, essential lists accumulated,
// non-essential ones looked up per candidate) for long posting lists; both give the same
// top-k (ties broken by earlier slot). Optional on top: RM3-style feedback and sequence
// context (see SearchOptions).

import { analyze as defaultAnalyze, type Analyzer } from "./analyze";
import { growInt32, growUint32, growUint8, ownString, TermTable, TopK } from "./arena";
import { contextRerank } from "./context";

export interface LexicalIndexOptions {
  /** BM25 k1 (default 1.2). */
  k1?: number;
  /** BM25 b (default 0.75). */
  b?: number;
  /** Integer weight per field name; unknown fields weigh 1 (default {title: 2}). */
  fieldWeights?: Record<string, number>;
  /** Text analysis (default `analyze`). Must be the same for documents and queries. */
  analyzer?: Analyzer;
  /** Compact when dead postings and lost space exceed this fraction of the arena (default 0.5). */
  compactGarbageRatio?: number;
  /** Queries whose posting lists sum to at most this use the term-at-a-time path (default 2000). */
  taatMaxPostings?: number;
  /** Postings read (rarest terms first) to prime the pruning threshold (default 4096). */
  primeBudget?: number;
  /**
   * Queries with more distinct matching terms keep only this many, those with the largest
   * possible contribution (default 16, the size up to which feedback and context apply; a
   * query merged with its feedback terms is cut the same way). Short queries are unaffected.
   */
  maxQueryTerms?: number;
}

export type DocFields = Record<string, string | undefined | null>;

export interface SearchOptions {
  /** Number of results (default 10). */
  limit?: number;
  /** Keep only documents for which this returns true. */
  filter?: (docId: string) => boolean;
  /** Pseudo-relevance feedback (RM3-style query expansion); off when absent or false. */
  feedback?: FeedbackOptions | false;
  /** Sequence-context re-ranking by write order (see context.ts); off when absent or false. */
  context?: SequenceContextOptions | false;
}

export interface SequenceContextOptions {
  /** Share of the best neighbour's score added to a document (default 0.3). */
  weight?: number;
  /** Neighbours on each side, in write order (default 2). */
  window?: number;
  /** Per-step distance decay (default 1: flat). */
  decay?: number;
  /** First-pass depth (at least `limit`); these hits and their neighbours are re-ranked (default 20). */
  depth?: number;
  /**
   * Skip for queries with more distinct terms than this (default 16): context helps short
   * conversational questions; a long pasted text is already specific.
   */
  maxQueryTerms?: number;
}

export interface FeedbackOptions {
  /** Feedback documents taken from the first-pass ranking (default 5). */
  docs?: number;
  /** Expansion terms added (default 10). */
  terms?: number;
  /** Weight of the original query against the expansion, 0..1 (default 0.7). */
  originalWeight?: number;
  /** Expansion terms must occur in at most this fraction of documents (default 1: no cap). */
  maxDocFreq?: number;
  /** Skip feedback for queries with more distinct terms than this: they carry enough words already (default 16). */
  maxQueryTerms?: number;
}

export interface SearchHit {
  docId: string;
  /** Final score (BM25 of the possibly expanded query, plus any context share). */
  score: number;
  /** BM25 part of the score (absent when only the context brought the document in: 0). */
  bm25?: number;
  /** Context part of the score, when sequence context is on. */
  context?: number;
}

export interface LexicalIndexStats {
  docs: number;
  terms: number;
  postings: number;
  deadPostings: number;
  slots: number;
  avgDocLength: number;
  /** Allocated postings arena. */
  arenaBytes: number;
  /** Part of it handed out to terms (postings plus growth room and free regions). */
  arenaUsedBytes: number;
  /** Free regions waiting for reuse. */
  arenaFreeBytes: number;
  forwardBytes: number;
  compactions: number;
}

interface PrunedCursor {
  starts: Int32Array; // forward cursors into the non-essential lists
  ends: Int32Array;
  weights: Float64Array;
  prefix: Float64Array;
  fe: number; // first essential term
  heap: TopK;
  limit: number;
  filter: ((docId: string) => boolean) | undefined;
  theta: number;
  avgdl: number; // the average document length, never 0
}

interface QueryTerm {
  term: number;
  weight: number; // idf * query weight
  ub: number; // upper bound of this term's contribution
  start: number;
  end: number;
}

const MAX_SLOT = (1 << 24) - 1;
const MAX_TF = 255;

export class LexicalIndex {
  private readonly k1: number;
  private readonly b: number;
  private readonly fieldWeights: Record<string, number>;
  private readonly analyzer: Analyzer;
  private readonly compactRatio: number;
  private readonly taatMax: number;
  private readonly primeBudget: number;
  private readonly maxQueryTerms: number;

  // documents
  private idToSlot = new Map<string, number>();
  private slotIds: (string | undefined)[] = [];
  private docLen: Uint32Array = new Uint32Array(1024);
  private fwdStart: Uint32Array = new Uint32Array(1024);
  private fwdEnd: Uint32Array = new Uint32Array(1024);
  private slotSeq: Uint32Array = new Uint32Array(1024);
  private seqSlot: Int32Array = new Int32Array(1024).fill(-1);
  private nextSeq = 0;
  private nextSlot = 0;
  private liveDocs = 0;
  private totalLen = 0;

  // terms
  private termIds = new TermTable();
  private termStart: Uint32Array = new Uint32Array(1024);
  private termLen: Uint32Array = new Uint32Array(1024);
  private termCap: Uint32Array = new Uint32Array(1024);
  private termDf: Int32Array = new Int32Array(1024);
  private termMaxTf: Uint8Array = new Uint8Array(1024);
  private termMinLen: Uint32Array = new Uint32Array(1024); // shortest document ever holding the term
  private termCount = 0;

  // arenas
  private arena: Uint32Array = new Uint32Array(1 << 14);
  private arenaUsed = 0;
  private arenaFree = 0; // cells in free-list regions (reusable)
  private arenaWaste = 0; // cells lost until the next compaction
  private freeLists: number[][] = []; // by log2(capacity): starts of free regions
  private deadPostings = 0; // postings that point at dead slots
  private fwd: Uint8Array = new Uint8Array(1 << 14);
  private fwdUsed = 0;
  private fwdGarbage = 0;
  private compactions = 0;
  private bulk = false; // postings are not kept until endBulk() (see beginBulk)

  // scratch
  private acc: Float64Array = new Float64Array(0);
  private touched: Int32Array = new Int32Array(1024);
  private marks: Uint32Array = new Uint32Array(0);
  private seen: Uint32Array = new Uint32Array(0); // one bit per slot touched by accumulate
  private stamp = 0;

  constructor(options: LexicalIndexOptions = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    this.fieldWeights = { title: 2, ...(options.fieldWeights ?? {}) };
    this.analyzer = options.analyzer ?? defaultAnalyze;
    this.compactRatio = options.compactGarbageRatio ?? 0.5;
    this.taatMax = options.taatMaxPostings ?? 2_000;
    this.primeBudget = options.primeBudget ?? 4096;
    this.maxQueryTerms = Math.max(1, options.maxQueryTerms ?? 16);
    for (const [f, w] of Object.entries(this.fieldWeights)) {
      if (!Number.isInteger(w) || w < 0 || w > 16) throw new RangeError(`field weight for '${f}' must be an integer 0..16`);
    }
  }

  /** Number of live documents. */
  get size(): number {
    return this.liveDocs;
  }

  has(docId: string): boolean {
    return this.idToSlot.has(docId);
  }

  /**
   * Index `fields` under `docId`, replacing any earlier version. Searchable on return.
   * A document whose fields analyse to no terms is still counted (it just never matches).
   */
  upsert(docId: string, fields: DocFields | string): void {
    const tf = this.termFrequencies(typeof fields === "string" ? { text: fields } : fields);
    if (this.nextSlot >= MAX_SLOT) this.compact();
    if (this.nextSlot >= MAX_SLOT) throw new RangeError("LexicalIndex: too many live documents (max 16M)");
    const old = this.idToSlot.get(docId);
    let seq: number;
    if (old !== undefined) {
      seq = this.slotSeq[old] as number; // an update keeps the document's place in write order
      this.removeSlot(old);
    } else {
      seq = this.nextSeq;
      this.nextSeq += 1;
      if (this.seqSlot.length < this.nextSeq) {
        const grown = new Int32Array(Math.max(1024, this.nextSeq * 2)).fill(-1);
        grown.set(this.seqSlot);
        this.seqSlot = grown;
      }
    }

    const slot = this.nextSlot;
    this.nextSlot += 1;
    this.ensureSlotCapacity(slot + 1);
    const id = ownString(docId);
    this.idToSlot.set(id, slot);
    this.slotIds[slot] = id;
    this.slotSeq[slot] = seq;
    this.seqSlot[seq] = slot;

    // Resolve term ids, sorted, so the forward entry can be delta coded.
    const entries: number[] = [];
    let len = 0;
    for (const [term, f] of tf) {
      let t = this.termIds.get(term);
      if (t === undefined) t = this.newTerm(term);
      const c = Math.min(f, MAX_TF);
      entries.push(t * 256 + c);
      len += f;
    }
    entries.sort((a, b) => a - b);

    this.fwdStart[slot] = this.fwdUsed;
    let prev = 0;
    for (const e of entries) {
      const t = Math.floor(e / 256);
      const c = e % 256;
      if (this.bulk) this.countPosting(t, c, len);
      else this.appendPosting(t, slot, c, len);
      this.writeVarint(t - prev);
      this.writeVarint(c);
      prev = t;
    }
    this.fwdEnd[slot] = this.fwdUsed;

    this.docLen[slot] = len;
    this.totalLen += len;
    this.liveDocs += 1;
    this.maybeCompact();
  }

  /**
   * Starts a bulk load: until `endBulk()`, upserts and removals keep only the forward lists and
   * the statistics, and `endBulk()` then writes every posting list once, exactly sized, in slot
   * order. Postings already held are dropped now and rebuilt then (the forward lists hold them
   * too). A search ends the bulk load first, so the index always answers correctly.
   */
  beginBulk(): void {
    if (this.bulk) return;
    this.bulk = true;
    this.arena = new Uint32Array(0);
    this.dropPostingLayout();
  }

  /** Ends a bulk load (a no-op otherwise): lays out all posting lists from the forward lists. */
  endBulk(): void {
    if (!this.bulk) return;
    this.bulk = false;
    let cells = 0;
    for (let t = 0; t < this.termCount; t += 1) {
      const df = this.termDf[t] as number;
      this.termStart[t] = cells;
      this.termLen[t] = 0;
      this.termCap[t] = df;
      cells += df;
    }
    const arena = new Uint32Array(Math.max(1 << 14, cells));
    const termStart = this.termStart;
    const termLen = this.termLen;
    for (let slot = 0; slot < this.nextSlot; slot += 1) {
      if (this.slotIds[slot] === undefined) continue;
      this.forEachForward(slot, (t, tf) => {
        const len = termLen[t] as number;
        arena[(termStart[t] as number) + len] = slot * 256 + tf;
        termLen[t] = len + 1;
      });
    }
    this.arena = arena;
    this.arenaUsed = cells;
  }

  private dropPostingLayout(): void {
    this.termLen.fill(0);
    this.termCap.fill(0);
    this.termStart.fill(0);
    this.arenaUsed = 0;
    this.arenaFree = 0;
    this.arenaWaste = 0;
    this.freeLists = [];
    this.deadPostings = 0;
  }

  /** Remove `docId`; returns false when it was not indexed. */
  remove(docId: string): boolean {
    const slot = this.idToSlot.get(docId);
    if (slot === undefined) return false;
    this.removeSlot(slot);
    this.maybeCompact();
    return true;
  }

  /** Drop everything. */
  clear(): void {
    const fresh = new LexicalIndex({
      k1: this.k1, b: this.b, fieldWeights: this.fieldWeights, analyzer: this.analyzer,
      compactGarbageRatio: this.compactRatio, taatMaxPostings: this.taatMax,
    });
    Object.assign(this, fresh);
  }

  /** Position of a document in write order (kept across updates), or undefined. */
  positionOf(docId: string): number | undefined {
    const slot = this.idToSlot.get(docId);
    return slot === undefined ? undefined : (this.slotSeq[slot] as number);
  }

  /** The live document at a write-order position, or undefined. */
  idAtPosition(pos: number): string | undefined {
    if (pos < 0 || pos >= this.nextSeq) return undefined;
    const slot = this.seqSlot[pos] as number;
    return slot < 0 ? undefined : this.slotIds[slot];
  }

  /** Document frequency of an analysed term (for tests and diagnostics). */
  docFreq(term: string): number {
    const t = this.termIds.get(term);
    return t === undefined ? 0 : (this.termDf[t] as number);
  }

  /** Analysed length of a document (field-weighted), or undefined. */
  docLength(docId: string): number | undefined {
    const slot = this.idToSlot.get(docId);
    return slot === undefined ? undefined : (this.docLen[slot] as number);
  }

  stats(): LexicalIndexStats {
    let stored = 0;
    // In a bulk load no posting is laid out yet: each live one is counted in its term's df.
    for (let t = 0; t < this.termCount; t += 1) stored += (this.bulk ? this.termDf[t] : this.termLen[t]) as number;
    return {
      docs: this.liveDocs,
      terms: this.termIds.size,
      postings: stored - this.deadPostings,
      deadPostings: this.deadPostings,
      slots: this.nextSlot,
      avgDocLength: this.liveDocs ? this.totalLen / this.liveDocs : 0,
      arenaBytes: this.arena.byteLength,
      arenaUsedBytes: this.arenaUsed * 4,
      arenaFreeBytes: this.arenaFree * 4,
      forwardBytes: this.fwd.byteLength,
      compactions: this.compactions,
    };
  }

  search(query: string, options: SearchOptions = {}): SearchHit[] {
    this.endBulk();
    const limit = Math.max(1, Math.min(10_000, Math.floor(options.limit ?? 10)));
    const filter = options.filter;
    let weights = this.queryWeights(query);
    if (weights.size === 0) return [];

    const queryTerms = weights.size;
    let seeds: number[] | undefined;
    const fb = options.feedback;
    if (fb && queryTerms <= (fb.maxQueryTerms ?? 16)) {
      // RM3-style feedback: mix the query with the best terms of the top first-pass documents.
      const first = this.searchTermsSlots(weights, Math.max(1, fb.docs ?? 5), filter);
      if (first.length === 0) return [];
      const expansion = this.feedbackTerms(first, Math.max(1, fb.terms ?? 10), fb.maxDocFreq ?? 1);
      const alpha = Math.min(1, Math.max(0, fb.originalWeight ?? 0.7));
      let qTotal = 0;
      for (const w of weights.values()) qTotal += w;
      const merged = new Map<number, number>();
      for (const [t, w] of weights) merged.set(t, (alpha * w) / qTotal);
      for (const [t, w] of expansion) merged.set(t, (merged.get(t) ?? 0) + (1 - alpha) * w);
      weights = merged;
      seeds = first.map((h) => h.slot); // likely winners again: they prime the second pass
    }

    const ctx = options.context;
    if (!ctx || queryTerms > (ctx.maxQueryTerms ?? 16)) {
      return this.evaluate(this.prepare(weights), limit, filter, seeds).map((h) => ({ docId: this.slotIds[h.slot] as string, score: h.score }));
    }
    const depth = Math.max(limit, ctx.depth ?? 20);
    const terms = this.prepare(weights);
    const first = this.evaluate(terms, depth, filter, seeds).map((h) => ({ docId: this.slotIds[h.slot] as string, score: h.score }));
    const avgdl = this.liveDocs ? this.totalLen / this.liveDocs : 1;
    const reranked = contextRerank(
      first,
      (id) => {
        const slot = this.idToSlot.get(id);
        return slot === undefined ? undefined : (this.slotSeq[slot] as number);
      },
      { weight: ctx.weight ?? 0.3, window: ctx.window ?? 2, decay: ctx.decay ?? 1 },
      (pos) => {
        if (pos < 0 || pos >= this.nextSeq) return undefined;
        const slot = this.seqSlot[pos] as number;
        if (slot < 0) return undefined;
        const id = this.slotIds[slot];
        return id !== undefined && (!filter || filter(id)) ? id : undefined;
      },
      (id) => {
        const slot = this.idToSlot.get(id);
        if (slot === undefined) return 0;
        return this.scoreSlot(terms, slot, this.k1 * (1 - this.b + (this.b * (this.docLen[slot] as number)) / (avgdl || 1)));
      },
    );
    return reranked.slice(0, limit).map((h) => ({ docId: h.docId, score: h.score, bm25: h.base, context: h.context }));
  }

  private queryWeights(query: string): Map<number, number> {
    const weights = new Map<number, number>();
    for (const term of this.analyzer(query)) {
      const t = this.termIds.get(term);
      if (t !== undefined) weights.set(t, (weights.get(t) ?? 0) + 1);
    }
    return weights;
  }

  // ---------------------------------------------------------------------------
  // internals: writing
  // ---------------------------------------------------------------------------

  private termFrequencies(fields: DocFields): Map<string, number> {
    const tf = new Map<string, number>();
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value !== "string" || value.length === 0) continue;
      const w = this.fieldWeights[name] ?? 1;
      if (w === 0) continue;
      for (const t of this.analyzer(value)) tf.set(t, (tf.get(t) ?? 0) + w);
    }
    return tf;
  }

  private ensureSlotCapacity(n: number): void {
    if (this.docLen.length >= n) return;
    this.docLen = growUint32(this.docLen, n);
    this.fwdStart = growUint32(this.fwdStart, n);
    this.fwdEnd = growUint32(this.fwdEnd, n);
    this.slotSeq = growUint32(this.slotSeq, n);
  }

  private newTerm(term: string): number {
    const t = this.termCount;
    this.termCount += 1;
    if (this.termStart.length < this.termCount) {
      this.termStart = growUint32(this.termStart, this.termCount);
      this.termLen = growUint32(this.termLen, this.termCount);
      this.termCap = growUint32(this.termCap, this.termCount);
      this.termDf = growInt32(this.termDf, this.termCount);
      this.termMaxTf = growUint8(this.termMaxTf, this.termCount);
      this.termMinLen = growUint32(this.termMinLen, this.termCount);
    }
    if (this.termIds.add(term) !== t) throw new Error("LexicalIndex: term dictionary out of step");
    this.termStart[t] = 0;
    this.termLen[t] = 0;
    this.termCap[t] = 0;
    this.termDf[t] = 0;
    this.termMaxTf[t] = 0;
    this.termMinLen[t] = 0xffffffff;
    return t;
  }

  private allocArena(cells: number): number {
    const at = this.arenaUsed;
    if (at + cells > this.arena.length) this.arena = growUint32(this.arena, at + cells);
    this.arenaUsed += cells;
    return at;
  }

  private appendPosting(t: number, slot: number, tf: number, docLength: number): void {
    const len = this.termLen[t] as number;
    const cap = this.termCap[t] as number;
    if (len === cap) this.growRegion(t, len, cap);
    this.arena[(this.termStart[t] as number) + len] = slot * 256 + tf;
    this.termLen[t] = len + 1;
    this.countPosting(t, tf, docLength);
  }

  /** The statistics of a new posting (a bulk load keeps only these until endBulk). */
  private countPosting(t: number, tf: number, docLength: number): void {
    this.termDf[t] = (this.termDf[t] as number) + 1;
    if (tf > (this.termMaxTf[t] as number)) this.termMaxTf[t] = tf;
    if (docLength < (this.termMinLen[t] as number)) this.termMinLen[t] = docLength;
  }

  /**
   * A term's region is full: double it (capacities are powers of two). A region at the
   * end of the arena grows in place; otherwise it moves into a free region of the new
   * size class (or the arena end) and its old region goes to the free list of its class.
   */
  private growRegion(t: number, len: number, cap: number): void {
    const start = this.termStart[t] as number;
    const newCap = cap === 0 ? 1 : 2 ** Math.ceil(Math.log2(cap + 1));
    if (cap > 0 && start + cap === this.arenaUsed) {
      this.allocArena(newCap - cap);
      this.termCap[t] = newCap;
      return;
    }
    const cls = Math.log2(newCap);
    const free = this.freeLists[cls];
    let at: number;
    if (free && free.length > 0) {
      at = free.pop() as number;
      this.arenaFree -= newCap;
    } else {
      at = this.allocArena(newCap);
    }
    if (len > 0) this.arena.copyWithin(at, start, start + len);
    if (cap > 0) this.freeRegion(start, cap);
    this.termStart[t] = at;
    this.termCap[t] = newCap;
  }

  private freeRegion(start: number, cap: number): void {
    const cls = Math.floor(Math.log2(cap));
    const size = 2 ** cls;
    (this.freeLists[cls] ??= []).push(start);
    this.arenaFree += size;
    this.arenaWaste += cap - size; // the tail of a non-power-of-two region is not reused
  }

  private writeVarint(v: number): void {
    if (this.fwdUsed + 5 > this.fwd.length) this.fwd = growUint8(this.fwd, this.fwdUsed + 5);
    let x = v;
    while (x >= 0x80) {
      this.fwd[this.fwdUsed] = (x & 0x7f) | 0x80;
      this.fwdUsed += 1;
      x >>>= 7;
    }
    this.fwd[this.fwdUsed] = x;
    this.fwdUsed += 1;
  }

  /** Calls fn(term, tf) for every entry of a slot's forward list. */
  private forEachForward(slot: number, fn: (term: number, tf: number) => void): void {
    const fwd = this.fwd;
    let p = this.fwdStart[slot] as number;
    const end = this.fwdEnd[slot] as number;
    let term = 0;
    while (p < end) {
      let v = 0;
      let shift = 0;
      let byte: number;
      do { byte = fwd[p] as number; p += 1; v += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
      term += v;
      const tf = fwd[p] as number; // tf <= 255 fits one or two varint bytes
      p += 1;
      let c = tf & 0x7f;
      if (tf & 0x80) { c += ((fwd[p] as number) & 0x7f) << 7; p += 1; }
      fn(term, c);
    }
  }

  private removeSlot(slot: number): void {
    const id = this.slotIds[slot];
    if (id === undefined) return;
    this.idToSlot.delete(id);
    this.slotIds[slot] = undefined;
    this.seqSlot[this.slotSeq[slot] as number] = -1;
    let n = 0;
    this.forEachForward(slot, (t) => {
      this.termDf[t] = (this.termDf[t] as number) - 1;
      n += 1;
    });
    if (!this.bulk) this.deadPostings += n; // in a bulk load the postings do not exist yet
    this.fwdGarbage += (this.fwdEnd[slot] as number) - (this.fwdStart[slot] as number);
    this.fwdStart[slot] = 0;
    this.fwdEnd[slot] = 0;
    this.totalLen -= this.docLen[slot] as number;
    this.docLen[slot] = 0;
    this.liveDocs -= 1;
  }

  private maybeCompact(): void {
    const garbage = this.arenaWaste + this.deadPostings + (this.arenaFree > this.arenaUsed / 2 ? this.arenaFree : 0);
    if (this.arenaUsed > 1 << 16 && garbage > this.compactRatio * this.arenaUsed) this.compact();
    else if (this.nextSlot > 1024 && this.nextSlot > 4 * Math.max(1, this.liveDocs)) this.compact();
    else if (this.nextSeq > 1024 && this.nextSeq > 4 * Math.max(1, this.liveDocs)) this.compact();
  }

  /** Rewrite arenas without garbage and renumber slots densely (keeps insertion order). */
  compact(): void {
    this.endBulk();
    const oldIds = this.slotIds;
    const newSlotOf = new Int32Array(this.nextSlot).fill(-1);
    let live = 0;
    for (let s = 0; s < this.nextSlot; s += 1) if (oldIds[s] !== undefined) { newSlotOf[s] = live; live += 1; }

    // Terms: keep those with live postings, renumbered.
    const newTermOf = new Int32Array(this.termCount).fill(-1);
    let terms = 0;
    let cells = 0;
    for (let t = 0; t < this.termCount; t += 1) {
      if ((this.termDf[t] as number) > 0) {
        newTermOf[t] = terms;
        terms += 1;
        cells += this.termDf[t] as number;
      }
    }
    const termStart = new Uint32Array(Math.max(16, terms));
    const termLen = new Uint32Array(Math.max(16, terms));
    const termCap = new Uint32Array(Math.max(16, terms));
    const termDf = new Int32Array(Math.max(16, terms));
    const termMaxTf = new Uint8Array(Math.max(16, terms));
    const termMinLen = new Uint32Array(Math.max(16, terms));
    const arena = new Uint32Array(Math.max(1 << 14, cells + (cells >> 3)));
    let used = 0;
    for (let t = 0; t < this.termCount; t += 1) {
      const nt = newTermOf[t] as number;
      if (nt < 0) continue;
      const start = this.termStart[t] as number;
      const end = start + (this.termLen[t] as number);
      termStart[nt] = used;
      let maxTf = 0;
      let minLen = 0xffffffff;
      for (let p = start; p < end; p += 1) {
        const v = this.arena[p] as number;
        const os = Math.floor(v / 256);
        const ns = newSlotOf[os] as number;
        if (ns < 0) continue;
        const tf = v % 256;
        arena[used] = ns * 256 + tf;
        used += 1;
        if (tf > maxTf) maxTf = tf;
        const dl = this.docLen[os] as number;
        if (dl < minLen) minLen = dl;
      }
      termMinLen[nt] = minLen;
      termLen[nt] = used - (termStart[nt] as number);
      termCap[nt] = termLen[nt] as number;
      termDf[nt] = termLen[nt] as number;
      termMaxTf[nt] = maxTf;
    }

    // Forward index and per-slot arrays.
    const cap = Math.max(1024, live + (live >> 2));
    const docLen = new Uint32Array(cap);
    const fwdStart = new Uint32Array(cap);
    const fwdEnd = new Uint32Array(cap);
    const slotIds: (string | undefined)[] = new Array(live);
    const idToSlot = new Map<string, number>();
    const oldFwd = this;
    const fwdOut: { buf: Uint8Array; used: number } = { buf: new Uint8Array(Math.max(1 << 14, this.fwdUsed - this.fwdGarbage + 64)), used: 0 };
    const put = (v: number): void => {
      if (fwdOut.used + 5 > fwdOut.buf.length) fwdOut.buf = growUint8(fwdOut.buf, fwdOut.used + 5);
      let x = v;
      while (x >= 0x80) { fwdOut.buf[fwdOut.used] = (x & 0x7f) | 0x80; fwdOut.used += 1; x >>>= 7; }
      fwdOut.buf[fwdOut.used] = x;
      fwdOut.used += 1;
    };
    for (let s = 0; s < this.nextSlot; s += 1) {
      const ns = newSlotOf[s] as number;
      if (ns < 0) continue;
      const id = oldIds[s] as string;
      slotIds[ns] = id;
      idToSlot.set(id, ns);
      docLen[ns] = this.docLen[s] as number;
      fwdStart[ns] = fwdOut.used;
      // New term ids keep the old relative order, so deltas stay non-negative.
      let prev = 0;
      oldFwd.forEachForward(s, (t, tf) => {
        const nt = newTermOf[t] as number;
        put(nt - prev);
        put(tf);
        prev = nt;
      });
      fwdEnd[ns] = fwdOut.used;
    }

    // Write-order positions: keep their order, renumber densely.
    const bySeq: number[] = [];
    for (let s = 0; s < this.nextSlot; s += 1) if ((newSlotOf[s] as number) >= 0) bySeq.push(s);
    bySeq.sort((x, y) => (this.slotSeq[x] as number) - (this.slotSeq[y] as number));
    const slotSeq = new Uint32Array(cap);
    const seqSlot = new Int32Array(Math.max(1024, cap)).fill(-1);
    bySeq.forEach((s, i) => {
      const ns = newSlotOf[s] as number;
      slotSeq[ns] = i;
      seqSlot[i] = ns;
    });
    this.slotSeq = slotSeq;
    this.seqSlot = seqSlot;
    this.nextSeq = live;

    this.idToSlot = idToSlot;
    this.slotIds = slotIds;
    this.docLen = docLen;
    this.fwdStart = fwdStart;
    this.fwdEnd = fwdEnd;
    this.nextSlot = live;
    this.termIds = this.termIds.keep(newTermOf, terms);
    this.termStart = termStart;
    this.termLen = termLen;
    this.termCap = termCap;
    this.termDf = termDf;
    this.termMaxTf = termMaxTf;
    this.termMinLen = termMinLen;
    this.termCount = terms;
    this.arena = arena;
    this.arenaUsed = used;
    this.arenaFree = 0;
    this.arenaWaste = 0;
    this.freeLists = [];
    this.deadPostings = 0;
    this.fwd = fwdOut.buf;
    this.fwdUsed = fwdOut.used;
    this.fwdGarbage = 0;
    this.acc = new Float64Array(0);
    this.marks = new Uint32Array(0);
    this.seen = new Uint32Array(0);
    this.compactions += 1;
  }

  // ---------------------------------------------------------------------------
  // internals: searching
  // ---------------------------------------------------------------------------

  private prepare(weights: Map<number, number>): QueryTerm[] {
    const N = this.liveDocs;
    const avgdl = N ? this.totalLen / N : 1;
    const { k1, b } = this;
    const out: QueryTerm[] = [];
    for (const [t, qw] of weights) {
      const df = this.termDf[t] as number;
      if (df <= 0 || qw <= 0) continue;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      const weight = idf * qw;
      // Upper bound of the term's contribution: its largest tf in its shortest document
      // (both tracked monotonically, so the bound stays valid after removals).
      const maxTf = this.termMaxTf[t] as number;
      const minNorm = k1 * (1 - b + (b * (this.termMinLen[t] as number)) / (avgdl || 1));
      const ub = (weight * maxTf * (k1 + 1)) / (maxTf + minNorm);
      const start = this.termStart[t] as number;
      out.push({ term: t, weight, ub, start, end: start + (this.termLen[t] as number) });
    }
    if (out.length > this.maxQueryTerms) {
      // Long queries (a pasted log or summary): keep the terms that can contribute most.
      out.sort((x, y) => y.ub - x.ub || x.term - y.term);
      out.length = this.maxQueryTerms;
    }
    return out;
  }

  /** Exposed for tests: force one evaluation strategy. */
  searchWith(strategy: "taat" | "pruned", query: string, limit = 10, filter?: (docId: string) => boolean): SearchHit[] {
    this.endBulk();
    const terms = this.prepare(this.queryWeights(query));
    const hits = strategy === "taat" ? this.taat(terms, limit, filter) : this.pruned(terms, limit, filter);
    return hits.map((h) => ({ docId: this.slotIds[h.slot] as string, score: h.score }));
  }

  private searchTermsSlots(weights: Map<number, number>, limit: number, filter?: (docId: string) => boolean): { slot: number; score: number }[] {
    return this.evaluate(this.prepare(weights), limit, filter);
  }

  /** Top `limit` slots for prepared terms; `seeds` are likely winners to score first. */
  private evaluate(terms: QueryTerm[], limit: number, filter?: (docId: string) => boolean, seeds?: number[]): { slot: number; score: number }[] {
    if (terms.length === 0) return [];
    let total = 0;
    for (const q of terms) total += q.end - q.start;
    return total <= this.taatMax || terms.length === 1 ? this.taat(terms, limit, filter) : this.pruned(terms, limit, filter, seeds);
  }

  /** Term-at-a-time: accumulate every list into the dense array, then select the top k. */
  private taat(terms: QueryTerm[], limit: number, filter?: (docId: string) => boolean): { slot: number; score: number }[] {
    let total = 0;
    for (const q of terms) total += q.end - q.start;
    this.ensureScratch(total);
    let nt = 0;
    for (const q of terms) nt = this.accumulate(q.start, q.end, q.weight, nt);
    return this.selectTop(nt, limit, filter);
  }

  private selectTop(nt: number, limit: number, filter?: (docId: string) => boolean): { slot: number; score: number }[] {
    const { acc, touched, seen, slotIds } = this;
    const heap = new TopK(limit);
    let theta = -Infinity;
    for (let j = 0; j < nt; j += 1) {
      const slot = touched[j] as number;
      const sc = acc[slot] as number;
      acc[slot] = 0;
      seen[slot >>> 5] = 0;
      if (sc < theta) continue;
      const id = slotIds[slot];
      if (id === undefined || (filter && !filter(id))) continue;
      if (heap.push(sc, slot) && heap.size === limit) theta = heap.threshold();
    }
    return heap.sorted();
  }

  /** First position in [from, end) whose slot is >= target (galloping + binary search). */
  private seek(from: number, end: number, target: number): number {
    const arena = this.arena;
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
  private scoreSlot(terms: QueryTerm[], slot: number, norm: number): number {
    const { arena, k1 } = this;
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
  private prime(terms: QueryTerm[], heap: TopK, limit: number, filter?: (docId: string) => boolean, seeds?: number[]): void {
    this.stamp = (this.stamp + 1) >>> 0 || 1;
    const stamp = this.stamp;
    this.ensureScratch(this.primeBudget);
    const { acc, touched, marks, arena, docLen, k1, b, slotIds } = this;
    if (seeds) {
      const avg = this.liveDocs ? this.totalLen / this.liveDocs : 1;
      for (const slot of seeds) {
        const id = slotIds[slot];
        if (id === undefined || marks[slot] === stamp) continue;
        marks[slot] = stamp;
        if (filter && !filter(id)) continue;
        heap.push(this.scoreSlot(terms, slot, k1 * (1 - b + (b * (docLen[slot] as number)) / (avg || 1))), slot);
      }
    }
    const byLen = [...terms].sort((x, y) => (x.end - x.start) - (y.end - y.start));
    const avgdl = this.liveDocs ? this.totalLen / this.liveDocs : 1;
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
        if (cur === 0) { touched[nt] = slot; nt += 1; }
        acc[slot] = cur + (w * tf * (k1 + 1)) / (tf + k1 * (1 - b + bl * (docLen[slot] as number)));
      }
    }
    const best = new TopK(Math.max(1, Math.min(nt, limit + 16)));
    for (let j = 0; j < nt; j += 1) {
      const slot = touched[j] as number;
      const sc = acc[slot] as number;
      acc[slot] = 0;
      if (sc < best.threshold()) continue; // cannot enter the full heap
      if (slotIds[slot] !== undefined && marks[slot] !== stamp) best.push(sc, slot);
    }
    for (let j = 0; j < best.size; j += 1) {
      const slot = best.slots[j] as number;
      marks[slot] = stamp;
      const id = slotIds[slot] as string;
      if (filter && !filter(id)) continue;
      const norm = k1 * (1 - b + bl * (docLen[slot] as number));
      heap.push(this.scoreSlot(terms, slot, norm), slot);
    }
  }

  /** Scratch arrays sized for the current slot range (and `postings` touched entries). */
  private ensureScratch(postings: number): void {
    const n = Math.max(1024, this.nextSlot + (this.nextSlot >> 2));
    if (this.acc.length < this.nextSlot) this.acc = new Float64Array(n);
    if (this.seen.length << 5 < this.nextSlot) this.seen = new Uint32Array((n >>> 5) + 1);
    if (this.marks.length < this.nextSlot) this.marks = new Uint32Array(n);
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
  private pruned(terms: QueryTerm[], limit: number, filter?: (docId: string) => boolean, seeds?: number[]): { slot: number; score: number }[] {
    const ts = [...terms].sort((a, b) => a.ub - b.ub);
    const m = ts.length;
    const prefix = new Float64Array(m);
    let sum = 0;
    for (let i = 0; i < m; i += 1) { sum += (ts[i] as QueryTerm).ub; prefix[i] = sum; }
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
    const avgdl = (this.liveDocs ? this.totalLen / this.liveDocs : 1) || 1;
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
    const words = (this.nextSlot + 31) >>> 5;
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
    const { arena, docLen, acc, touched, seen, k1, b } = this;
    const avgdl = this.liveDocs ? this.totalLen / this.liveDocs : 1;
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
    const { arena, k1, b } = this;
    const norm = k1 * (1 - b + (b * (this.docLen[slot] as number)) / c.avgdl);
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
    const id = this.slotIds[slot];
    if (id === undefined || this.marks[slot] === this.stamp) return; // dead, or already scored
    if (c.filter && !c.filter(id)) return;
    c.heap.push(score, slot);
    if (c.heap.size === c.limit) {
      theta = c.heap.threshold();
      c.theta = theta;
    }
  }

  /** Expansion term weights (normalised to sum 1) from feedback documents, RM-style. */
  private feedbackTerms(docs: { slot: number; score: number }[], count: number, maxDfRatio: number): Map<number, number> {
    const N = this.liveDocs;
    // Terms in a single document cannot bring in anything new; very common ones are poor
    // evidence and expensive to evaluate.
    const maxDf = Math.max(2, Math.floor(maxDfRatio * N));
    const weights = new Map<number, number>();
    const top = Math.max(...docs.map((d) => d.score)) || 1;
    for (const d of docs) {
      const len = (this.docLen[d.slot] as number) || 1;
      const docWeight = Math.exp(d.score - top); // softmax-like relevance weight
      this.forEachForward(d.slot, (t, tf) => {
        const df = this.termDf[t] as number;
        if (df < 2 || df > maxDf) return;
        const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
        weights.set(t, (weights.get(t) ?? 0) + docWeight * (tf / len) * idf);
      });
    }
    const best = [...weights.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
    const sum = best.reduce((a, [, v]) => a + v, 0) || 1;
    return new Map(best.map(([t, v]) => [t, v / sum]));
  }
}
