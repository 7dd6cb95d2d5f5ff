import { hybridSearch, RECALL_DEFAULTS, searchAcross, type HybridHit, type LexicalSearchable } from '../../retrieval';
import type { NodeKind, NodeType, Tier } from '../../model/memory/node';
import { ARCHIVE, KIND_CODE, PartState, TIER_CODE, TYPE_CODE } from './partition-state';

/**
 * Lore's in-process recall index: one partition per tenant+scope (partition-state.ts) with a BM25
 * index of its live nodes, one of its archived nodes, and the live nodes' vectors, plus a little
 * metadata per node for filters and weighting. MongoDB stays the source of truth; this is loaded
 * from a snapshot (recall-snapshot.ts) or built from the store at start, and kept current by local
 * writes (applyLocal, before a write is acknowledged) and by catch-up from other processes
 * (applyRemote).
 *
 * What is indexed: title (weight 2), text, and the summary when the text does not already contain
 * it; tags. An archived node is indexed by title and summary only (its payload lives in the cold
 * store) in the partition's archive index, which only requests asking for archived memory search:
 * what a default recall costs follows the live nodes, not everything ever written.
 */

/** The node fields the index reads. */
export interface IndexableNode {
  id: string;
  client_id?: string | null;
  tenant_id: string;
  scope: string;
  type: NodeType;
  kind: NodeKind | null;
  tier: Tier;
  title: string | null;
  text: string;
  summary: string;
  tags: string[];
  importance: number;
  seq: number;
  /** Only slots.semantic_forgetting_v1.lifecycle_state is read (see isRetired). */
  slots?: Record<string, unknown>;
}

/**
 * Whether the lifecycle operator retired the node (feedback says it is wrong; docs/forgetting.md,
 * "Feedback"). Read from the lifecycle family's decision slot by name: memory does not depend on
 * that family, it only honours its verdict.
 */
export function isRetired(n: Pick<IndexableNode, 'slots'>): boolean {
  const sem = n.slots?.semantic_forgetting_v1;
  return !!sem && typeof sem === 'object' && (sem as { lifecycle_state?: unknown }).lifecycle_state === 'retired';
}

export interface RecallFilter {
  types?: NodeType[];
  kinds?: NodeKind[];
  tiers?: Tier[];
  tags?: string[];
  includeArchived?: boolean;
  /** Retired nodes are left out unless asked for (docs/memory.md, recall). */
  includeRetired?: boolean;
}

export interface IndexHit extends HybridHit {
  tier: Tier;
  importance: number;
  retired: boolean;
}

/** 30 bits, so V8 keeps the values as small integers in the Set (no boxed number per entry). */
const hash32 = (s: string) => fnv1a([s]) & 0x3fffffff;

/** FNV-1a, 32 bit: a cheap change detector for the indexed text (not a content identity). */
function fnv1a(parts: (string | null)[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    const s = p ?? '\u0000';
    for (let i = 0; i < s.length; i += 1) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x1f;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The fields a node is indexed under (see the header comment). */
export function indexFields(n: Pick<IndexableNode, 'title' | 'text' | 'summary' | 'tags' | 'tier'>): Record<string, string | null> {
  const tags = n.tags.length > 0 ? n.tags.join(' ') : null;
  if (n.tier === 'archive') return { title: n.title, text: n.summary, summary: null, tags };
  const core = n.summary.endsWith('…') ? n.summary.slice(0, -1) : n.summary;
  const summary = core && !n.text.includes(core) ? n.summary : null;
  return { title: n.title, text: n.text, summary, tags };
}

/** The hash of a node's indexed fields the index keeps (a vector computed for them is kept only while it matches). */
export function textKeyOf(fields: Record<string, string | null>): number {
  return fnv1a([fields.title ?? null, fields.text ?? null, fields.summary ?? null, fields.tags ?? null]);
}

/** The text an embedding is computed from (same content as the lexical fields). */
export function embeddingText(fields: Record<string, string | null>): string {
  return [fields.title, fields.text, fields.summary].filter(Boolean).join('\n');
}

export class RecallIndex {
  private readonly states = new Map<string, PartState>();
  private epoch = 0;
  private bulk = false;

  private static key(tenant: string, scope: string): string {
    return `${tenant}\u0000${scope}`;
  }

  private stateOf(tenant: string, scope: string, create: boolean): PartState | undefined {
    const k = RecallIndex.key(tenant, scope);
    let st = this.states.get(k);
    if (!st && create) {
      st = new PartState(tenant, scope);
      if (this.bulk) {
        st.live.beginBulk();
        st.archive.beginBulk();
      }
      this.states.set(k, st);
    }
    return st;
  }

  /**
   * Changes catch-up applied to a tenant+scope so far (0 for an unknown one): a recall that sees it
   * move while it ran ranks again (recall.ts). This process's own writes do not count: one applied
   * while a recall runs was acknowledged after the recall began, and need not be in its answer.
   */
  version(tenant: string, scope: string): number {
    return this.stateOf(tenant, scope, false)?.version ?? 0;
  }

  /**
   * False when no node of the scope has this client_id as far as this index knows (it may still
   * exist if another process wrote it and this one has not caught up: callers treat false as a
   * hint, and the store's unique index keeps them right).
   */
  mayHaveClientId(tenant: string, scope: string, clientId: string): boolean {
    return this.stateOf(tenant, scope, false)?.clientKeys.has(hash32(clientId)) ?? false;
  }

  /** Called when a live node's indexed text changed (the embedding queue listens); `ref` is the node's tenant and scope. */
  onTextChanged: ((id: string, text: string, key: number, ref: { tenant_id: string; scope: string }) => void) | null = null;

  /** The current local epoch; catch-up passes it back with each result (see applyRemote). */
  mark(): number {
    return this.epoch;
  }

  get size(): number {
    let n = 0;
    for (const st of this.states.values()) n += st.count;
    return n;
  }

  /** The tenant+scopes holding at least one node (what other families warm up at start). */
  scopes(): { tenant_id: string; scope: string }[] {
    const out: { tenant_id: string; scope: string }[] = [];
    for (const st of this.states.values()) if (st.count > 0) out.push({ tenant_id: st.tenant, scope: st.scope });
    return out;
  }

  stats(): { partitions: number; docs: number; archived: number; vectors: number } {
    let docs = 0;
    let archived = 0;
    let vectors = 0;
    for (const st of this.states.values()) {
      docs += st.count;
      archived += st.archived;
      vectors += st.vectors.size;
    }
    return { partitions: this.states.size, docs, archived, vectors };
  }

  /** The partitions (snapshots write them). */
  partitions(): PartState[] {
    return [...this.states.values()];
  }

  /** Takes partitions read from a snapshot (before any write or catch-up touches the index). */
  adopt(parts: PartState[]): void {
    for (const p of parts) this.states.set(RecallIndex.key(p.tenant, p.scope), p);
  }

  /**
   * Building from the store at start: every partition's lexical indexes keep only their forward
   * lists until `endBulkLoad()` lays out their posting lists once, exactly sized (LexicalIndex
   * beginBulk). Grown posting regions would leave a third of the arena slack at 100k nodes, and
   * compacting them afterwards held two copies at once (the process's peak RSS). A search of a
   * partition before the end finishes that partition first.
   */
  beginBulkLoad(): void {
    this.bulk = true;
    for (const st of this.states.values()) {
      st.live.beginBulk();
      st.archive.beginBulk();
    }
  }

  endBulkLoad(): void {
    this.bulk = false;
    for (const st of this.states.values()) {
      st.live.endBulk();
      st.archive.endBulk();
    }
  }

  /** Where a node is: in the given tenant+scope, or (without them) in any partition. */
  private locate(id: string, tenant?: string, scope?: string): { st: PartState; key: number } | null {
    const candidates = tenant !== undefined && scope !== undefined ? [this.stateOf(tenant, scope, false)] : this.states.values();
    for (const st of candidates) {
      const key = st?.keyOf(id);
      if (st && key !== undefined) return { st, key };
    }
    return null;
  }

  has(id: string, tenant?: string, scope?: string): boolean {
    return this.locate(id, tenant, scope) !== null;
  }

  /** The seq the index holds for a node (pass tenant and scope: without them every partition is searched). */
  seqOf(id: string, tenant?: string, scope?: string): number | undefined {
    const at = this.locate(id, tenant, scope);
    return at ? at.st.seq[at.key] : undefined;
  }

  /** A write of this process, applied before it is acknowledged. */
  applyLocal(node: IndexableNode): void {
    this.epoch += 1;
    this.put(node, this.epoch);
  }

  /**
   * A node read from the store by catch-up, with the epoch current when that read was issued.
   * 'current' when the index already holds this seq; 'raced' (not applied) when a local write
   * touched the node after the read was issued (the read may predate it; the caller re-reads
   * it); otherwise the store's state wins, even if its seq is lower: an update that committed
   * late can carry a lower seq.
   */
  applyRemote(node: IndexableNode, issuedAt: number): 'applied' | 'current' | 'raced' {
    const st = this.stateOf(node.tenant_id, node.scope, false);
    const key = st?.keyOf(node.id);
    if (st && key !== undefined) {
      if (st.seq[key] === node.seq) return 'current';
      if ((st.epoch[key] ?? 0) > issuedAt) return 'raced';
    }
    this.put(node, st && key !== undefined ? (st.epoch[key] ?? 0) : 0);
    this.stateOf(node.tenant_id, node.scope, false)!.version += 1;
    return 'applied';
  }

  private put(node: IndexableNode, epoch: number): void {
    const fields = indexFields(node);
    const textKey = textKeyOf(fields);
    const st = this.stateOf(node.tenant_id, node.scope, true)!;
    const key = st.ids.add(node.id);
    st.ensure(key + 1);
    const before = st.tier[key] as number; // 0: new here
    const toArchive = node.tier === 'archive';
    const wasArchive = before === ARCHIVE;
    if (before === 0 || st.textKey[key] !== textKey || wasArchive !== toArchive) {
      if (before !== 0 && wasArchive !== toArchive) {
        (wasArchive ? st.archive : st.live).removeKey(key);
        st.archived += toArchive ? 1 : -1;
        st.dirty.archive += 1;
      } else if (before === 0 && toArchive) {
        st.archived += 1;
      }
      (toArchive ? st.archive : st.live).upsertKey(key, fields);
      if (toArchive) st.dirty.archive += 1;
      if (st.vectors.removeKey(key)) st.dirty.vectors += 1; // stale until re-embedded (archived nodes are not)
      if (!toArchive) this.onTextChanged?.(node.id, embeddingText(fields), textKey, node);
    }
    if (before === 0) st.count += 1;
    const retired = isRetired(node) ? 1 : 0;
    st.retiredCount += retired - (before === 0 ? 0 : (st.retired[key] as number));
    st.retired[key] = retired;
    st.seq[key] = node.seq;
    st.textKey[key] = textKey;
    st.epoch[key] = epoch;
    st.importance[key] = node.importance;
    st.type[key] = TYPE_CODE.get(node.type) ?? 0;
    st.kind[key] = node.kind ? (KIND_CODE.get(node.kind) ?? 0) : 0;
    st.tier[key] = TIER_CODE.get(node.tier) ?? 1;
    st.tagSet[key] = st.tagSetOf(node.tags);
    if (node.client_id) st.clientKeys.add(hash32(node.client_id));
    st.dirty.state += 1;
  }

  /** Stores a vector computed for the text with hash `key`; ignored if the text changed since, or the node was archived. */
  setVector(id: string, key: number, vector: Float32Array): boolean {
    const at = this.locate(id);
    if (!at || at.st.textKey[at.key] !== key || at.st.tier[at.key] === ARCHIVE) return false;
    const vectors = at.st.vectors;
    if (vectors.dim !== 0 && vectors.dim !== vector.length) return false;
    vectors.upsertKey(at.key, vector);
    at.st.dirty.vectors += 1;
    return true;
  }

  hasVector(id: string): boolean {
    const at = this.locate(id);
    return !!at && at.st.vectors.hasKey(at.key);
  }

  /** Whether the partition holds vectors a query vector could be compared with. */
  vectorDim(tenant: string, scope: string): number {
    const st = this.stateOf(tenant, scope, false);
    return st && st.vectors.size > 0 ? st.vectors.dim : 0;
  }

  /**
   * The live nodes of every partition that have no vector (after a snapshot load: the nodes written
   * after the snapshot's vectors were written), with their text key and embedding text unknown here:
   * the caller re-reads their text. Ids, per partition.
   */
  nodesWithoutVector(): { tenant_id: string; scope: string; ids: string[] }[] {
    const out: { tenant_id: string; scope: string; ids: string[] }[] = [];
    for (const st of this.states.values()) {
      const ids: string[] = [];
      for (let k = 0; k < st.ids.size; k += 1) {
        const tier = st.tier[k] as number;
        if (tier !== 0 && tier !== ARCHIVE && !st.vectors.hasKey(k)) ids.push(st.ids.idOf(k));
      }
      if (ids.length > 0) out.push({ tenant_id: st.tenant, scope: st.scope, ids });
    }
    return out;
  }

  private filterFor(st: PartState, f: RecallFilter): ((key: number) => boolean) | undefined {
    const types = f.types && f.types.length > 0 ? new Set(f.types.map((t) => TYPE_CODE.get(t))) : null;
    const kinds = f.kinds && f.kinds.length > 0 ? new Set(f.kinds.map((k) => KIND_CODE.get(k))) : null;
    const tiers = f.tiers && f.tiers.length > 0 ? new Set(f.tiers.map((t) => TIER_CODE.get(t))) : null;
    const tags = f.tags && f.tags.length > 0 ? f.tags : null;
    // Leaving retired nodes out costs a callback per candidate; skip it while the scope has none.
    const noRetired = !f.includeRetired && st.retiredCount > 0;
    if (!types && !kinds && !tiers && !tags && !noRetired) return undefined;
    return (key) => {
      if (noRetired && st.retired[key] === 1) return false;
      if (types && !types.has(st.type[key])) return false;
      if (kinds && !kinds.has(st.kind[key])) return false;
      if (tiers && !tiers.has(st.tier[key])) return false;
      if (tags) {
        const have = st.tagsAt(key);
        if (!tags.every((t) => have.includes(t))) return false;
      }
      return true;
    };
  }

  /** The query's analysed terms with their idf among the live nodes of one tenant+scope (LexicalIndex.queryTerms). */
  queryTerms(tenant: string, scope: string, text: string): { term: string; idf: number }[] {
    const st = this.stateOf(tenant, scope, false);
    return st ? st.live.queryTerms(text) : [];
  }

  /** LexicalIndex.coverage of a live node of one tenant+scope. */
  coverage(tenant: string, scope: string, docId: string, terms: { term: string; idf: number }[]): number {
    return this.stateOf(tenant, scope, false)?.live.coverage(docId, terms) ?? 0;
  }

  /** Cosines of a query vector to the given nodes of one tenant+scope, and its background (VectorIndex.background). */
  cosines(tenant: string, scope: string, vector: Float32Array, docIds: string[]): { scores: Map<string, number>; background: number } {
    const st = this.stateOf(tenant, scope, false);
    if (!st || st.vectors.size === 0 || st.vectors.dim !== vector.length) return { scores: new Map(), background: 0 };
    return { scores: st.vectors.scores(vector, docIds), background: st.vectors.background(vector) };
  }

  /**
   * Hybrid search inside one tenant+scope (BM25 always; vectors when given and present).
   * `expand: false` leaves out the feedback expansion; `plain: true` is BM25 alone (no expansion,
   * no sequence context), for callers that re-score the hits themselves. Archived nodes are
   * searched only when the filter asks for them (`includeArchived`, or `tiers` naming archive);
   * with live ones too, both indexes are searched as one (multi-search.ts) and the vectors
   * rank the live ones.
   */
  search(tenant: string, scope: string, q: { text: string; vector: Float32Array | null; limit: number; filter: RecallFilter; expand?: boolean; plain?: boolean }): IndexHit[] {
    const st = this.stateOf(tenant, scope, false);
    if (!st) return [];
    const tiers = q.filter.tiers && q.filter.tiers.length > 0 ? q.filter.tiers : null;
    const wantArchive = tiers ? tiers.includes('archive') : q.filter.includeArchived === true;
    const wantLive = tiers ? tiers.some((t) => t !== 'archive') : true;
    const lexical: LexicalSearchable = wantArchive && wantLive ? searchAcross([st.live, st.archive]) : wantArchive ? st.archive : st.live;
    const search = q.plain
      ? { feedback: false as const, context: false as const }
      : q.expand === false
        ? { ...RECALL_DEFAULTS.search, feedback: false as const }
        : RECALL_DEFAULTS.search;
    const hits = hybridSearch(
      lexical,
      wantLive ? st.vectors : null,
      { text: q.text, vector: q.vector, limit: q.limit, keyFilter: this.filterFor(st, q.filter) },
      {
        search,
        rrfK: RECALL_DEFAULTS.rrfK,
        weights: RECALL_DEFAULTS.rrfWeights,
      },
    );
    return hits.map((h) => ({
      ...h,
      tier: st.tierAt(h.key),
      importance: st.importance[h.key] ?? 0.5,
      retired: st.retired[h.key] === 1,
    }));
  }
}
