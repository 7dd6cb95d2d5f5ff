// Small growable typed-array helpers used by the indexes.

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

export function growUint8(a: Uint8Array, min: number): Uint8Array {
  if (a.length >= min) return a;
  let cap = Math.max(16, a.length);
  while (cap < min) cap = nextCapacity(cap);
  const b = new Uint8Array(cap);
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
  return s.length < 13 ? s : Buffer.from(s, "utf8").toString("utf8");
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
