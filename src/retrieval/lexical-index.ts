// In-process BM25 index with incremental upsert/remove and compact storage.
//
// Layout (no document text and no id string is kept: typed arrays throughout, so an index can be
// frozen to a snapshot and thawed as it is, see freeze/thaw and frozen.ts):
// - document ids are numbered in an id table (arena.ts IdTable: a UUID as four 32-bit words),
//   the index's own or one shared with other indexes; that number is the document's *key*;
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
//
// The parts: this file keeps the documents (slots, ids, lengths, write order), the term
// dictionary and its statistics, and orchestrates writes, bulk loads and compaction;
// postings.ts holds the posting lists (the arena, regions, free lists), forward-index.ts the
// forward lists, and lexical-query.ts evaluates queries over them (TAAT, pruned, scratch).

import { analyze as defaultAnalyze, type Analyzer } from './analyze';
import { growInt32, growInt32Filled, growUint32, growUint8, IdTable, TermTable } from './arena';
import { contextRerank } from './context';
import { child, col, nest, num, type Frozen } from './frozen';
import { ForwardIndex } from './forward-index';
import { PostingLists } from './postings';
import { QueryEvaluator, type Corpus, type KeyFilter, type QueryTerm } from './lexical-query';

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
  /**
   * The id table documents are numbered in (arena.ts IdTable). Several indexes may share one (a
   * recall partition's live and archive indexes and its vectors), so a document's number (`key`)
   * means the same in each; by default the index has its own.
   */
  ids?: IdTable;
}

export type DocFields = Record<string, string | undefined | null>;

/** BM25 statistics of several indexes taken together (multi-search.ts). */
export interface CorpusStats {
  docs: number;
  totalLen: number;
  df: (term: string) => number;
}

export interface SearchOptions {
  /** Number of results (default 10). */
  limit?: number;
  /** Keep only documents for which this returns true. */
  filter?: (docId: string) => boolean;
  /** The same by the document's number in the id table (cheaper: no id string); wins over `filter`. */
  keyFilter?: (key: number) => boolean;
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
  /** The document's number in the index's id table. */
  key: number;
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

  // documents: ids are numbered in `ids` (the key); keySlot and slotKey map keys and slots (-1: none)
  private readonly ids: IdTable;
  private ownIds: boolean;
  private keySlot: Int32Array = new Int32Array(1024).fill(-1);
  private slotKey: Int32Array = new Int32Array(1024).fill(-1);
  private docLen: Uint32Array = new Uint32Array(1024);
  private slotSeq: Uint32Array = new Uint32Array(1024);
  private seqSlot: Int32Array = new Int32Array(1024).fill(-1);
  private nextSeq = 0;
  private nextSlot = 0;
  private liveDocs = 0;
  private totalLen = 0;

  // terms
  private termIds = new TermTable();
  private termDf: Int32Array = new Int32Array(1024);
  private termMaxTf: Uint8Array = new Uint8Array(1024);
  private termMinLen: Uint32Array = new Uint32Array(1024); // shortest document ever holding the term
  private termCount = 0;

  // arenas
  private postings = new PostingLists();
  private forward = new ForwardIndex();
  private compactions = 0;
  private bulk = false; // postings are not kept until endBulk() (see beginBulk)

  private readonly evaluator: QueryEvaluator;

  constructor(options: LexicalIndexOptions = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
    this.fieldWeights = { title: 2, ...(options.fieldWeights ?? {}) };
    this.analyzer = options.analyzer ?? defaultAnalyze;
    this.compactRatio = options.compactGarbageRatio ?? 0.5;
    this.taatMax = options.taatMaxPostings ?? 2_000;
    this.primeBudget = options.primeBudget ?? 4096;
    this.maxQueryTerms = Math.max(1, options.maxQueryTerms ?? 16);
    this.ownIds = !options.ids;
    this.ids = options.ids ?? new IdTable();
    this.evaluator = new QueryEvaluator(this.k1, this.b, this.taatMax, this.primeBudget);
    for (const [f, w] of Object.entries(this.fieldWeights)) {
      if (!Number.isInteger(w) || w < 0 || w > 16) throw new RangeError(`field weight for '${f}' must be an integer 0..16`);
    }
  }

  /** Number of live documents. */
  get size(): number {
    return this.liveDocs;
  }

  has(docId: string): boolean {
    const key = this.ids.get(docId);
    return key !== undefined && this.hasKey(key);
  }

  hasKey(key: number): boolean {
    return key < this.keySlot.length && (this.keySlot[key] as number) >= 0;
  }

  /** The slot of a document's number, or undefined. */
  private slotOfKey(key: number): number | undefined {
    if (key >= this.keySlot.length) return undefined;
    const slot = this.keySlot[key] as number;
    return slot < 0 ? undefined : slot;
  }

  private slotOf(docId: string): number | undefined {
    const key = this.ids.get(docId);
    return key === undefined ? undefined : this.slotOfKey(key);
  }

  /** The id of a document's number. */
  idOf(key: number): string {
    return this.ids.idOf(key);
  }

  /**
   * Index `fields` under `docId`, replacing any earlier version. Searchable on return.
   * A document whose fields analyse to no terms is still counted (it just never matches).
   */
  upsert(docId: string, fields: DocFields | string): void {
    this.upsertKey(this.ids.add(docId), fields);
  }

  /** upsert by the document's number in the id table (the caller numbered it there). */
  upsertKey(key: number, fields: DocFields | string): void {
    const tf = this.termFrequencies(typeof fields === 'string' ? { text: fields } : fields);
    if (this.nextSlot >= MAX_SLOT) this.compact();
    if (this.nextSlot >= MAX_SLOT) throw new RangeError('LexicalIndex: too many live documents (max 16M)');
    const old = this.slotOfKey(key);
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
    if (this.keySlot.length <= key) this.keySlot = growInt32Filled(this.keySlot, key + 1, -1);
    this.keySlot[key] = slot;
    this.slotKey[slot] = key;
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

    this.forward.begin(slot);
    let prev = 0;
    for (const e of entries) {
      const t = Math.floor(e / 256);
      const c = e % 256;
      if (this.bulk) this.countPosting(t, c, len);
      else this.appendPosting(t, slot, c, len);
      this.forward.write(t - prev);
      this.forward.write(c);
      prev = t;
    }
    this.forward.finish(slot);

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
    this.postings.clear();
  }

  /** Ends a bulk load (a no-op otherwise): lays out all posting lists from the forward lists. */
  endBulk(): void {
    if (!this.bulk) return;
    this.bulk = false;
    this.postings.layOut(this.termCount, this.termDf, (put) => {
      for (let slot = 0; slot < this.nextSlot; slot += 1) {
        if ((this.slotKey[slot] as number) < 0) continue;
        this.forward.forEach(slot, (t, tf) => put(t, slot, tf));
      }
    });
  }

  /** Remove `docId`; returns false when it was not indexed. */
  remove(docId: string): boolean {
    const key = this.ids.get(docId);
    return key !== undefined && this.removeKey(key);
  }

  removeKey(key: number): boolean {
    const slot = this.slotOfKey(key);
    if (slot === undefined) return false;
    this.removeSlot(slot);
    this.maybeCompact();
    return true;
  }

  /** Drop everything (a shared id table keeps its ids). */
  clear(): void {
    const fresh = new LexicalIndex({
      k1: this.k1,
      b: this.b,
      fieldWeights: this.fieldWeights,
      analyzer: this.analyzer,
      compactGarbageRatio: this.compactRatio,
      taatMaxPostings: this.taatMax,
      primeBudget: this.primeBudget,
      maxQueryTerms: this.maxQueryTerms,
      ...(this.ownIds ? {} : { ids: this.ids }),
    });
    Object.assign(this, fresh);
  }

  /** Position of a document in write order (kept across updates), or undefined. */
  positionOf(docId: string): number | undefined {
    const slot = this.slotOf(docId);
    return slot === undefined ? undefined : (this.slotSeq[slot] as number);
  }

  /** The live document at a write-order position, or undefined. */
  idAtPosition(pos: number): string | undefined {
    const key = this.keyAtPosition(pos);
    return key === undefined ? undefined : this.ids.idOf(key);
  }

  /** The number of the live document at a write-order position, or undefined. */
  keyAtPosition(pos: number): number | undefined {
    if (pos < 0 || pos >= this.nextSeq) return undefined;
    const slot = this.seqSlot[pos] as number;
    return slot < 0 ? undefined : (this.slotKey[slot] as number);
  }

  /** Document frequency of an analysed term (for tests and diagnostics). */
  docFreq(term: string): number {
    const t = this.termIds.get(term);
    return t === undefined ? 0 : (this.termDf[t] as number);
  }

  /**
   * The query's analysed terms with their BM25 idf in this index; a term no document holds gets the
   * idf of df = 0 (the rarest possible), so a query made of unseen words weighs what it would if
   * they had been seen once less than never. Σ idf is what a document matching every term once,
   * at average length, scores: a scale to read a BM25 score as a share of the query it matched.
   */
  queryTerms(query: string): { term: string; idf: number }[] {
    const seen = new Set<string>();
    const out: { term: string; idf: number }[] = [];
    for (const term of this.analyzer(query)) {
      if (seen.has(term)) continue;
      seen.add(term);
      out.push({ term, idf: this.idf(term) });
    }
    return out;
  }

  /**
   * The share of the query's information a document holds: Σ idf of the given terms the document
   * contains over Σ idf of them all (0..1; 0 for an unknown document). Unlike a BM25 score it does
   * not grow with repetitions or short documents, so it reads the same in every collection.
   */
  coverage(docId: string, terms: { term: string; idf: number }[]): number {
    const slot = this.slotOf(docId);
    const total = terms.reduce((s, t) => s + t.idf, 0);
    if (slot === undefined || total <= 0) return 0;
    const wanted = new Map<number, number>();
    for (const t of terms) {
      const id = this.termIds.get(t.term);
      if (id !== undefined) wanted.set(id, t.idf);
    }
    let held = 0;
    this.forward.forEach(slot, (t) => {
      held += wanted.get(t) ?? 0;
    });
    return held / total;
  }

  /** BM25 idf of an analysed term (df = 0 for a term no document holds). */
  idf(term: string): number {
    const N = this.liveDocs;
    const df = this.docFreq(term);
    return Math.log(1 + (N - df + 0.5) / (df + 0.5));
  }

  /** Analysed length of a document (field-weighted), or undefined. */
  docLength(docId: string): number | undefined {
    const slot = this.slotOf(docId);
    return slot === undefined ? undefined : (this.docLen[slot] as number);
  }

  stats(): LexicalIndexStats {
    let stored = 0;
    // In a bulk load no posting is laid out yet: each live one is counted in its term's df.
    for (let t = 0; t < this.termCount; t += 1) stored += this.bulk ? (this.termDf[t] as number) : this.postings.lengthOf(t);
    return {
      docs: this.liveDocs,
      terms: this.termIds.size,
      postings: stored - this.postings.dead,
      deadPostings: this.postings.dead,
      slots: this.nextSlot,
      avgDocLength: this.liveDocs ? this.totalLen / this.liveDocs : 0,
      arenaBytes: this.postings.arena.byteLength,
      arenaUsedBytes: this.postings.usedCells * 4,
      arenaFreeBytes: this.postings.freeCells * 4,
      forwardBytes: this.forward.byteLength,
      compactions: this.compactions,
    };
  }

  search(query: string, options: SearchOptions = {}): SearchHit[] {
    try {
      return this.searchOnce(query, options);
    } finally {
      this.evaluator.release();
    }
  }

  private searchOnce(query: string, options: SearchOptions): SearchHit[] {
    this.endBulk();
    const limit = Math.max(1, Math.min(10_000, Math.floor(options.limit ?? 10)));
    const byId = options.filter;
    const filter: KeyFilter | undefined = options.keyFilter ?? (byId ? (k) => byId(this.ids.idOf(k)) : undefined);
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

    const hit = (h: { slot: number; score: number }): SearchHit => {
      const key = this.slotKey[h.slot] as number;
      return { docId: this.ids.idOf(key), key, score: h.score };
    };
    const ctx = options.context;
    if (!ctx || queryTerms > (ctx.maxQueryTerms ?? 16)) {
      return this.evaluator.on(this.corpus()).evaluate(this.prepare(weights), limit, filter, seeds).map(hit);
    }
    const depth = Math.max(limit, ctx.depth ?? 20);
    const terms = this.prepare(weights);
    const evaluator = this.evaluator.on(this.corpus());
    const first = evaluator.evaluate(terms, depth, filter, seeds).map(hit);
    const avgdl = this.liveDocs ? this.totalLen / this.liveDocs : 1;
    const reranked = contextRerank(
      first,
      (id) => this.positionOf(id),
      { weight: ctx.weight ?? 0.3, window: ctx.window ?? 2, decay: ctx.decay ?? 1 },
      (pos) => {
        const key = this.keyAtPosition(pos);
        return key !== undefined && (!filter || filter(key)) ? this.ids.idOf(key) : undefined;
      },
      (id) => {
        const slot = this.slotOf(id);
        if (slot === undefined) return 0;
        return evaluator.scoreSlot(terms, slot, this.k1 * (1 - this.b + (this.b * (this.docLen[slot] as number)) / (avgdl || 1)));
      },
    );
    return reranked.slice(0, limit).map((h) => ({ docId: h.docId, key: this.ids.get(h.docId) as number, score: h.score, bm25: h.base, context: h.context }));
  }

  private queryWeights(query: string): Map<number, number> {
    const weights = new Map<number, number>();
    for (const term of this.analyzer(query)) {
      const t = this.termIds.get(term);
      if (t !== undefined) weights.set(t, (weights.get(t) ?? 0) + 1);
    }
    return weights;
  }

  /**
   * The index as columns (frozen.ts), for a snapshot: views of the live arrays, valid until the
   * next change. A shared id table is not included (its owner freezes it once).
   */
  freeze(): Frozen {
    this.endBulk();
    const out: Frozen = {
      meta: {
        k1: this.k1,
        b: this.b,
        fieldWeights: this.fieldWeights,
        nextSeq: this.nextSeq,
        nextSlot: this.nextSlot,
        liveDocs: this.liveDocs,
        totalLen: this.totalLen,
        termCount: this.termCount,
        compactions: this.compactions,
      },
      columns: {
        keySlot: { data: this.keySlot.subarray(0, Math.min(this.keySlot.length, this.ids.size)), grow: { fill: -1 } },
        slotKey: { data: this.slotKey.subarray(0, this.nextSlot), grow: { fill: -1 } },
        docLen: { data: this.docLen.subarray(0, this.nextSlot), grow: { fill: 0 } },
        slotSeq: { data: this.slotSeq.subarray(0, this.nextSlot), grow: { fill: 0 } },
        seqSlot: { data: this.seqSlot.subarray(0, this.nextSeq), grow: { fill: -1 } },
        termDf: { data: this.termDf.subarray(0, this.termCount), grow: { fill: 0 } },
        termMaxTf: { data: this.termMaxTf.subarray(0, this.termCount), grow: { fill: 0 } },
        termMinLen: { data: this.termMinLen.subarray(0, this.termCount), grow: { fill: 0 } },
      },
    };
    nest(out, 'terms', this.termIds.freeze());
    nest(out, 'postings', this.postings.freeze(this.termCount));
    nest(out, 'forward', this.forward.freeze(this.nextSlot));
    if (this.ownIds) nest(out, 'ids', this.ids.freeze());
    return out;
  }

  /**
   * An index from a frozen one (columns read back from a snapshot). `options` must be the ones it
   * was built with (k1, b and field weights are checked); a shared id table is passed in `options.ids`.
   */
  static thaw(options: LexicalIndexOptions, f: Frozen): LexicalIndex {
    const ids = options.ids ?? IdTable.thaw(child(f, 'ids'));
    const x = new LexicalIndex({ ...options, ids });
    x.ownIds = !options.ids;
    const same = f.meta.k1 === x.k1 && f.meta.b === x.b && JSON.stringify(f.meta.fieldWeights) === JSON.stringify(x.fieldWeights);
    if (!same) throw new Error('snapshot: the index was built with other BM25 settings');
    x.nextSeq = num(f, 'nextSeq');
    x.nextSlot = num(f, 'nextSlot');
    x.liveDocs = num(f, 'liveDocs');
    x.totalLen = num(f, 'totalLen');
    x.termCount = num(f, 'termCount');
    x.compactions = num(f, 'compactions');
    x.keySlot = col(f, 'keySlot', Int32Array);
    x.slotKey = col(f, 'slotKey', Int32Array);
    x.docLen = col(f, 'docLen', Uint32Array);
    x.slotSeq = col(f, 'slotSeq', Uint32Array);
    x.seqSlot = col(f, 'seqSlot', Int32Array);
    x.termDf = col(f, 'termDf', Int32Array);
    x.termMaxTf = col(f, 'termMaxTf', Uint8Array);
    x.termMinLen = col(f, 'termMinLen', Uint32Array);
    x.termIds = TermTable.thaw(child(f, 'terms'));
    x.postings = PostingLists.thaw(child(f, 'postings'));
    x.forward = ForwardIndex.thaw(child(f, 'forward'));
    if (x.termIds.size !== x.termCount || x.slotKey.length < x.nextSlot || x.seqSlot.length < x.nextSeq) throw new Error('snapshot: lexical index out of shape');
    return x;
  }

  // ---------------------------------------------------------------------------
  // internals: writing
  // ---------------------------------------------------------------------------

  private termFrequencies(fields: DocFields): Map<string, number> {
    const tf = new Map<string, number>();
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value !== 'string' || value.length === 0) continue;
      const w = this.fieldWeights[name] ?? 1;
      if (w === 0) continue;
      for (const t of this.analyzer(value)) tf.set(t, (tf.get(t) ?? 0) + w);
    }
    return tf;
  }

  private ensureSlotCapacity(n: number): void {
    if (this.docLen.length >= n) return;
    this.docLen = growUint32(this.docLen, n);
    this.slotKey = growInt32Filled(this.slotKey, n, -1);
    this.forward.ensureSlots(n);
    this.slotSeq = growUint32(this.slotSeq, n);
  }

  private newTerm(term: string): number {
    const t = this.termCount;
    this.termCount += 1;
    this.postings.ensureTerms(this.termCount);
    if (this.termDf.length < this.termCount) {
      this.termDf = growInt32(this.termDf, this.termCount);
      this.termMaxTf = growUint8(this.termMaxTf, this.termCount);
      this.termMinLen = growUint32(this.termMinLen, this.termCount);
    }
    if (this.termIds.add(term) !== t) throw new Error('LexicalIndex: term dictionary out of step');
    this.postings.addTerm(t);
    this.termDf[t] = 0;
    this.termMaxTf[t] = 0;
    this.termMinLen[t] = 0xffffffff;
    return t;
  }

  private appendPosting(t: number, slot: number, tf: number, docLength: number): void {
    this.postings.append(t, slot, tf);
    this.countPosting(t, tf, docLength);
  }

  /** The statistics of a new posting (a bulk load keeps only these until endBulk). */
  private countPosting(t: number, tf: number, docLength: number): void {
    this.termDf[t] = (this.termDf[t] as number) + 1;
    if (tf > (this.termMaxTf[t] as number)) this.termMaxTf[t] = tf;
    if (docLength < (this.termMinLen[t] as number)) this.termMinLen[t] = docLength;
  }

  private removeSlot(slot: number): void {
    const key = this.slotKey[slot] as number;
    if (key < 0) return;
    this.keySlot[key] = -1;
    this.slotKey[slot] = -1;
    this.seqSlot[this.slotSeq[slot] as number] = -1;
    let n = 0;
    this.forward.forEach(slot, (t) => {
      this.termDf[t] = (this.termDf[t] as number) - 1;
      n += 1;
    });
    if (!this.bulk) this.postings.dead += n; // in a bulk load the postings do not exist yet
    this.forward.drop(slot);
    this.totalLen -= this.docLen[slot] as number;
    this.docLen[slot] = 0;
    this.liveDocs -= 1;
  }

  private maybeCompact(): void {
    const used = this.postings.usedCells;
    if (used > 1 << 16 && this.postings.garbage() > this.compactRatio * used) this.compact();
    else if (this.nextSlot > 1024 && this.nextSlot > 4 * Math.max(1, this.liveDocs)) this.compact();
    else if (this.nextSeq > 1024 && this.nextSeq > 4 * Math.max(1, this.liveDocs)) this.compact();
  }

  /** Rewrite arenas without garbage and renumber slots densely (keeps insertion order). */
  compact(): void {
    this.endBulk();
    const oldKeys = this.slotKey;
    const newSlotOf = new Int32Array(this.nextSlot).fill(-1);
    let live = 0;
    for (let s = 0; s < this.nextSlot; s += 1)
      if ((oldKeys[s] as number) >= 0) {
        newSlotOf[s] = live;
        live += 1;
      }

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
    const termDf = new Int32Array(Math.max(16, terms));
    const termMaxTf = new Uint8Array(Math.max(16, terms));
    const termMinLen = new Uint32Array(Math.max(16, terms));
    const postings = this.postings.compacted(this.termCount, newTermOf, terms, cells, newSlotOf, this.docLen, (nt, count, maxTf, minLen) => {
      termMinLen[nt] = minLen;
      termDf[nt] = count;
      termMaxTf[nt] = maxTf;
    });

    // Forward index and per-slot arrays.
    const cap = Math.max(1024, live + (live >> 2));
    const docLen = new Uint32Array(cap);
    const slotKey = new Int32Array(cap).fill(-1);
    const keySlot = this.keySlot;
    for (let s = 0; s < this.nextSlot; s += 1) {
      const ns = newSlotOf[s] as number;
      if (ns < 0) continue;
      const key = oldKeys[s] as number;
      slotKey[ns] = key;
      keySlot[key] = ns;
      docLen[ns] = this.docLen[s] as number;
    }
    const forward = this.forward.compacted(this.nextSlot, newSlotOf, newTermOf, cap);

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

    this.slotKey = slotKey;
    this.docLen = docLen;
    this.nextSlot = live;
    this.termIds = this.termIds.keep(newTermOf, terms);
    this.termDf = termDf;
    this.termMaxTf = termMaxTf;
    this.termMinLen = termMinLen;
    this.termCount = terms;
    this.postings = postings;
    this.forward = forward;
    this.evaluator.dropScratch();
    this.compactions += 1;
  }

  // ---------------------------------------------------------------------------
  // internals: searching
  // ---------------------------------------------------------------------------

  /** What query evaluation reads (lexical-query.ts): the arrays as they are now. */
  private corpus(): Corpus {
    return { arena: this.postings.arena, docLen: this.docLen, slotKey: this.slotKey, nextSlot: this.nextSlot, liveDocs: this.liveDocs, totalLen: this.totalLen };
  }

  private prepare(weights: Map<number, number>, stats?: { docs: number; totalLen: number; df: (t: number) => number }): QueryTerm[] {
    const N = stats ? stats.docs : this.liveDocs;
    const avgdl = N ? (stats ? stats.totalLen : this.totalLen) / N : 1;
    const { k1, b } = this;
    const out: QueryTerm[] = [];
    for (const [t, qw] of weights) {
      if ((this.termDf[t] as number) <= 0 || qw <= 0) continue; // no live posting here
      const df = stats ? stats.df(t) : (this.termDf[t] as number);
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      const weight = idf * qw;
      // Upper bound of the term's contribution: its largest tf in its shortest document
      // (both tracked monotonically, so the bound stays valid after removals).
      const maxTf = this.termMaxTf[t] as number;
      const minNorm = k1 * (1 - b + (b * (this.termMinLen[t] as number)) / (avgdl || 1));
      const ub = (weight * maxTf * (k1 + 1)) / (maxTf + minNorm);
      const start = this.postings.startOf(t);
      out.push({ term: t, weight, ub, start, end: start + this.postings.lengthOf(t) });
    }
    if (out.length > this.maxQueryTerms) {
      // Long queries (a pasted log or summary): keep the terms that can contribute most.
      out.sort((x, y) => y.ub - x.ub || x.term - y.term);
      out.length = this.maxQueryTerms;
    }
    return out;
  }

  // ---------------------------------------------------------------------------
  // searching across indexes (multi-search.ts): statistics from outside
  // ---------------------------------------------------------------------------

  /** Total analysed length of the live documents (BM25 statistics across indexes). */
  get totalLength(): number {
    return this.totalLen;
  }

  /** The analysed terms of a query with their counts. */
  queryTermCounts(query: string): Map<string, number> {
    const out = new Map<string, number>();
    for (const term of this.analyzer(query)) out.set(term, (out.get(term) ?? 0) + 1);
    return out;
  }

  private localWeights(weights: Map<string, number>): Map<number, number> {
    const out = new Map<number, number>();
    for (const [term, w] of weights) {
      const t = this.termIds.get(term);
      if (t !== undefined) out.set(t, w);
    }
    return out;
  }

  private withStats(stats: CorpusStats): { docs: number; totalLen: number; df: (t: number) => number } {
    return { docs: stats.docs, totalLen: stats.totalLen, df: (t) => stats.df(this.termIds.nameOf(t)) };
  }

  /**
   * Top `limit` documents for term weights (by term string) scored with statistics `stats` that
   * describe several indexes together (document count, total length, document frequencies), so
   * scores of different indexes compare as if they were one. `seedKeys` prime the evaluation.
   */
  evaluateWith(weights: Map<string, number>, stats: CorpusStats, limit: number, filter?: KeyFilter, seedKeys?: number[]): { key: number; score: number }[] {
    this.endBulk();
    const local = this.localWeights(weights);
    if (local.size === 0) return [];
    try {
      const seeds = seedKeys?.map((k) => this.slotOfKey(k)).filter((s): s is number => s !== undefined);
      return this.evaluator
        .on({ ...this.corpus(), liveDocs: stats.docs, totalLen: stats.totalLen })
        .evaluate(this.prepare(local, this.withStats(stats)), limit, filter, seeds)
        .map((h) => ({ key: this.slotKey[h.slot] as number, score: h.score }));
    } finally {
      this.evaluator.release();
    }
  }

  /** The exact score of one document for term weights under `stats` (sequence context across indexes). */
  scoreKeyWith(weights: Map<string, number>, stats: CorpusStats, key: number): number {
    const slot = this.slotOfKey(key);
    if (slot === undefined) return 0;
    const terms = this.prepare(this.localWeights(weights), this.withStats(stats));
    const avgdl = stats.docs ? stats.totalLen / stats.docs : 1;
    try {
      return this.evaluator.on(this.corpus()).scoreSlot(terms, slot, this.k1 * (1 - this.b + (this.b * (this.docLen[slot] as number)) / (avgdl || 1)));
    } finally {
      this.evaluator.release();
    }
  }

  /** A document's analysed terms with their (field-weighted) frequencies, and its length. */
  termsOfKey(key: number): { terms: { term: string; tf: number }[]; length: number } | undefined {
    const slot = this.slotOfKey(key);
    if (slot === undefined) return undefined;
    const terms: { term: string; tf: number }[] = [];
    this.forward.forEach(slot, (t, tf) => terms.push({ term: this.termIds.nameOf(t), tf }));
    return { terms, length: this.docLen[slot] as number };
  }

  /** Position of a document (by number) in write order, or undefined. */
  positionOfKey(key: number): number | undefined {
    const slot = this.slotOfKey(key);
    return slot === undefined ? undefined : (this.slotSeq[slot] as number);
  }

  /** Exposed for tests: force one evaluation strategy. */
  searchWith(strategy: 'taat' | 'pruned', query: string, limit = 10, filter?: (docId: string) => boolean): SearchHit[] {
    this.endBulk();
    const terms = this.prepare(this.queryWeights(query));
    const evaluator = this.evaluator.on(this.corpus());
    const byKey: KeyFilter | undefined = filter ? (k) => filter(this.ids.idOf(k)) : undefined;
    const hits = strategy === 'taat' ? evaluator.taat(terms, limit, byKey) : evaluator.pruned(terms, limit, byKey);
    evaluator.release();
    return hits.map((h) => {
      const key = this.slotKey[h.slot] as number;
      return { docId: this.ids.idOf(key), key, score: h.score };
    });
  }

  private searchTermsSlots(weights: Map<number, number>, limit: number, filter?: KeyFilter): { slot: number; score: number }[] {
    return this.evaluator.on(this.corpus()).evaluate(this.prepare(weights), limit, filter);
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
      this.forward.forEach(d.slot, (t, tf) => {
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
