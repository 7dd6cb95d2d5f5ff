// Exact cosine-similarity index over L2-normalised Float32 vectors.
//
// Vectors live in one Float32Array (row-major, `dim` floats per document); removal moves
// the last row into the hole, so the matrix stays dense and a scan touches only live rows.
// Search is a brute-force dot product with a top-k heap: exact, simple, and linear in
// documents x dimensions (see bench/retrieval/scale.ts for its cost at 100k documents).

import { ownString, TopK } from './arena';

export interface VectorSearchOptions {
  limit?: number;
  filter?: (docId: string) => boolean;
  /** Only score these documents (e.g. lexical candidates); absent ids are ignored. */
  candidates?: Iterable<string>;
}

export interface VectorHit {
  docId: string;
  score: number;
}

export class VectorIndex {
  private dimension: number;
  private data: Float32Array = new Float32Array(0);
  private ids: string[] = [];
  private idToRow = new Map<string, number>();

  /** `dim` may be left out; the first upsert fixes it. */
  constructor(dim?: number) {
    this.dimension = dim ?? 0;
  }

  get dim(): number {
    return this.dimension;
  }

  get size(): number {
    return this.ids.length;
  }

  has(docId: string): boolean {
    return this.idToRow.has(docId);
  }

  upsert(docId: string, vector: ArrayLike<number>): void {
    if (this.dimension === 0) this.dimension = vector.length;
    if (vector.length !== this.dimension) {
      throw new RangeError(`VectorIndex: vector has ${vector.length} dimensions, index has ${this.dimension}`);
    }
    let norm = 0;
    for (let i = 0; i < vector.length; i += 1) {
      const x = vector[i] as number;
      if (!Number.isFinite(x)) throw new RangeError('VectorIndex: vector contains a non-finite value');
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    const inv = norm > 0 ? 1 / norm : 0;
    let row = this.idToRow.get(docId);
    if (row === undefined) {
      row = this.ids.length;
      const id = ownString(docId);
      this.ids.push(id);
      this.idToRow.set(id, row);
      const need = (row + 1) * this.dimension;
      if (this.data.length < need) {
        const grown = new Float32Array(Math.max(need, Math.ceil(this.data.length * 1.5), 64 * this.dimension));
        grown.set(this.data);
        this.data = grown;
      }
    }
    const off = row * this.dimension;
    for (let i = 0; i < this.dimension; i += 1) this.data[off + i] = (vector[i] as number) * inv;
  }

  remove(docId: string): boolean {
    const row = this.idToRow.get(docId);
    if (row === undefined) return false;
    const last = this.ids.length - 1;
    if (row !== last) {
      const lastId = this.ids[last] as string;
      this.data.copyWithin(row * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.ids[row] = lastId;
      this.idToRow.set(lastId, row);
    }
    this.ids.pop();
    this.idToRow.delete(docId);
    return true;
  }

  /** The stored (normalised) vector, a copy. */
  get(docId: string): Float32Array | undefined {
    const row = this.idToRow.get(docId);
    if (row === undefined) return undefined;
    return this.data.slice(row * this.dimension, (row + 1) * this.dimension);
  }

  /**
   * The mean cosine of the query to up to `sample` stored vectors, evenly spaced through the index:
   * what an unrelated text scores with this encoder in this collection (0 when empty).
   */
  background(query: ArrayLike<number>, sample = 64): number {
    const n = this.ids.length;
    if (n === 0 || query.length !== this.dimension) return 0;
    const take = Math.min(n, sample);
    const step = n / take;
    let sum = 0;
    for (let k = 0; k < take; k += 1) sum += this.cosineAt(query, Math.floor(k * step));
    return sum / take;
  }

  /** The cosine of the query to each given document that has a vector. */
  scores(query: ArrayLike<number>, docIds: Iterable<string>): Map<string, number> {
    const out = new Map<string, number>();
    if (query.length !== this.dimension) return out;
    for (const id of docIds) {
      const row = this.idToRow.get(id);
      if (row !== undefined) out.set(id, this.cosineAt(query, row));
    }
    return out;
  }

  private cosineAt(query: ArrayLike<number>, row: number): number {
    const dim = this.dimension;
    const off = row * dim;
    let dot = 0;
    let qq = 0;
    for (let i = 0; i < dim; i += 1) {
      const q = query[i] as number;
      dot += q * (this.data[off + i] as number);
      qq += q * q;
    }
    return qq > 0 ? dot / Math.sqrt(qq) : 0;
  }

  search(query: ArrayLike<number>, options: VectorSearchOptions = {}): VectorHit[] {
    const limit = Math.max(1, Math.floor(options.limit ?? 10));
    const dim = this.dimension;
    if (this.ids.length === 0 || dim === 0) return [];
    if (query.length !== dim) throw new RangeError(`VectorIndex: query has ${query.length} dimensions, index has ${dim}`);
    let norm = 0;
    for (let i = 0; i < dim; i += 1) norm += (query[i] as number) * (query[i] as number);
    if (norm === 0) return [];
    const inv = 1 / Math.sqrt(norm);
    const q = new Float32Array(dim);
    for (let i = 0; i < dim; i += 1) q[i] = (query[i] as number) * inv;

    const heap = new TopK(limit);
    const data = this.data;
    const filter = options.filter;
    const scoreRow = (row: number): void => {
      const off = row * dim;
      let s = 0;
      let i = 0;
      for (; i + 3 < dim; i += 4) {
        s +=
          (q[i] as number) * (data[off + i] as number) +
          (q[i + 1] as number) * (data[off + i + 1] as number) +
          (q[i + 2] as number) * (data[off + i + 2] as number) +
          (q[i + 3] as number) * (data[off + i + 3] as number);
      }
      for (; i < dim; i += 1) s += (q[i] as number) * (data[off + i] as number);
      if (heap.size === limit && s <= heap.threshold()) return;
      if (filter && !filter(this.ids[row] as string)) return;
      heap.push(s, row);
    };
    if (options.candidates) {
      const seen = new Set<number>();
      for (const id of options.candidates) {
        const row = this.idToRow.get(id);
        if (row !== undefined && !seen.has(row)) {
          seen.add(row);
          scoreRow(row);
        }
      }
    } else {
      for (let row = 0; row < this.ids.length; row += 1) scoreRow(row);
    }
    return heap.sorted().map((h) => ({ docId: this.ids[h.slot] as string, score: h.score }));
  }
}
