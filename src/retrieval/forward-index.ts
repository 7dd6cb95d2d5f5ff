/**
 * The forward index of the lexical index (lexical-index.ts): per slot, its sorted term ids and
 * tfs, varint coded (term ids as deltas) in one Uint8Array arena. It makes removal exact (df and
 * length statistics are corrected at once), feeds the bulk layout of the posting lists and
 * pseudo-relevance feedback. A removed slot's bytes stay as garbage until a compaction rewrites
 * the arena.
 */
import { growUint32, growUint8 } from './arena';
import { col, num, type Frozen } from './frozen';

export class ForwardIndex {
  private buf: Uint8Array;
  private used = 0;
  private garbage = 0;
  private start: Uint32Array;
  private end: Uint32Array;

  constructor(slots = 1024, bytes = 1 << 14) {
    this.start = new Uint32Array(slots);
    this.end = new Uint32Array(slots);
    this.buf = new Uint8Array(bytes);
  }

  /** Allocated bytes (stats). */
  get byteLength(): number {
    return this.buf.byteLength;
  }

  /** Bytes held by live slots' lists, as a compaction would write them (plus garbage: none after it). */
  get liveBytes(): number {
    return this.used - this.garbage;
  }

  /** The lists as columns (frozen.ts); `slots` is the number of slots in use. */
  freeze(slots: number): Frozen {
    return {
      meta: { used: this.used, garbage: this.garbage },
      columns: {
        buf: { data: this.buf.subarray(0, this.used), grow: { fill: 0 } },
        start: { data: this.start.subarray(0, slots), grow: { fill: 0 } },
        end: { data: this.end.subarray(0, slots), grow: { fill: 0 } },
      },
    };
  }

  static thaw(f: Frozen): ForwardIndex {
    const x = new ForwardIndex(16, 16);
    x.used = num(f, 'used');
    x.garbage = num(f, 'garbage');
    x.buf = col(f, 'buf', Uint8Array);
    x.start = col(f, 'start', Uint32Array);
    x.end = col(f, 'end', Uint32Array);
    if (x.buf.length < x.used || x.start.length !== x.end.length) throw new Error('snapshot: forward index out of shape');
    return x;
  }

  ensureSlots(n: number): void {
    if (this.start.length >= n) return;
    this.start = growUint32(this.start, n);
    this.end = growUint32(this.end, n);
  }

  /** Writes a slot's list: `begin`, then `write(termDelta)`, `write(tf)` per entry in term order, then `finish`. */
  begin(slot: number): void {
    this.start[slot] = this.used;
  }

  write(v: number): void {
    if (this.used + 5 > this.buf.length) this.buf = growUint8(this.buf, this.used + 5);
    let x = v;
    while (x >= 0x80) {
      this.buf[this.used] = (x & 0x7f) | 0x80;
      this.used += 1;
      x >>>= 7;
    }
    this.buf[this.used] = x;
    this.used += 1;
  }

  finish(slot: number): void {
    this.end[slot] = this.used;
  }

  /** Calls fn(term, tf) for every entry of a slot's forward list. */
  forEach(slot: number, fn: (term: number, tf: number) => void): void {
    const fwd = this.buf;
    let p = this.start[slot] as number;
    const end = this.end[slot] as number;
    let term = 0;
    while (p < end) {
      let v = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = fwd[p] as number;
        p += 1;
        v += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte & 0x80);
      term += v;
      const tf = fwd[p] as number; // tf <= 255 fits one or two varint bytes
      p += 1;
      let c = tf & 0x7f;
      if (tf & 0x80) {
        c += ((fwd[p] as number) & 0x7f) << 7;
        p += 1;
      }
      fn(term, c);
    }
  }

  /** A removed slot: its list is garbage from now on. */
  drop(slot: number): void {
    this.garbage += (this.end[slot] as number) - (this.start[slot] as number);
    this.start[slot] = 0;
    this.end[slot] = 0;
  }

  /**
   * The lists of the live slots, renumbered: slot s becomes newSlotOf[s] (negative: dropped) and
   * term t becomes newTermOf[t]. New term ids keep the old relative order, so deltas stay
   * non-negative. `slots` is the new slot capacity.
   */
  compacted(nextSlot: number, newSlotOf: Int32Array, newTermOf: Int32Array, slots: number): ForwardIndex {
    const out = new ForwardIndex(slots, Math.max(1 << 14, this.liveBytes + 64));
    for (let s = 0; s < nextSlot; s += 1) {
      const ns = newSlotOf[s] as number;
      if (ns < 0) continue;
      out.begin(ns);
      let prev = 0;
      this.forEach(s, (t, tf) => {
        const nt = newTermOf[t] as number;
        out.write(nt - prev);
        out.write(tf);
        prev = nt;
      });
      out.finish(ns);
    }
    return out;
  }
}
