import { hybridSearch, PartitionedIndexes, RECALL_DEFAULTS, type HybridHit } from '../../retrieval';
import type { NodeKind, NodeType, Tier } from '../../model/memory/node';
import { KIND_CODE, PartState, TIER_CODE, TYPE_CODE } from './partition-state';

/**
 * Lore's in-process recall index: one BM25 (+ vector) partition per tenant+scope (the retrieval
 * core's PartitionedIndexes), plus a little metadata per node for filters and weighting. MongoDB
 * stays the source of truth; this is rebuilt from it at start and kept current by local writes
 * (applyLocal, before a write is acknowledged) and by catch-up from other processes (applyRemote).
 *
 * What is indexed: title (weight 2), text, and the summary when the text does not already contain
 * it; tags. An archived node is indexed by title and summary only (its payload lives in the cold
 * store), and is flagged so recall can leave it out or mark it.
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

/** The text an embedding is computed from (same content as the lexical fields). */
export function embeddingText(fields: Record<string, string | null>): string {
  return [fields.title, fields.text, fields.summary].filter(Boolean).join('\n');
}

export class RecallIndex {
  private readonly parts = new PartitionedIndexes(RECALL_DEFAULTS.index);
  private readonly states = new Map<string, PartState>();
  private epoch = 0;
  private bulk = false;

  private stateOf(tenant: string, scope: string, create: boolean): PartState | undefined {
    const k = `${tenant}\u0000${scope}`;
    let st = this.states.get(k);
    if (!st && create) {
      st = new PartState(this.parts.get(tenant, scope));
      if (this.bulk) st.part.lexical.beginBulk();
      this.states.set(k, st);
    }
    return st;
  }

  /** Changes applied to a tenant+scope so far (0 for an unknown one). */
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

  /** Called when a node's indexed text changed (the embedding queue listens); `ref` is the node's tenant and scope. */
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
    for (const [k, st] of this.states) {
      if (st.count === 0) continue;
      const i = k.indexOf('\u0000');
      out.push({ tenant_id: k.slice(0, i), scope: k.slice(i + 1) });
    }
    return out;
  }

  stats(): { partitions: number; docs: number; vectors: number } {
    return this.parts.stats();
  }

  /**
   * Building from the store at start: every partition's lexical index keeps only its forward
   * lists until `endBulkLoad()` lays out its posting lists once, exactly sized (LexicalIndex
   * beginBulk). Grown posting regions would leave a third of the arena slack at 100k nodes, and
   * compacting them afterwards held two copies at once (the process's peak RSS). A search of a
   * partition before the end finishes that partition first.
   */
  beginBulkLoad(): void {
    this.bulk = true;
    for (const st of this.states.values()) st.part.lexical.beginBulk();
  }

  endBulkLoad(): void {
    this.bulk = false;
    for (const st of this.states.values()) st.part.lexical.endBulk();
  }

  /** Where a node is: in the given tenant+scope, or (without them) in any partition. */
  private locate(id: string, tenant?: string, scope?: string): { st: PartState; pos: number } | null {
    const candidates = tenant !== undefined && scope !== undefined ? [this.stateOf(tenant, scope, false)] : this.states.values();
    for (const st of candidates) {
      const pos = st?.pos(id);
      if (st && pos !== undefined) return { st, pos };
    }
    return null;
  }

  has(id: string, tenant?: string, scope?: string): boolean {
    return this.locate(id, tenant, scope) !== null;
  }

  /** The seq the index holds for a node (pass tenant and scope: without them every partition is searched). */
  seqOf(id: string, tenant?: string, scope?: string): number | undefined {
    const at = this.locate(id, tenant, scope);
    return at ? at.st.seq[at.pos] : undefined;
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
    const pos = st?.pos(node.id);
    if (st && pos !== undefined) {
      if (st.seq[pos] === node.seq) return 'current';
      if ((st.epoch[pos] ?? 0) > issuedAt) return 'raced';
    }
    this.put(node, st && pos !== undefined ? (st.epoch[pos] ?? 0) : 0);
    return 'applied';
  }

  private put(node: IndexableNode, epoch: number): void {
    const fields = indexFields(node);
    const key = fnv1a([fields.title ?? null, fields.text ?? null, fields.summary ?? null, fields.tags ?? null]);
    const st = this.stateOf(node.tenant_id, node.scope, true)!;
    const part = st.part;
    const before = st.pos(node.id);
    if (before === undefined || st.key[before] !== key) {
      part.lexical.upsert(node.id, fields);
      if (before !== undefined && part.vectors.has(node.id)) part.vectors.remove(node.id); // stale until re-embedded
      this.onTextChanged?.(node.id, embeddingText(fields), key, node);
    }
    const pos = before ?? st.pos(node.id)!;
    if (before === undefined) st.count += 1;
    st.ensure(pos + 1);
    const archiveCode = TIER_CODE.get('archive');
    const tierCode = TIER_CODE.get(node.tier) ?? 1;
    if (before !== undefined && st.tier[pos] === archiveCode) st.archived -= 1;
    if (tierCode === archiveCode) st.archived += 1;
    const retired = isRetired(node) ? 1 : 0;
    if (before !== undefined) st.retiredCount -= st.retired[pos] ?? 0;
    st.retiredCount += retired;
    st.retired[pos] = retired;
    st.seq[pos] = node.seq;
    st.key[pos] = key;
    st.epoch[pos] = epoch;
    st.importance[pos] = node.importance;
    st.type[pos] = TYPE_CODE.get(node.type) ?? 0;
    st.kind[pos] = node.kind ? (KIND_CODE.get(node.kind) ?? 0) : 0;
    st.tier[pos] = tierCode;
    if (node.tags.length > 0) st.tags.set(pos, node.tags);
    else st.tags.delete(pos);
    if (node.client_id) st.clientKeys.add(hash32(node.client_id));
    st.version += 1;
  }

  /** Stores a vector computed for the text with hash `key`; ignored if the text changed since. */
  setVector(id: string, key: number, vector: Float32Array): boolean {
    const at = this.locate(id);
    if (!at || at.st.key[at.pos] !== key) return false;
    const vectors = at.st.part.vectors;
    if (vectors.dim !== 0 && vectors.dim !== vector.length) return false;
    vectors.upsert(id, vector);
    at.st.version += 1;
    return true;
  }

  hasVector(id: string): boolean {
    const at = this.locate(id);
    return !!at && at.st.part.vectors.has(id);
  }

  /** Whether the partition holds vectors a query vector could be compared with. */
  vectorDim(tenant: string, scope: string): number {
    const p = this.parts.peek(tenant, scope);
    return p && p.vectors.size > 0 ? p.vectors.dim : 0;
  }

  private filterFor(st: PartState, f: RecallFilter): ((id: string) => boolean) | undefined {
    const types = f.types && f.types.length > 0 ? new Set(f.types.map((t) => TYPE_CODE.get(t))) : null;
    const kinds = f.kinds && f.kinds.length > 0 ? new Set(f.kinds.map((k) => KIND_CODE.get(k))) : null;
    const tiers = f.tiers && f.tiers.length > 0 ? new Set(f.tiers.map((t) => TIER_CODE.get(t))) : null;
    const tags = f.tags && f.tags.length > 0 ? f.tags : null;
    const archive = TIER_CODE.get('archive');
    // Leaving archived nodes out costs a callback per candidate; skip it while the scope has none.
    const noArchive = !f.includeArchived && !(tiers && tiers.has(archive)) && st.archived > 0;
    // Likewise for retired nodes: no callback while the scope has none.
    const noRetired = !f.includeRetired && st.retiredCount > 0;
    if (!types && !kinds && !tiers && !tags && !noArchive && !noRetired) return undefined;
    return (id) => {
      const pos = st.pos(id);
      if (pos === undefined) return false;
      const tier = st.tier[pos];
      if (noArchive && tier === archive) return false;
      if (noRetired && st.retired[pos] === 1) return false;
      if (types && !types.has(st.type[pos])) return false;
      if (kinds && !kinds.has(st.kind[pos])) return false;
      if (tiers && !tiers.has(tier)) return false;
      if (tags) {
        const have = st.tags.get(pos);
        if (!have || !tags.every((t) => have.includes(t))) return false;
      }
      return true;
    };
  }

  /** The query's analysed terms with their idf in one tenant+scope (LexicalIndex.queryTerms). */
  queryTerms(tenant: string, scope: string, text: string): { term: string; idf: number }[] {
    const p = this.parts.peek(tenant, scope);
    return p ? p.lexical.queryTerms(text) : [];
  }

  /** LexicalIndex.coverage of a document of one tenant+scope. */
  coverage(tenant: string, scope: string, docId: string, terms: { term: string; idf: number }[]): number {
    return this.parts.peek(tenant, scope)?.lexical.coverage(docId, terms) ?? 0;
  }

  /** Cosines of a query vector to the given documents of one tenant+scope, and its background (VectorIndex.background). */
  cosines(tenant: string, scope: string, vector: Float32Array, docIds: string[]): { scores: Map<string, number>; background: number } {
    const p = this.parts.peek(tenant, scope);
    if (!p || p.vectors.size === 0 || p.vectors.dim !== vector.length) return { scores: new Map(), background: 0 };
    return { scores: p.vectors.scores(vector, docIds), background: p.vectors.background(vector) };
  }

  /** Hybrid search inside one tenant+scope (BM25 always; vectors when given and present). */
  /**
   * `expand: false` leaves out the feedback expansion; `plain: true` is BM25 alone (no expansion,
   * no sequence context), for callers that re-score the hits themselves.
   */
  search(tenant: string, scope: string, q: { text: string; vector: Float32Array | null; limit: number; filter: RecallFilter; expand?: boolean; plain?: boolean }): IndexHit[] {
    const st = this.stateOf(tenant, scope, false);
    if (!st) return [];
    const search = q.plain
      ? { feedback: false as const, context: false as const }
      : q.expand === false
        ? { ...RECALL_DEFAULTS.search, feedback: false as const }
        : RECALL_DEFAULTS.search;
    const hits = hybridSearch(
      st.part.lexical,
      st.part.vectors,
      { text: q.text, vector: q.vector, limit: q.limit, filter: this.filterFor(st, q.filter) },
      {
        search,
        rrfK: RECALL_DEFAULTS.rrfK,
        weights: RECALL_DEFAULTS.rrfWeights,
      },
    );
    return hits.map((h) => {
      const pos = st.pos(h.docId);
      return {
        ...h,
        tier: pos === undefined ? 'hot' : st.tierAt(pos),
        importance: pos === undefined ? 0.5 : (st.importance[pos] ?? 0.5),
        retired: pos !== undefined && st.retired[pos] === 1,
      };
    });
  }
}
