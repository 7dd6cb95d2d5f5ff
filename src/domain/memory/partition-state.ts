import type { Partition } from '../../retrieval';
import { NODE_KINDS, NODE_TYPES, TIERS, type NodeKind, type NodeType, type Tier } from '../../model/memory/node';

export const TYPE_CODE = new Map<NodeType, number>(NODE_TYPES.map((t, i) => [t, i + 1]));
export const KIND_CODE = new Map<NodeKind, number>(NODE_KINDS.map((k, i) => [k, i + 1]));
export const TIER_CODE = new Map<Tier, number>(TIERS.map((t, i) => [t, i + 1]));

/**
 * Per tenant+scope bookkeeping beside the retrieval partition. Node metadata lives in typed
 * arrays indexed by the node's write-order position in the partition's lexical index (stable
 * across updates): no per-node objects and no second id map, which at 100k nodes is the
 * difference between ~3 MB and ~30 MB of heap.
 */
export class PartState {
  /** Bumped on every change: a read can tell whether a catch-up changed what it searched. */
  version = 0;
  /** Live nodes. */
  count = 0;
  /** Live nodes in the archive tier: while 0, leaving archived nodes out needs no per-candidate filter. */
  archived = 0;
  /** Live nodes the lifecycle operator retired: while 0, leaving them out needs no filter either. */
  retiredCount = 0;
  /** 32-bit hashes of the client_ids present: "certainly new" lets a write skip its existence check. */
  readonly clientKeys = new Set<number>();
  seq = new Float64Array(16);
  key = new Uint32Array(16);
  epoch = new Float64Array(16);
  importance = new Float32Array(16);
  type = new Uint8Array(16);
  kind = new Uint8Array(16);
  tier = new Uint8Array(16);
  /** 1 when the lifecycle operator retired the node (recall leaves it out unless asked). */
  retired = new Uint8Array(16);
  readonly tags = new Map<number, string[]>();

  constructor(readonly part: Partition) {}

  ensure(n: number): void {
    if (n <= this.seq.length) return;
    const cap = Math.max(n, this.seq.length * 2);
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    const u8 = (a: Uint8Array) => {
      const b = new Uint8Array(cap);
      b.set(a);
      return b;
    };
    this.seq = f64(this.seq);
    this.epoch = f64(this.epoch);
    const key = new Uint32Array(cap);
    key.set(this.key);
    this.key = key;
    const importance = new Float32Array(cap);
    importance.set(this.importance);
    this.importance = importance;
    this.type = u8(this.type);
    this.kind = u8(this.kind);
    this.tier = u8(this.tier);
    this.retired = u8(this.retired);
  }

  pos(id: string): number | undefined {
    return this.part.lexical.positionOf(id);
  }

  tierAt(pos: number): Tier {
    return TIERS[(this.tier[pos] ?? 1) - 1] ?? 'hot';
  }
}
