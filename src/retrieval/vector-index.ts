// Exact cosine-similarity index over L2-normalised Float32 vectors.
//
// Vectors live in one Float32Array (row-major, `dim` floats per document); removal moves
// the last row into the hole, so the matrix stays dense and a scan touches only live rows.
// Search is a brute-force dot product with a top-k heap: exact, simple, and linear in
// documents x dimensions (see bench/retrieval/scale.ts for its cost at 100k documents).
// Documents are numbered in an id table (arena.ts IdTable), the index's own or one shared with
// the lexical indexes of the same partition, so a document's number (`key`) means the same there.

import { growInt32Filled, IdTable, TopK } from './arena';
import { child, col, num, type Frozen, nest } from './frozen';

export interface VectorSearchOptions {
  limit?: number;
  filter?: (docId: string) => boolean;
  /** The same by the document's number (no id string per candidate); wins over `filter`. */
  keyFilter?: (key: number) => boolean;
  /** Only score these documents (e.g. lexical candidates); absent ids are ignored. */
  candidates?: Iterable<string>;
}

export interface VectorHit {
  docId: string;
  /** The document's number in the index's id table. */
  key: number;
  score: number;
}

export class VectorIndex {
  private dimension: number;
  private data: Float32Array = new Float32Array(0);
  private readonly ids: IdTable;
  private ownIds: boolean;
  private rows = 0;
  private rowKey: Int32Array = new Int32Array(64);
  private keyRow: Int32Array = new Int32Array(64).fill(-1);

  /** `dim` may be left out; the first upsert fixes it. `ids`: a shared id table. */
  constructor(dim?: number, opts: { ids?: IdTable } = {}) {
    this.dimension = dim ?? 0;
    this.ownIds = !opts.ids;
    this.ids = opts.ids ?? new IdTable();
  }

  get dim(): number {
    return this.dimension;
  }

  get size(): number {
    return this.rows;
  }

  has(docId: string): boolean {
    const key = this.ids.get(docId);
    return key !== undefined && this.hasKey(key);
  }

  hasKey(key: number): boolean {
    return key < this.keyRow.length && (this.keyRow[key] as number) >= 0;
  }

  upsert(docId: string, vector: ArrayLike<number>): void {
    this.upsertKey(this.ids.add(docId), vector);
  }

  upsertKey(key: number, vector: ArrayLike<number>): void {
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
    if (this.keyRow.length <= key) this.keyRow = growInt32Filled(this.keyRow, key + 1, -1);
    let row = this.keyRow[key] as number;
    if (row < 0) {
      row = this.rows;
      this.rows += 1;
      if (this.rowKey.length < this.rows) this.rowKey = growInt32Filled(this.rowKey, this.rows, -1);
      this.rowKey[row] = key;
      this.keyRow[key] = row;
      const need = this.rows * this.dimension;
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
    const key = this.ids.get(docId);
    return key !== undefined && this.removeKey(key);
  }

  removeKey(key: number): boolean {
    if (!this.hasKey(key)) return false;
    const row = this.keyRow[key] as number;
    const last = this.rows - 1;
    if (row !== last) {
      const lastKey = this.rowKey[last] as number;
      this.data.copyWithin(row * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.rowKey[row] = lastKey;
      this.keyRow[lastKey] = row;
    }
    this.rowKey[last] = -1;
    this.keyRow[key] = -1;
    this.rows = last;
    return true;
  }

  /** The stored (normalised) vector, a copy. */
  get(docId: string): Float32Array | undefined {
    const key = this.ids.get(docId);
    if (key === undefined || !this.hasKey(key)) return undefined;
    const row = this.keyRow[key] as number;
    return this.data.slice(row * this.dimension, (row + 1) * this.dimension);
  }

  /**
   * The mean cosine of the query to up to `sample` stored vectors, evenly spaced through the index:
   * what an unrelated text scores with this encoder in this collection (0 when empty).
   */
  background(query: ArrayLike<number>, sample = 64): number {
    const n = this.rows;
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
      const key = this.ids.get(id);
      if (key !== undefined && this.hasKey(key)) out.set(id, this.cosineAt(query, this.keyRow[key] as number));
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
    if (this.rows === 0 || dim === 0) return [];
    if (query.length !== dim) throw new RangeError(`VectorIndex: query has ${query.length} dimensions, index has ${dim}`);
    let norm = 0;
    for (let i = 0; i < dim; i += 1) norm += (query[i] as number) * (query[i] as number);
    if (norm === 0) return [];
    const inv = 1 / Math.sqrt(norm);
    const q = new Float32Array(dim);
    for (let i = 0; i < dim; i += 1) q[i] = (query[i] as number) * inv;

    const heap = new TopK(limit);
    const data = this.data;
    const byId = options.filter;
    const filter = options.keyFilter ?? (byId ? (k: number) => byId(this.ids.idOf(k)) : undefined);
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
      if (filter && !filter(this.rowKey[row] as number)) return;
      heap.push(s, row);
    };
    if (options.candidates) {
      const seen = new Set<number>();
      for (const id of options.candidates) {
        const key = this.ids.get(id);
        if (key === undefined || !this.hasKey(key)) continue;
        const row = this.keyRow[key] as number;
        if (!seen.has(row)) {
          seen.add(row);
          scoreRow(row);
        }
      }
    } else {
      for (let row = 0; row < this.rows; row += 1) scoreRow(row);
    }
    return heap.sorted().map((h) => {
      const key = this.rowKey[h.slot] as number;
      return { docId: this.ids.idOf(key), key, score: h.score };
    });
  }

  /** The index as columns (frozen.ts); a shared id table is not included. */
  freeze(): Frozen {
    const out: Frozen = {
      meta: { dim: this.dimension, rows: this.rows },
      columns: {
        data: { data: this.data.subarray(0, this.rows * this.dimension), grow: { fill: 0 } },
        rowKey: { data: this.rowKey.subarray(0, this.rows), grow: { fill: -1 } },
        keyRow: { data: this.keyRow.subarray(0, Math.min(this.keyRow.length, this.ids.size)), grow: { fill: -1 } },
      },
    };
    if (this.ownIds) nest(out, 'ids', this.ids.freeze());
    return out;
  }

  static thaw(f: Frozen, opts: { ids?: IdTable } = {}): VectorIndex {
    const v = new VectorIndex(num(f, 'dim'), { ids: opts.ids ?? IdTable.thaw(child(f, 'ids')) });
    v.ownIds = !opts.ids;
    v.rows = num(f, 'rows');
    v.data = col(f, 'data', Float32Array);
    v.rowKey = col(f, 'rowKey', Int32Array);
    v.keyRow = col(f, 'keyRow', Int32Array);
    if (v.data.length < v.rows * v.dimension || v.rowKey.length < v.rows) throw new Error('snapshot: vector index out of shape');
    return v;
  }
}
