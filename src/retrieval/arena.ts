// Small growable typed-array helpers used by the indexes.

import { col, num, type Frozen } from './frozen';

/** Doubling while small, then 1.25x: big arenas keep little unused room. */
function nextCapacity(cap: number): number {
  return cap < 1 << 20 ? cap * 2 : Math.ceil(cap * 1.25);
}

export function growUint32(a: Uint32Array, min: number): Uint32Array {
  if (a.length >= min) return a;
  let cap = Math.max(16, a.length);
  while (cap < min) cap = nextCapacity(cap);
  const b = new Uint32Array(cap);
  b.set(a);
  return b;
}

export function growInt32(a: Int32Array, min: number): Int32Array {
  if (a.length >= min) return a;
  let cap = Math.max(16, a.length);
  while (cap < min) cap = nextCapacity(cap);
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}

/** growInt32, the new room filled with `fill` (tables where 0 is a valid value and -1 means none). */
export function growInt32Filled(a: Int32Array, min: number, fill: number): Int32Array {
  if (a.length >= min) return a;
  const b = growInt32(a, min);
  b.fill(fill, a.length);
  return b;
}

export function growUint8(a: Uint8Array, min: number): Uint8Array {
  if (a.length >= min) return a;
  let cap = Math.max(16, a.length);
  while (cap < min) cap = nextCapacity(cap);
  const b = new Uint8Array(cap);
  b.set(a);
  return b;
}

export function growUint16(a: Uint16Array, min: number): Uint16Array {
  if (a.length >= min) return a;
  let cap = Math.max(16, a.length);
  while (cap < min) cap = nextCapacity(cap);
  const b = new Uint16Array(cap);
  b.set(a);
  return b;
}

export function growFloat32(a: Float32Array, min: number): Float32Array {
  if (a.length >= min) return a;
  let cap = Math.max(16, a.length);
  while (cap < min) cap = nextCapacity(cap);
  const b = new Float32Array(cap);
  b.set(a);
  return b;
}

/**
 * Returns a copy of `s` that owns its characters. Substrings produced by slicing or
 * regex matching can be V8 "sliced strings" that keep the whole source text alive;
 * the index stores terms for a long time and must not pin document texts.
 */
export function ownString(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

/** Fixed-size top-k selection: min-heap on (score asc, slot desc) so ties keep the lower slot. */
export class TopK {
  readonly k: number;
  size = 0;
  readonly scores: Float64Array;
  readonly slots: Int32Array;

  constructor(k: number) {
    this.k = k;
    this.scores = new Float64Array(k);
    this.slots = new Int32Array(k);
  }

  /** Lowest score that is still in the heap once full; -Infinity before. */
  threshold(): number {
    return this.size < this.k ? -Infinity : (this.scores[0] as number);
  }

  // a is "worse" than b: lower score, or equal score and higher slot.
  private worse(sa: number, ia: number, sb: number, ib: number): boolean {
    return sa < sb || (sa === sb && ia > ib);
  }

  /** Offer a candidate; returns true if it entered the heap. */
  push(score: number, slot: number): boolean {
    const { scores, slots } = this;
    if (this.size < this.k) {
      let i = this.size;
      this.size += 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(score, slot, scores[p] as number, slots[p] as number)) break;
        scores[i] = scores[p] as number;
        slots[i] = slots[p] as number;
        i = p;
      }
      scores[i] = score;
      slots[i] = slot;
      return true;
    }
    if (!this.worse(scores[0] as number, slots[0] as number, score, slot)) return false;
    // Replace root and sift down.
    let i = 0;
    const n = this.size;
    while (true) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && this.worse(scores[r] as number, slots[r] as number, scores[l] as number, slots[l] as number)) c = r;
      if (!this.worse(scores[c] as number, slots[c] as number, score, slot)) break;
      scores[i] = scores[c] as number;
      slots[i] = slots[c] as number;
      i = c;
    }
    scores[i] = score;
    slots[i] = slot;
    return true;
  }

  /** Entries best first. */
  sorted(): { score: number; slot: number }[] {
    const out: { score: number; slot: number }[] = [];
    for (let i = 0; i < this.size; i += 1) out.push({ score: this.scores[i] as number, slot: this.slots[i] as number });
    out.sort((a, b) => b.score - a.score || a.slot - b.slot);
    return out;
  }
}

/**
 * String ids numbered densely (0, 1, 2 … in order of first sight), for per-id columns in typed
 * arrays. Lore's node ids are UUIDs: a canonical lower-case UUID is kept as its four 32-bit words
 * (16 bytes) in an open-addressing table instead of as a string (~56 bytes) plus a Map entry
 * (~30 bytes); any other id goes to a Map. Ids are never removed.
 */
export class IdTable {
  private words: Uint32Array = new Uint32Array(4 * 64); // by number: the UUID's words (others: unused)
  private slots: Int32Array = new Int32Array(128).fill(-1); // open addressing (linear probing): numbers of UUID ids
  private uuids = 0;
  private others = new Map<string, number>();
  private otherNames = new Map<number, string>();
  private count = 0;
  // the parsed words of the id last looked up (no allocation per lookup)
  private w0 = 0;
  private w1 = 0;
  private w2 = 0;
  private w3 = 0;

  /** Ids held. */
  get size(): number {
    return this.count;
  }

  /** The id's number, or undefined. */
  get(id: string): number | undefined {
    if (!this.parse(id)) return this.others.get(id);
    const n = this.slots[this.probe()] as number;
    return n < 0 ? undefined : n;
  }

  /** The id's number, numbering it first if it is new. */
  add(id: string): number {
    if (!this.parse(id)) {
      let n = this.others.get(id);
      if (n === undefined) {
        n = this.next();
        const own = ownString(id);
        this.others.set(own, n);
        this.otherNames.set(n, own);
      }
      return n;
    }
    let at = this.probe();
    let n = this.slots[at] as number;
    if (n >= 0) return n;
    n = this.next();
    const w = this.words;
    w[4 * n] = this.w0;
    w[4 * n + 1] = this.w1;
    w[4 * n + 2] = this.w2;
    w[4 * n + 3] = this.w3;
    this.uuids += 1;
    if (2 * this.uuids > this.slots.length) {
      this.rehash(); // rehash() reuses w0..w3: set them back from the stored words
      this.w0 = w[4 * n] as number;
      this.w1 = w[4 * n + 1] as number;
      this.w2 = w[4 * n + 2] as number;
      this.w3 = w[4 * n + 3] as number;
      at = this.probe();
    }
    this.slots[at] = n;
    return n;
  }

  /** The id numbered n (a UUID is written out again from its words). */
  idOf(n: number): string {
    const other = this.otherNames.get(n);
    if (other !== undefined) return other;
    const w = this.words;
    const h = (x: number) => (x >>> 0).toString(16).padStart(8, '0');
    const a = h(w[4 * n] as number);
    const b = h(w[4 * n + 1] as number);
    const c = h(w[4 * n + 2] as number);
    const d = h(w[4 * n + 3] as number);
    return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`;
  }

  /** The table as columns (frozen.ts): the UUID words, the hash table, and the other ids by number. */
  freeze(): Frozen {
    return {
      meta: { count: this.count, uuids: this.uuids, others: [...this.otherNames] },
      columns: { words: { data: this.words.subarray(0, 4 * this.count), grow: { fill: 0 } }, slots: { data: this.slots } },
    };
  }

  static thaw(f: Frozen): IdTable {
    const t = new IdTable();
    t.count = num(f, 'count');
    t.uuids = num(f, 'uuids');
    t.words = col(f, 'words', Uint32Array);
    t.slots = col(f, 'slots', Int32Array);
    if (t.words.length < 4 * t.count || (t.slots.length & (t.slots.length - 1)) !== 0) throw new Error('snapshot: id table out of shape');
    for (const [n, id] of f.meta.others as [number, string][]) {
      t.others.set(id, n);
      t.otherNames.set(n, id);
    }
    return t;
  }

  private next(): number {
    const n = this.count;
    this.count += 1;
    if (this.words.length < 4 * this.count) this.words = growUint32(this.words, 4 * this.count);
    return n;
  }

  /** The table position holding the last parsed UUID, or the empty one where it would go. */
  private probe(): number {
    const { slots, words, w0, w1, w2, w3 } = this;
    const mask = slots.length - 1;
    let h = Math.imul(w3 ^ Math.imul(w2, 0x9e3779b1) ^ Math.imul(w1, 0x85ebca77) ^ Math.imul(w0, 0xc2b2ae3d), 0x27d4eb2f);
    h ^= h >>> 15;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const n = slots[i] as number;
      if (n < 0) return i;
      const b = 4 * n;
      if (words[b + 3] === w3 && words[b + 2] === w2 && words[b + 1] === w1 && words[b] === w0) return i;
    }
  }

  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(-1);
    const { words } = this;
    for (let i = 0; i < old.length; i += 1) {
      const n = old[i] as number;
      if (n < 0) continue;
      this.w0 = words[4 * n] as number;
      this.w1 = words[4 * n + 1] as number;
      this.w2 = words[4 * n + 2] as number;
      this.w3 = words[4 * n + 3] as number;
      this.slots[this.probe()] = n;
    }
  }

  /** Parses a canonical lower-case UUID (8-4-4-4-12 hex digits) into w0..w3; false for anything else. */
  private parse(id: string): boolean {
    if (id.length !== 36) return false;
    let w = 0;
    let digits = 0;
    for (let i = 0; i < 36; i += 1) {
      const c = id.charCodeAt(i);
      if (i === 8 || i === 13 || i === 18 || i === 23) {
        if (c !== 45) return false; // '-'
        continue;
      }
      let v: number;
      if (c >= 48 && c <= 57) v = c - 48;
      else if (c >= 97 && c <= 102) v = c - 87;
      else return false;
      w = (w << 4) | v;
      digits += 1;
      if ((digits & 7) === 0) {
        const k = (digits >>> 3) - 1;
        if (k === 0) this.w0 = w >>> 0;
        else if (k === 1) this.w1 = w >>> 0;
        else if (k === 2) this.w2 = w >>> 0;
        else this.w3 = w >>> 0;
        w = 0;
      }
    }
    return true;
  }
}

/**
 * Strings numbered densely (0, 1, 2 … in order of insertion), for an index's term dictionary:
 * the characters of all strings in one Uint16Array, found through an open-addressing table. At
 * ~30 bytes a term instead of ~70 for a Map entry and its string, and no string per term.
 */
export class TermTable {
  private chars: Uint16Array = new Uint16Array(1024);
  private charsUsed = 0;
  private starts: Uint32Array = new Uint32Array(65); // by number: first char; starts[count] = charsUsed
  private hashes: Uint32Array = new Uint32Array(64);
  private slots: Int32Array = new Int32Array(128).fill(-1);
  private count = 0;

  /** Strings held. */
  get size(): number {
    return this.count;
  }

  /** The string's number, or undefined. */
  get(s: string): number | undefined {
    const n = this.slots[this.probe(s, TermTable.hash(s))] as number;
    return n < 0 ? undefined : n;
  }

  /** Adds a string not held yet (check with get first) and returns its number. */
  add(s: string): number {
    const h = TermTable.hash(s);
    const n = this.count;
    this.count += 1;
    if (this.hashes.length < this.count) this.hashes = growUint32(this.hashes, this.count);
    if (this.starts.length < this.count + 1) this.starts = growUint32(this.starts, this.count + 1);
    if (this.chars.length < this.charsUsed + s.length) this.chars = growUint16(this.chars, this.charsUsed + s.length);
    const { chars } = this;
    for (let i = 0; i < s.length; i += 1) chars[this.charsUsed + i] = s.charCodeAt(i);
    this.charsUsed += s.length;
    this.starts[n + 1] = this.charsUsed;
    this.hashes[n] = h;
    if (2 * this.count > this.slots.length) this.rehash(this.slots.length * 2);
    else this.slots[this.probe(s, h)] = n;
    return n;
  }

  /** The string numbered n. */
  nameOf(n: number): string {
    const end = this.starts[n + 1] as number;
    let out = '';
    for (let a = this.starts[n] as number; a < end; a += 4096) out += String.fromCharCode(...this.chars.subarray(a, Math.min(end, a + 4096)));
    return out;
  }

  /** The table as columns (frozen.ts). */
  freeze(): Frozen {
    return {
      meta: { count: this.count, charsUsed: this.charsUsed },
      columns: {
        chars: { data: this.chars.subarray(0, this.charsUsed), grow: { fill: 0 } },
        starts: { data: this.starts.subarray(0, this.count + 1), grow: { fill: 0 } },
        hashes: { data: this.hashes.subarray(0, this.count), grow: { fill: 0 } },
        slots: { data: this.slots },
      },
    };
  }

  static thaw(f: Frozen): TermTable {
    const t = new TermTable();
    t.count = num(f, 'count');
    t.charsUsed = num(f, 'charsUsed');
    t.chars = col(f, 'chars', Uint16Array);
    t.starts = col(f, 'starts', Uint32Array);
    t.hashes = col(f, 'hashes', Uint32Array);
    t.slots = col(f, 'slots', Int32Array);
    if (t.starts.length < t.count + 1 || t.hashes.length < t.count || (t.slots.length & (t.slots.length - 1)) !== 0) throw new Error('snapshot: term table out of shape');
    return t;
  }

  /** A new table holding the strings with newOf[n] >= 0, numbered newOf[n] (same relative order). */
  keep(newOf: Int32Array, count: number): TermTable {
    const t = new TermTable();
    let chars = 0;
    for (let n = 0; n < this.count; n += 1) if ((newOf[n] as number) >= 0) chars += (this.starts[n + 1] as number) - (this.starts[n] as number);
    t.chars = new Uint16Array(Math.max(16, chars));
    t.starts = new Uint32Array(count + 1);
    t.hashes = new Uint32Array(Math.max(16, count));
    for (let n = 0; n < this.count; n += 1) {
      const m = newOf[n] as number;
      if (m < 0) continue;
      if (m !== t.count) throw new RangeError('TermTable.keep: new numbers must be dense and in order');
      const a = this.starts[n] as number;
      const b = this.starts[n + 1] as number;
      t.chars.set(this.chars.subarray(a, b), t.charsUsed);
      t.charsUsed += b - a;
      t.count += 1;
      t.starts[t.count] = t.charsUsed;
      t.hashes[m] = this.hashes[n] as number;
    }
    let cap = 128;
    while (cap < 2 * count) cap *= 2;
    t.rehash(cap);
    return t;
  }

  private static hash(s: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i += 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    return (h ^ (h >>> 16)) >>> 0;
  }

  /** Where s is in the table, or the empty position where it would go. */
  private probe(s: string, h: number): number {
    const { slots, hashes, starts, chars } = this;
    const mask = slots.length - 1;
    const len = s.length;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const n = slots[i] as number;
      if (n < 0) return i;
      if (hashes[n] !== h) continue;
      const a = starts[n] as number;
      if ((starts[n + 1] as number) - a !== len) continue;
      let j = 0;
      while (j < len && chars[a + j] === s.charCodeAt(j)) j += 1;
      if (j === len) return i;
    }
  }

  private rehash(cap: number): void {
    const slots = new Int32Array(cap).fill(-1);
    const mask = cap - 1;
    for (let n = 0; n < this.count; n += 1) {
      let i = (this.hashes[n] as number) & mask;
      while ((slots[i] as number) >= 0) i = (i + 1) & mask;
      slots[i] = n;
    }
    this.slots = slots;
  }
}

/**
 * A set of non-negative 31-bit integers in one Int32Array (open addressing, linear probing; -1
 * empty): a hash per node of a scope costs 8 bytes here instead of ~20 in a Set, and the table
 * is a column a snapshot writes as it is. Values are never removed.
 */
export class IntSet {
  private table: Int32Array = new Int32Array(64).fill(-1);
  private count = 0;

  get size(): number {
    return this.count;
  }

  has(v: number): boolean {
    return (this.table[this.probe(v)] as number) === v;
  }

  add(v: number): void {
    if (v < 0 || v > 0x7fffffff || !Number.isInteger(v)) throw new RangeError('IntSet: values are integers 0..2^31-1');
    const at = this.probe(v);
    if ((this.table[at] as number) === v) return;
    this.table[at] = v;
    this.count += 1;
    if (2 * this.count > this.table.length) this.rehash(this.table.length * 2);
  }

  private probe(v: number): number {
    const { table } = this;
    const mask = table.length - 1;
    let h = Math.imul(v, 0x9e3779b1);
    h ^= h >>> 15;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const x = table[i] as number;
      if (x === v || x < 0) return i;
    }
  }

  private rehash(cap: number): void {
    const old = this.table;
    this.table = new Int32Array(cap).fill(-1);
    for (let i = 0; i < old.length; i += 1) {
      const v = old[i] as number;
      if (v >= 0) this.table[this.probe(v)] = v;
    }
  }

  freeze(): Frozen {
    return { meta: { count: this.count }, columns: { table: { data: this.table } } };
  }

  static thaw(f: Frozen): IntSet {
    const s = new IntSet();
    s.count = num(f, 'count');
    s.table = col(f, 'table', Int32Array);
    if ((s.table.length & (s.table.length - 1)) !== 0 || 2 * s.count > s.table.length) throw new Error('snapshot: integer set out of shape');
    return s;
  }
}
