import { createHash } from 'node:crypto';
import type { Filter } from 'mongodb';
import type { EdgeType, MemoryEdge, NodeKind, NodeRevision, NodeType, Tier } from '../../model/memory/node';
import { emptyFeedback, feedbackQuality, type Feedback } from '../../model/memory/node';

/** Counters a node is written with: given now (what a feedback decision compares with its tier's age). */
const startingFeedback = (positive: number, negative: number, at: string): Feedback => ({
  ...emptyFeedback(),
  positive,
  negative,
  quality: feedbackQuality(positive, negative),
  last_outcome: positive + negative === 0 ? null : negative > positive ? 'negative' : positive > negative ? 'positive' : 'neutral',
  last_at: positive + negative === 0 ? null : at,
});
import { uuidv7 } from '../../model/ids';
import { type Database, isDuplicateKey } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';
import { SeqAllocator, countersCollection } from './sequence';
import * as feed from './change-feed';
import type { IndexedNodeFields, SeqRef } from './change-feed';
import { DuplicateNodeKey, InsertCombiner, type StampedDoc } from './insert-combiner';
import { AccessStore, type FoldOptions, type FoldResult } from './access';
import { edgesCollection, nodesCollection, revisionsCollection, toNode, type EdgeDoc, type NodeDoc, type RevisionDoc, type StoredNode } from './node-docs';
import type { WriteOutcome } from '../../model/memory/vocabulary';

export { edgesCollection, nodesCollection, revisionsCollection, toNode, DuplicateNodeKey };
export type { IndexedNodeFields, NodeDoc, SeqRef, StoredNode };

/** What a caller gives to create or supersede a node; the store fills the bookkeeping. */
export interface NodeContent {
  /** A caller-chosen node id (a UUID) for a new node; otherwise a time-ordered one is generated. */
  id?: string | null;
  client_id?: string | null;
  type: NodeType;
  kind?: NodeKind | null;
  tier?: Tier;
  title?: string | null;
  text: string;
  summary: string;
  tags?: string[];
  slots?: Record<string, unknown>;
  importance?: number;
  salience?: number;
  confidence?: number;
  pinned?: boolean;
  /** Feedback counters a new node starts with (existing clients write them with the node); a rewrite keeps the stored ones. */
  feedback?: { positive: number; negative: number } | null;
  actor: string;
  /** The write call that produced this content (not part of the content hash). */
  commit_id?: string | null;
}

export type { WriteOutcome } from '../../model/memory/vocabulary';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The identity of a node's content: what a caller wrote (type, title, text, tags, slots). */
export function contentHash(c: Pick<NodeContent, 'type' | 'title' | 'text' | 'tags' | 'slots'>): string {
  return createHash('sha256')
    .update(canonical({ type: c.type, title: c.title ?? null, text: c.text, tags: c.tags ?? [], slots: c.slots ?? {} }))
    .digest('hex');
}

export interface NodeFilter {
  ids?: string[];
  types?: NodeType[];
  kinds?: (NodeKind | null)[];
  tiers?: Tier[];
  tags_all?: string[];
  created_after?: string;
  created_before?: string;
}

/** One value is an equality, not a one-element $in: the local server serves index order only then. */
const oneOrIn = <T>(values: T[]) => (values.length === 1 ? values[0] : { $in: values });

function toMongoFilter(f: NodeFilter): Filter<NodeDoc> {
  const q: Record<string, unknown> = {};
  if (f.ids) q._id = { $in: f.ids };
  if (f.types) q.type = oneOrIn(f.types);
  if (f.kinds) q.kind = oneOrIn(f.kinds);
  if (f.tiers) q.tier = oneOrIn(f.tiers);
  if (f.tags_all && f.tags_all.length > 0) q.tags = { $all: f.tags_all };
  if (f.created_after || f.created_before) {
    q.created_at = { ...(f.created_after ? { $gte: f.created_after } : {}), ...(f.created_before ? { $lt: f.created_before } : {}) };
  }
  return q as Filter<NodeDoc>;
}

/** Options of whole-node reads: `access: false` leaves out the access statistics (one read less). */
export interface ReadOpts {
  access?: boolean;
}

/** Nodes of one tenant+scope. */
export class ScopedNodes {
  constructor(
    private readonly store: NodeStore,
    readonly ref: ScopeRef,
    private readonly nodes: ScopedCollection<NodeDoc>,
    private readonly revisions: ScopedCollection<RevisionDoc>,
    private readonly edges: ScopedCollection<EdgeDoc>,
    private readonly access: AccessStore,
  ) {}

  /** Reads of whole nodes show their access statistics (access.ts); `{ access: false }` skips that read. */
  private async withAccess(nodes: StoredNode[], opts?: ReadOpts): Promise<StoredNode[]> {
    return opts?.access === false ? nodes : this.access.withAccess(this.ref, nodes);
  }

  async get(id: string, opts?: ReadOpts): Promise<StoredNode | null> {
    const doc = await this.nodes.findOne({ _id: id });
    return doc ? ((await this.withAccess([toNode(doc)], opts))[0] ?? null) : null;
  }

  /**
   * Of these ids, the ones nodes of another tenant or scope hold. Node ids are unique store-wide,
   * so a caller-chosen id must be free everywhere (memory.write refuses a taken one).
   */
  async idsHeldElsewhere(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const found = await this.store.byIds(ids, { _id: 1, tenant_id: 1, scope: 1 });
    return found.filter((n) => n.tenant_id !== this.ref.tenant_id || n.scope !== this.ref.scope).map((n) => n.id);
  }

  async getByClientId(clientId: string, opts?: ReadOpts): Promise<StoredNode | null> {
    const doc = await this.nodes.findOne({ client_key: clientId });
    return doc ? ((await this.withAccess([toNode(doc)], opts))[0] ?? null) : null;
  }

  /** Nodes by client_id, in the order given; unknown ones are left out. Exact lookups (unique index). */
  async getManyByClientId(clientIds: string[], opts?: ReadOpts): Promise<StoredNode[]> {
    const found = await Promise.all(clientIds.map((c) => this.nodes.findOne({ client_key: c })));
    return this.withAccess(found.filter((d): d is NonNullable<typeof d> => d !== null).map(toNode), opts);
  }

  /**
   * Nodes by id, in the order given; unknown ones (and ids of other scopes) are left out, with their
   * access statistics unless `{ access: false }` (recall loads its hits with getManyFields, which
   * never reads them). The query is `_id $in` alone, an exact lookup on the unique _id index,
   * and the tenant+scope check is done here: with tenant_id and scope in the filter the local server
   * walks the (tenant_id, scope, _id) index once per id instead, measured at 100k nodes ~3-5x slower
   * (p50 8.9 vs 1.8 ms for 10 ids), and it holds the collection's lock meanwhile (every query on a
   * collection is serialised there), so that cost was paid once per concurrent recall. (The
   * launcher's planner now looks `_id` up first whatever else the filter holds; other servers may not.)
   */
  async getMany(ids: string[], opts?: ReadOpts): Promise<StoredNode[]> {
    return this.withAccess(await this.loadByIds(ids), opts);
  }

  /**
   * getMany with only some fields loaded (recall loads what its callers show, not the slots): less
   * for the server to encode, the wire to carry and this process to decode.
   */
  async getManyFields<K extends keyof StoredNode>(ids: string[], fields: readonly K[]): Promise<Pick<StoredNode, K | 'id' | 'tenant_id' | 'scope'>[]> {
    const projection: Record<string, 1> = { _id: 1, tenant_id: 1, scope: 1 };
    for (const f of fields) if (f !== 'id') projection[f] = 1;
    return this.loadByIds(ids, projection);
  }

  private async loadByIds(ids: string[], projection?: Record<string, 1>): Promise<StoredNode[]> {
    if (ids.length === 0) return [];
    const byId = new Map<string, StoredNode>();
    for (const n of await this.store.byIds(ids, projection)) {
      if (n.tenant_id === this.ref.tenant_id && n.scope === this.ref.scope) byId.set(n.id, n);
    }
    return ids.map((id) => byId.get(id)).filter((n): n is StoredNode => n !== undefined);
  }

  /** `omit`: paths left out of the read (a caller that needs less than whole nodes). */
  async find(filter: NodeFilter, opts: { limit: number; after?: string; omit?: string[] } & ReadOpts): Promise<StoredNode[]> {
    const q = toMongoFilter(filter) as Record<string, unknown>;
    if (opts.after) q._id = { ...((q._id as object) ?? {}), $gt: opts.after };
    const projection = opts.omit && opts.omit.length > 0 ? Object.fromEntries(opts.omit.map((k) => [k, 0])) : undefined;
    const docs = await this.nodes.find(q as Filter<NodeDoc>, { sort: { _id: 1 }, limit: opts.limit, ...(projection ? { projection } : {}) });
    return this.withAccess(docs.map(toNode), opts);
  }

  /**
   * Recorded events (kind session_event) not archived, with ids in (after, before), in id order, at
   * most `limit`, with their access statistics: where the forgetting operator looks for hook noise
   * first. Served by the (tenant_id, scope, kind, _id) index; the tier is checked on the documents
   * of that id range only.
   */
  async eventsBetween(after: string, before: string, limit: number): Promise<StoredNode[]> {
    const docs = await this.nodes.find({ kind: 'session_event', _id: { $gt: after, $lt: before }, tier: { $ne: 'archive' } } as Filter<NodeDoc>, { sort: { _id: 1 }, limit });
    return this.withAccess(docs.map(toNode));
  }

  async count(filter: NodeFilter = {}): Promise<number> {
    return this.nodes.count(toMongoFilter(filter));
  }

  /**
   * Streams every node of the scope in id order (exports, lifecycle scans), in bounded pages on the
   * (tenant_id, scope, _id) index: the local server materialises whole results, so a single
   * unbounded query over a large scope would exhaust its memory.
   */
  async *all(filter: NodeFilter = {}, pageSize = 1000): AsyncGenerator<StoredNode> {
    for (let after: string | undefined; ; ) {
      const page = await this.find(filter, { limit: pageSize, after });
      for (const n of page) yield n;
      if (page.length < pageSize) return;
      after = page[page.length - 1]!.id;
    }
  }

  /**
   * Inserts new nodes (no client_id check). Goes through the store's insert combiner: concurrent
   * inserts of this process share one sequence allocation and one insertMany.
   */
  async insert(contents: NodeContent[], now: Date): Promise<StoredNode[]> {
    if (contents.length === 0) return [];
    // Stamped here, with this handle's scope; the combiner fills in each seq.
    const docs = contents.map((c) => ({ ...this.newDoc(c, 0, now), ...this.ref }));
    const failure = (await this.store.insertDocs(docs)).find((e) => e !== undefined);
    if (failure) throw failure;
    return docs.map(toNode);
  }

  private newDoc(c: NodeContent, seq: number, now: Date, hash = contentHash(c)): NodeDoc {
    const id = c.id ?? uuidv7(now.getTime());
    const at = now.toISOString();
    return {
      _id: id,
      client_key: c.client_id ?? `~${id}`,
      client_id: c.client_id ?? null,
      type: c.type,
      kind: c.kind ?? null,
      tier: c.tier ?? 'hot',
      title: c.title ?? null,
      text: c.text,
      summary: c.summary,
      tags: c.tags ?? [],
      slots: c.slots ?? {},
      salience: c.salience ?? 0.5,
      importance: c.importance ?? 0.5,
      confidence: c.confidence ?? 0.5,
      feedback: c.feedback ? startingFeedback(c.feedback.positive, c.feedback.negative, at) : emptyFeedback(),
      access: { count: 0, last_at: null },
      activation: { count: 0, last_activated_at: null },
      pinned: c.pinned ?? false,
      revision: 1,
      content_hash: hash,
      seq,
      actor: c.actor,
      commit_id: c.commit_id ?? null,
      created_at: at,
      updated_at: at,
    };
  }

  /**
   * Writes a node identified by client_id: creates it, returns it unchanged when the content is
   * the same (idempotent), or supersedes it, keeping the old content as a revision. `keep` lists
   * slot names the runtime owns, carried over on supersede (e.g. lifecycle slots).
   */
  async writeByClientId(
    c: NodeContent & { client_id: string },
    now: Date,
    keep: string[] = [],
    opts: { likelyNew?: boolean } = {},
  ): Promise<{ node: StoredNode; outcome: WriteOutcome }> {
    return this.writeByKey(c, c.client_id, now, keep, opts);
  }

  /**
   * The same for a node named by a caller-chosen id without a client_id: its key is `~<id>`, the
   * key every node without a client_id has, so a second write of that id supersedes the node.
   */
  async writeById(c: NodeContent & { id: string }, now: Date, keep: string[] = []): Promise<{ node: StoredNode; outcome: WriteOutcome }> {
    return this.writeByKey({ ...c, client_id: null }, `~${c.id}`, now, keep, {});
  }

  private async writeByKey(c: NodeContent, key: string, now: Date, keep: string[], opts: { likelyNew?: boolean }): Promise<{ node: StoredNode; outcome: WriteOutcome }> {
    const hash = contentHash(c);
    // The caller's in-process index says the client_id is new: insert straight away (one round
    // trip fewer). If it exists after all (written by another process), the unique index says so.
    let skipLookup = opts.likelyNew === true;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const existing = skipLookup ? null : await this.nodes.findOne({ client_key: key });
      skipLookup = false;
      if (!existing) {
        const doc = { ...this.newDoc(c, 0, now, hash), ...this.ref };
        const [err] = await this.store.insertDocs([doc]);
        if (!err) return { node: toNode(doc), outcome: 'created' };
        if (err instanceof DuplicateNodeKey) continue; // created concurrently (or earlier elsewhere): treat as existing
        throw err;
      }
      if (existing.content_hash === hash) return { node: toNode(existing), outcome: 'deduplicated' };
      const at = now.toISOString();
      const revision: RevisionDoc = {
        _id: `${existing._id}:${existing.revision}`,
        node_id: existing._id,
        revision: existing.revision,
        title: existing.title,
        text: existing.text,
        summary: existing.summary,
        slots: existing.slots,
        tags: existing.tags,
        content_hash: existing.content_hash,
        actor: existing.actor,
        superseded_at: at,
        created_at: existing.updated_at,
      };
      try {
        await this.revisions.insertOne(revision);
      } catch (err) {
        if (!isDuplicateKey(err)) throw err; // the same revision saved by a racing writer
      }
      const carried = Object.fromEntries(keep.filter((k) => k in existing.slots).map((k) => [k, existing.slots[k]]));
      const updated = await this.nodes.findOneAndUpdate(
        { _id: existing._id, revision: existing.revision },
        {
          $set: {
            type: c.type,
            kind: c.kind ?? existing.kind,
            title: c.title ?? null,
            text: c.text,
            summary: c.summary,
            tags: c.tags ?? [],
            slots: { ...(c.slots ?? {}), ...carried },
            ...(c.tier ? { tier: c.tier } : {}),
            ...(c.importance !== undefined ? { importance: c.importance } : {}),
            content_hash: hash,
            revision: existing.revision + 1,
            seq: await this.store.nextSeq(1),
            actor: c.actor,
            commit_id: c.commit_id ?? null,
            updated_at: at,
          },
        },
      );
      if (updated) return { node: toNode(updated), outcome: 'superseded' };
      // Another writer superseded it first: look again.
    }
    throw new Error(`store: could not write node '${key}' after 5 attempts (heavy contention, or its id is taken)`);
  }

  /**
   * Changes bookkeeping or runtime-owned fields of a node (tier, slots.*, feedback, access, …)
   * and gives it a new seq so every process's index sees the change. Returns null when missing,
   * or when `expectRevision` / `expectFields` no longer hold.
   * `omit`: paths left out of the returned node (a caller that just wrote a large slot has it).
   */
  async update(
    id: string,
    change: { set?: Record<string, unknown>; inc?: Record<string, number>; unset?: string[] },
    now: Date,
    opts: { expectRevision?: number; expectFields?: Record<string, string | number | boolean | null>; omit?: string[] } = {},
  ): Promise<StoredNode | null> {
    for (const key of [...Object.keys(change.set ?? {}), ...Object.keys(change.inc ?? {}), ...(change.unset ?? [])]) {
      if (key === '_id' || key === 'client_key' || key === 'seq' || key === 'revision' || key === 'content_hash') {
        throw new Error(`store: update may not set '${key}'`);
      }
    }
    const update: Record<string, unknown> = {
      $set: { ...(change.set ?? {}), seq: await this.store.nextSeq(1), updated_at: now.toISOString() },
    };
    if (change.inc && Object.keys(change.inc).length > 0) update.$inc = change.inc;
    if (change.unset && change.unset.length > 0) update.$unset = Object.fromEntries(change.unset.map((k) => [k, '']));
    const filter: Record<string, unknown> = { _id: id };
    if (opts.expectRevision !== undefined) filter.revision = opts.expectRevision;
    // Further equality conditions (e.g. counters a decision was made from): null when one moved.
    for (const [k, v] of Object.entries(opts.expectFields ?? {})) filter[k] = v;
    const projection = opts.omit && opts.omit.length > 0 ? Object.fromEntries(opts.omit.map((k) => [k, 0])) : undefined;
    const doc = await this.nodes.findOneAndUpdate(filter as Filter<NodeDoc>, update, projection ? { projection } : {});
    return doc ? toNode(doc) : null;
  }

  /**
   * Access statistics (recall's AccessRecorder flushes the ids it returned once recall is quiet):
   * logged in their own collections (access.ts), never in the node document, so no new seq and no
   * rewrite of the node. `times` is one count for every id, or one per id.
   * Ids of other scopes cannot be counted here: the count is keyed by this tenant+scope.
   */
  async touch(ids: string[], now: Date, times: number | readonly number[] = 1): Promise<void> {
    const n = typeof times === 'number' ? ids.map(() => times) : times;
    await this.access.add(this.ref, ids, n, now);
  }

  /** Folds this scope's access log into per-node documents (access.ts); whole-scope reads call it first. */
  foldAccess(opts: Omit<FoldOptions, 'ref'> = {}): Promise<FoldResult> {
    return this.access.fold({ ...opts, ref: this.ref });
  }

  async revisionsOf(nodeId: string): Promise<NodeRevision[]> {
    const docs = await this.revisions.find({ node_id: nodeId }, { sort: { revision: 1 } });
    return docs.map(({ _id: _i, tenant_id: _t, scope: _s, ...r }) => r as NodeRevision);
  }

  async addEdges(edges: Omit<MemoryEdge, 'id'>[], now: Date): Promise<MemoryEdge[]> {
    if (edges.length === 0) return [];
    const docs: EdgeDoc[] = edges.map((e) => ({ _id: uuidv7(now.getTime()), ...e }));
    await this.edges.insertMany(docs);
    return docs.map(({ _id, ...e }) => ({ id: _id, ...e }));
  }

  /**
   * Inserts edges whose ids the caller derived (edgeId): writing the same edge again is a no-op,
   * so replayed writes do not multiply edges.
   */
  async putEdges(edges: MemoryEdge[]): Promise<void> {
    if (edges.length === 0) return;
    const docs: EdgeDoc[] = edges.map(({ id, ...e }) => ({ _id: id, ...e }));
    try {
      await this.edges.bulkWrite(
        docs.map((d) => ({ insertOne: { document: d } })),
        false,
      );
    } catch (err) {
      if (!onlyDuplicates(err)) throw err;
    }
  }

  /** Edges into `dst` of one type, in id order after `after` (the events of a session). */
  async edgesInto(dst: string, type: EdgeType, opts: { limit: number; after?: string }): Promise<MemoryEdge[]> {
    const q: Record<string, unknown> = { dst, type };
    if (opts.after) q._id = { $gt: opts.after };
    const docs = await this.edges.find(q as Filter<EdgeDoc>, { sort: { _id: 1 }, limit: opts.limit });
    return docs.map(({ _id, tenant_id: _t, scope: _s, ...e }) => ({ id: _id, ...(e as Omit<MemoryEdge, 'id'>) }));
  }

  /** Edges out of any of `srcs` (packs export a page of nodes with their edges). */
  async edgesFrom(srcs: string[]): Promise<MemoryEdge[]> {
    if (srcs.length === 0) return [];
    const docs = await this.edges.find({ src: { $in: srcs } } as Filter<EdgeDoc>);
    return docs.map(({ _id, tenant_id: _t, scope: _s, ...e }) => ({ id: _id, ...(e as Omit<MemoryEdge, 'id'>) }));
  }

  /** Revisions of any of `nodeIds` (packs). */
  async revisionsOfMany(nodeIds: string[]): Promise<NodeRevision[]> {
    if (nodeIds.length === 0) return [];
    const docs = await this.revisions.find({ node_id: { $in: nodeIds } } as Filter<RevisionDoc>);
    return docs.map(({ _id: _i, tenant_id: _t, scope: _s, ...r }) => r as NodeRevision);
  }

  async edgesOf(nodeId: string): Promise<MemoryEdge[]> {
    const [out, incoming] = await Promise.all([this.edges.find({ src: nodeId }), this.edges.find({ dst: nodeId })]);
    return [...out, ...incoming].map(({ _id, tenant_id: _t, scope: _s, ...e }) => ({ id: _id, ...(e as Omit<MemoryEdge, 'id'>) }));
  }

  /** Every edge of the scope (packs). */
  async *allEdges(): AsyncGenerator<MemoryEdge> {
    for await (const { _id, tenant_id: _t, scope: _s, ...e } of this.edges.iterate({})) yield { id: _id, ...(e as Omit<MemoryEdge, 'id'>) };
  }

  /** Every revision of the scope (packs). */
  async *allRevisions(): AsyncGenerator<NodeRevision> {
    for await (const { _id: _i, tenant_id: _t, scope: _s, ...r } of this.revisions.iterate({})) yield r as NodeRevision;
  }
}

/** True when a bulk write failed only on duplicate keys (idempotent re-inserts). */
function onlyDuplicates(err: unknown): boolean {
  const writeErrors = (err as { writeErrors?: unknown })?.writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (list.length === 0) return isDuplicateKey(err);
  return list.every((e) => (e as { code?: number }).code === 11000 || (e as { err?: { code?: number } }).err?.code === 11000);
}

/** The node store: per-scope access, and the cross-scope change feed for catch-up. */
export class NodeStore {
  private readonly seqs: SeqAllocator;
  private readonly abandonedListeners = new Set<(first: number, last: number) => void>();
  private readonly combiner: InsertCombiner;

  private readonly access: AccessStore;

  constructor(readonly db: Database) {
    this.access = new AccessStore(db);
    this.seqs = new SeqAllocator(db);
    this.combiner = new InsertCombiner(db, this.seqs);
  }

  /**
   * Inserts documents (already stamped with their scope by ScopedNodes) and gives each its seq;
   * concurrent callers share one sequence block and one insertMany (insert-combiner.ts).
   */
  insertDocs(docs: StampedDoc[]): Promise<(Error | undefined)[]> {
    return this.combiner.insert(docs);
  }

  /** Folds every scope's access log into per-node documents (access.ts); see AccessRecorder. */
  foldAccess(opts: Omit<FoldOptions, 'ref'> = {}): Promise<FoldResult> {
    return this.access.fold(opts);
  }

  in(ref: ScopeRef): ScopedNodes {
    return new ScopedNodes(
      this,
      ref,
      this.db.scoped<NodeDoc>(nodesCollection, ref),
      this.db.scoped<RevisionDoc>(revisionsCollection, ref),
      this.db.scoped<EdgeDoc>(edgesCollection, ref),
      this.access,
    );
  }

  nextSeq(n: number): Promise<number> {
    return this.seqs.next(n);
  }

  /**
   * Tells `fn` about sequence numbers this process reserved and will never use (sequence.ts): this
   * process's catch-ups (the recall index's, learning's) may pass them. Other processes see them
   * as holes that expire. Returns an unsubscribe function.
   */
  watchAbandonedSeqs(fn: (first: number, last: number) => void): () => void {
    this.abandonedListeners.add(fn);
    this.seqs.onAbandoned ??= (first, last) => {
      for (const l of this.abandonedListeners) l(first, last);
    };
    return () => this.abandonedListeners.delete(fn);
  }

  /** Nodes of every scope changed after `afterSeq`, in seq order (for in-process index catch-up). */
  changesSince(afterSeq: number, limit: number): Promise<StoredNode[]> {
    return feed.changesSince(this.db, afterSeq, limit);
  }

  /** Nodes of every scope whose current seq is one of `seqs` (re-reading catch-up holes; seq index, $in). */
  changesAt(seqs: number[]): Promise<StoredNode[]> {
    return feed.changesAt(this.db, seqs);
  }

  /** {id, seq, tenant_id, scope} of nodes changed after `afterSeq`, in seq order: what catch-up checks first. */
  seqsSince(afterSeq: number, limit: number): Promise<SeqRef[]> {
    return feed.seqsSince(this.db, afterSeq, limit);
  }

  /** {id, seq, tenant_id, scope} of nodes whose current seq is one of `seqs`. */
  seqsAt(seqs: number[]): Promise<SeqRef[]> {
    return feed.seqsAt(this.db, seqs);
  }

  /** Nodes of any scope by id (exact _id lookups), for applying changes found by seqsSince/seqsAt. */
  byIds(ids: string[], projection?: Record<string, 1>): Promise<StoredNode[]> {
    return feed.byIds(this.db, ids, projection);
  }

  /** Every node, scope by scope in creation order, with the fields the recall index needs (change-feed.ts). */
  scanForIndex(pageSize?: number): AsyncGenerator<IndexedNodeFields> {
    return feed.scanForIndex(this.db, pageSize);
  }

  /** The highest seq handed out so far (0 when none). */
  async currentSeq(): Promise<number> {
    const [doc] = await this.db.findAll<{ _id: string; value: number }>(countersCollection, { filter: { _id: 'nodes' }, limit: 1 });
    return doc?.value ?? 0;
  }
}
