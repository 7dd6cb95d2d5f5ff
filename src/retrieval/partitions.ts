// One lexical (and optionally one vector) index per (tenant_id, scope) partition.
//
// Why per partition rather than one index with a filter: BM25 statistics (document
// frequencies, average length) then describe only what the caller may see, so one
// tenant's data never shifts another's scores (nor leaks through them); a query costs
// what its own partition holds; write order (used by sequence context) is the
// partition's own; and dropping a scope drops its object. Filters remain for finer
// restrictions inside a partition (types, tiers, archived).

import { LexicalIndex, type LexicalIndexOptions } from './lexical-index';
import { VectorIndex } from './vector-index';
import { RECALL_DEFAULTS } from './defaults';

export interface Partition {
  tenant: string;
  scope: string;
  lexical: LexicalIndex;
  vectors: VectorIndex;
}

export class PartitionedIndexes {
  private readonly parts = new Map<string, Partition>();
  private readonly options: LexicalIndexOptions;

  constructor(options: LexicalIndexOptions = RECALL_DEFAULTS.index) {
    this.options = options;
  }

  private static key(tenant: string, scope: string): string {
    return `${tenant}\u0000${scope}`;
  }

  /** The partition, created empty on first use. */
  get(tenant: string, scope: string): Partition {
    const k = PartitionedIndexes.key(tenant, scope);
    let p = this.parts.get(k);
    if (!p) {
      p = { tenant, scope, lexical: new LexicalIndex(this.options), vectors: new VectorIndex() };
      this.parts.set(k, p);
    }
    return p;
  }

  /** The partition if it exists (reads should not create empty partitions). */
  peek(tenant: string, scope: string): Partition | undefined {
    return this.parts.get(PartitionedIndexes.key(tenant, scope));
  }

  drop(tenant: string, scope: string): boolean {
    return this.parts.delete(PartitionedIndexes.key(tenant, scope));
  }

  get size(): number {
    return this.parts.size;
  }

  *entries(): IterableIterator<Partition> {
    yield* this.parts.values();
  }

  stats(): { partitions: number; docs: number; vectors: number } {
    let docs = 0;
    let vectors = 0;
    for (const p of this.parts.values()) {
      docs += p.lexical.size;
      vectors += p.vectors.size;
    }
    return { partitions: this.parts.size, docs, vectors };
  }
}
