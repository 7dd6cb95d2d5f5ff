import { growFloat32, growUint32, growUint8, IdTable, IntSet, LexicalIndex, RECALL_DEFAULTS, VectorIndex } from '../../retrieval';
import { child, col, nest, num, type Frozen } from '../../retrieval/frozen';
import { MEMORY_NODE_KINDS, NODE_TYPES, TIERS, type NodeKind, type NodeType, type Tier } from '../../model/memory/node';

export const TYPE_CODE = new Map<NodeType, number>(NODE_TYPES.map((t, i) => [t, i + 1]));
export const KIND_CODE = new Map<NodeKind, number>(MEMORY_NODE_KINDS.map((k, i) => [k, i + 1]));
export const TIER_CODE = new Map<Tier, number>(TIERS.map((t, i) => [t, i + 1]));
export const ARCHIVE = TIER_CODE.get('archive')!;

/**
 * One tenant+scope of the recall index (recall-index.ts). Its nodes are numbered in one id table
 * (`ids`: a UUID as four 32-bit words), and that number (the key) indexes everything else:
 *
 * - `live`: the BM25 index of the nodes in the hot, warm and cold tiers (what recall searches by
 *   default), `archive`: the archived ones (by title and summary; searched when a request asks for
 *   archived memory), so the cost of a default recall follows the live set, not every node ever
 *   written. Both number documents in `ids`.
 * - `vectors`: the live nodes' embeddings (archived nodes are recalled by their words alone).
 * - columns by key: the node's seq, a hash of its indexed text, importance, type, kind, tier
 *   (0: no such node here), whether it is retired, and its tag set (an index into `tagSets`: nodes
 *   share a few tag lists, so a list is kept once).
 *
 * Everything is typed arrays and a few small tables, which is what makes a partition cheap to
 * hold (~30 bytes of bookkeeping per node) and to write to and read from a snapshot
 * (recall-snapshot.ts): `freeze` and `thaw`.
 */
export class PartState {
  readonly ids: IdTable;
  readonly live: LexicalIndex;
  readonly archive: LexicalIndex;
  readonly vectors: VectorIndex;
  /** Bumped on every change catch-up applies: a read can tell whether a catch-up changed what it searched. */
  version = 0;
  /** Live nodes (both tiers of index). */
  count = 0;
  /** Nodes in the archive index. */
  archived = 0;
  /** Nodes the lifecycle operator retired: while 0, leaving them out needs no filter. */
  retiredCount = 0;
  /** 30-bit hashes of the client_ids present: "certainly new" lets a write skip its existence check. */
  readonly clientKeys: IntSet;
  seq: Float64Array = new Float64Array(16);
  textKey: Uint32Array = new Uint32Array(16);
  /** The local epoch of the last change (recall-index.ts applyRemote); not persisted: 0 after a load. */
  epoch: Float64Array = new Float64Array(16);
  importance: Float32Array = new Float32Array(16);
  type: Uint8Array = new Uint8Array(16);
  kind: Uint8Array = new Uint8Array(16);
  tier: Uint8Array = new Uint8Array(16);
  retired: Uint8Array = new Uint8Array(16);
  tagSet: Uint32Array = new Uint32Array(16);
  /** Distinct tag lists; 0 is no tags. */
  private readonly tagSets: string[][] = [[]];
  private readonly tagSetIds = new Map<string, number>([['[]', 0]]);
  /** Changes to each part since the last snapshot of it (recall-snapshot.ts). */
  readonly dirty = { state: 0, archive: 0, vectors: 0 };

  constructor(
    readonly tenant: string,
    readonly scope: string,
    parts?: { ids: IdTable; live: LexicalIndex; archive: LexicalIndex; vectors: VectorIndex; clientKeys: IntSet },
  ) {
    this.ids = parts?.ids ?? new IdTable();
    this.live = parts?.live ?? new LexicalIndex({ ...RECALL_DEFAULTS.index, ids: this.ids });
    this.archive = parts?.archive ?? new LexicalIndex({ ...RECALL_DEFAULTS.index, ids: this.ids });
    this.vectors = parts?.vectors ?? new VectorIndex(undefined, { ids: this.ids });
    this.clientKeys = parts?.clientKeys ?? new IntSet();
  }

  /** Room for keys below n in every column. */
  ensure(n: number): void {
    if (n <= this.seq.length) return;
    const cap = Math.max(n, Math.ceil(this.seq.length * (this.seq.length < 1 << 16 ? 2 : 1.25)));
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    this.seq = f64(this.seq);
    this.epoch = f64(this.epoch);
    this.textKey = growUint32(this.textKey, cap);
    this.importance = growFloat32(this.importance, cap);
    this.type = growUint8(this.type, cap);
    this.kind = growUint8(this.kind, cap);
    this.tier = growUint8(this.tier, cap);
    this.retired = growUint8(this.retired, cap);
    this.tagSet = growUint32(this.tagSet, cap);
  }

  /** The node's key, when the partition holds it. */
  keyOf(id: string): number | undefined {
    const k = this.ids.get(id);
    return k !== undefined && k < this.tier.length && (this.tier[k] as number) !== 0 ? k : undefined;
  }

  tierAt(key: number): Tier {
    return TIERS[(this.tier[key] ?? 1) - 1] ?? 'hot';
  }

  /** The tag set number of a list of tags (interned). */
  tagSetOf(tags: readonly string[]): number {
    if (tags.length === 0) return 0;
    const k = JSON.stringify(tags);
    let n = this.tagSetIds.get(k);
    if (n === undefined) {
      n = this.tagSets.length;
      this.tagSets.push([...tags]);
      this.tagSetIds.set(k, n);
    }
    return n;
  }

  tagsAt(key: number): readonly string[] {
    return this.tagSets[this.tagSet[key] ?? 0] ?? [];
  }

  /**
   * The partition as columns (frozen.ts), without its archive index and vectors, which are frozen
   * apart (archiveFrozen, vectorsFrozen): they change less often, so a snapshot rewrites them only
   * when they did (recall-snapshot.ts). Views of the live arrays: write them before the next change.
   */
  freeze(): Frozen {
    const n = this.ids.size;
    const out: Frozen = {
      meta: { tenant: this.tenant, scope: this.scope, count: this.count, archived: this.archived, retiredCount: this.retiredCount, tagSets: this.tagSets.slice(1) },
      columns: {
        seq: { data: this.seq.subarray(0, n), grow: { fill: 0 } },
        textKey: { data: this.textKey.subarray(0, n), grow: { fill: 0 } },
        importance: { data: this.importance.subarray(0, n), grow: { fill: 0 } },
        type: { data: this.type.subarray(0, n), grow: { fill: 0 } },
        kind: { data: this.kind.subarray(0, n), grow: { fill: 0 } },
        tier: { data: this.tier.subarray(0, n), grow: { fill: 0 } },
        retired: { data: this.retired.subarray(0, n), grow: { fill: 0 } },
        tagSet: { data: this.tagSet.subarray(0, n), grow: { fill: 0 } },
      },
    };
    nest(out, 'ids', this.ids.freeze());
    nest(out, 'clientKeys', this.clientKeys.freeze());
    nest(out, 'live', this.live.freeze());
    return out;
  }

  archiveFrozen(): Frozen {
    return this.archive.freeze();
  }

  vectorsFrozen(): Frozen {
    return this.vectors.freeze();
  }

  /** A partition from its frozen state and its archive and vector parts (each possibly from an older file). */
  static thaw(f: Frozen, archive: Frozen, vectors: Frozen): PartState {
    const ids = IdTable.thaw(child(f, 'ids'));
    const options = { ...RECALL_DEFAULTS.index, ids };
    const p = new PartState(String(f.meta.tenant), String(f.meta.scope), {
      ids,
      live: LexicalIndex.thaw(options, child(f, 'live')),
      archive: LexicalIndex.thaw(options, archive),
      vectors: VectorIndex.thaw(vectors, { ids }),
      clientKeys: IntSet.thaw(child(f, 'clientKeys')),
    });
    p.count = num(f, 'count');
    p.archived = num(f, 'archived');
    p.retiredCount = num(f, 'retiredCount');
    for (const tags of f.meta.tagSets as string[][]) p.tagSetOf(tags);
    p.seq = col(f, 'seq', Float64Array);
    p.textKey = col(f, 'textKey', Uint32Array);
    p.importance = col(f, 'importance', Float32Array);
    p.type = col(f, 'type', Uint8Array);
    p.kind = col(f, 'kind', Uint8Array);
    p.tier = col(f, 'tier', Uint8Array);
    p.retired = col(f, 'retired', Uint8Array);
    p.tagSet = col(f, 'tagSet', Uint32Array);
    p.epoch = new Float64Array(p.seq.length);
    const cols = [p.seq, p.textKey, p.importance, p.type, p.kind, p.tier, p.retired, p.tagSet];
    if (cols.some((c) => c.length !== p.seq.length) || p.seq.length < ids.size) throw new Error('snapshot: partition columns out of shape');
    return p;
  }
}
