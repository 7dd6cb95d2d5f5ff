/**
 * The posting lists of the lexical index (lexical-index.ts), all in ONE Uint32Array arena, each
 * entry `slot << 8 | tf`. A term owns a contiguous region, sorted by slot, whose capacity doubles
 * when full: it grows in place at the arena end, or moves to a free region of the new size
 * (per-size free lists) or to the arena end. Dead postings (of removed slots) stay until a
 * compaction rewrites the arena; a bulk load lays every list out once, exactly sized.
 */
import { growUint32 } from './arena';
import { col, num, type Frozen } from './frozen';

export class PostingLists {
  /** The arena, read directly by query evaluation (lexical-query.ts). */
  arena: Uint32Array;
  private used = 0;
  private free = 0; // cells in free-list regions (reusable)
  private waste = 0; // cells lost until the next compaction
  private freeLists: number[][] = []; // by log2(capacity): starts of free regions
  /** Postings that point at dead slots. */
  dead = 0;
  private start: Uint32Array;
  private len: Uint32Array;
  private cap: Uint32Array;

  constructor(terms = 1024, cells = 1 << 14) {
    this.start = new Uint32Array(terms);
    this.len = new Uint32Array(terms);
    this.cap = new Uint32Array(terms);
    this.arena = new Uint32Array(cells);
  }

  /** Cells handed out to terms (postings plus growth room and free regions). */
  get usedCells(): number {
    return this.used;
  }

  /** Cells in free regions waiting for reuse. */
  get freeCells(): number {
    return this.free;
  }

  /** Cells lost (dead postings, unusable tails, much free space) that a compaction would win back. */
  garbage(): number {
    return this.waste + this.dead + (this.free > this.used / 2 ? this.free : 0);
  }

  /** The lists as columns (frozen.ts); `terms` is the number of terms in use. */
  freeze(terms: number): Frozen {
    // Free regions by size class, flattened: class, count, starts…
    const free: number[] = [];
    this.freeLists.forEach((list, cls) => {
      if (list && list.length > 0) free.push(cls, list.length, ...list);
    });
    return {
      meta: { used: this.used, free: this.free, waste: this.waste, dead: this.dead, terms },
      columns: {
        arena: { data: this.arena.subarray(0, this.used), grow: { fill: 0 } },
        start: { data: this.start.subarray(0, terms), grow: { fill: 0 } },
        len: { data: this.len.subarray(0, terms), grow: { fill: 0 } },
        cap: { data: this.cap.subarray(0, terms), grow: { fill: 0 } },
        freeLists: { data: Int32Array.from(free) },
      },
    };
  }

  static thaw(f: Frozen): PostingLists {
    const p = new PostingLists(16, 16);
    p.used = num(f, 'used');
    p.free = num(f, 'free');
    p.waste = num(f, 'waste');
    p.dead = num(f, 'dead');
    p.arena = col(f, 'arena', Uint32Array);
    p.start = col(f, 'start', Uint32Array);
    p.len = col(f, 'len', Uint32Array);
    p.cap = col(f, 'cap', Uint32Array);
    if (p.arena.length < p.used) throw new Error('snapshot: postings out of shape');
    const free = col(f, 'freeLists', Int32Array);
    for (let i = 0; i < free.length; ) {
      const cls = free[i] as number;
      const n = free[i + 1] as number;
      p.freeLists[cls] = Array.from(free.subarray(i + 2, i + 2 + n));
      i += 2 + n;
    }
    return p;
  }

  startOf(t: number): number {
    return this.start[t] as number;
  }

  /** Postings held for the term (dead ones included). */
  lengthOf(t: number): number {
    return this.len[t] as number;
  }

  /** Room for `n` terms. */
  ensureTerms(n: number): void {
    if (this.start.length >= n) return;
    this.start = growUint32(this.start, n);
    this.len = growUint32(this.len, n);
    this.cap = growUint32(this.cap, n);
  }

  /** A new term: no region yet. */
  addTerm(t: number): void {
    this.start[t] = 0;
    this.len[t] = 0;
    this.cap[t] = 0;
  }

  append(t: number, slot: number, tf: number): void {
    const len = this.len[t] as number;
    const cap = this.cap[t] as number;
    if (len === cap) this.growRegion(t, len, cap);
    this.arena[(this.start[t] as number) + len] = slot * 256 + tf;
    this.len[t] = len + 1;
  }

  /** Drops every list (a bulk load starts; `layOut` writes them again). */
  clear(): void {
    this.arena = new Uint32Array(0);
    this.len.fill(0);
    this.cap.fill(0);
    this.start.fill(0);
    this.used = 0;
    this.free = 0;
    this.waste = 0;
    this.freeLists = [];
    this.dead = 0;
  }

  /**
   * Lays out every list once, exactly sized for `df[t]` postings, then lets `fill` write them
   * through `put` in slot order.
   */
  layOut(termCount: number, df: Int32Array, fill: (put: (t: number, slot: number, tf: number) => void) => void): void {
    let cells = 0;
    for (let t = 0; t < termCount; t += 1) {
      const n = df[t] as number;
      this.start[t] = cells;
      this.len[t] = 0;
      this.cap[t] = n;
      cells += n;
    }
    const arena = new Uint32Array(Math.max(1 << 14, cells));
    const termStart = this.start;
    const termLen = this.len;
    fill((t, slot, tf) => {
      const len = termLen[t] as number;
      arena[(termStart[t] as number) + len] = slot * 256 + tf;
      termLen[t] = len + 1;
    });
    this.arena = arena;
    this.used = cells;
  }

  /**
   * The live postings rewritten without garbage: term t becomes newTermOf[t] (negative: dropped,
   * `terms` kept holding `cells` postings), slot s becomes newSlotOf[s] (negative: dead).
   * `onTerm` receives each kept term's new postings count, largest tf and shortest document
   * (`docLen` by old slot).
   */
  compacted(
    termCount: number,
    newTermOf: Int32Array,
    terms: number,
    cells: number,
    newSlotOf: Int32Array,
    docLen: Uint32Array,
    onTerm: (nt: number, count: number, maxTf: number, minLen: number) => void,
  ): PostingLists {
    const out = new PostingLists(Math.max(16, terms), Math.max(1 << 14, cells + (cells >> 3)));
    const { arena, start: termStart, len: termLen, cap: termCap } = out;
    let used = 0;
    for (let t = 0; t < termCount; t += 1) {
      const nt = newTermOf[t] as number;
      if (nt < 0) continue;
      const start = this.start[t] as number;
      const end = start + (this.len[t] as number);
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
        const dl = docLen[os] as number;
        if (dl < minLen) minLen = dl;
      }
      termLen[nt] = used - (termStart[nt] as number);
      termCap[nt] = termLen[nt] as number;
      onTerm(nt, termLen[nt] as number, maxTf, minLen);
    }
    out.used = used;
    return out;
  }

  private alloc(cells: number): number {
    const at = this.used;
    if (at + cells > this.arena.length) this.arena = growUint32(this.arena, at + cells);
    this.used += cells;
    return at;
  }

  /**
   * A term's region is full: double it (capacities are powers of two). A region at the
   * end of the arena grows in place; otherwise it moves into a free region of the new size
   * class (or the arena end) and its old region goes to the free list of its class.
   */
  private growRegion(t: number, len: number, cap: number): void {
    const start = this.start[t] as number;
    const newCap = cap === 0 ? 1 : 2 ** Math.ceil(Math.log2(cap + 1));
    if (cap > 0 && start + cap === this.used) {
      this.alloc(newCap - cap);
      this.cap[t] = newCap;
      return;
    }
    const cls = Math.log2(newCap);
    const free = this.freeLists[cls];
    let at: number;
    if (free && free.length > 0) {
      at = free.pop() as number;
      this.free -= newCap;
    } else {
      at = this.alloc(newCap);
    }
    if (len > 0) this.arena.copyWithin(at, start, start + len);
    if (cap > 0) this.freeRegion(start, cap);
    this.start[t] = at;
    this.cap[t] = newCap;
  }

  private freeRegion(start: number, cap: number): void {
    const cls = Math.floor(Math.log2(cap));
    const size = 2 ** cls;
    (this.freeLists[cls] ??= []).push(start);
    this.free += size;
    this.waste += cap - size; // the tail of a non-power-of-two region is not reused
  }
}
