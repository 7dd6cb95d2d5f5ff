import { createHash } from 'node:crypto';
import type { Filter } from 'mongodb';
import type { MemoryEdge, MemoryNode, NodeKind, NodeRevision, NodeType, Tier } from '../../domain/memory/node';
import { emptyFeedback } from '../../domain/memory/node';
import { uuidv7 } from '../../domain/ids';
import { Database, defineCollection, isDuplicateKey } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';
import { allocateSeq } from './sequence';

/** A node as stored: `_id` instead of `id`, and `client_key` (client_id, or `~<id>` without one). */
export type NodeDoc = Omit<MemoryNode, 'id'> & { _id: string; client_key: string };
export type StoredNode = MemoryNode & { tenant_id: string; scope: string };
type RevisionDoc = NodeRevision & { _id: string };
type EdgeDoc = Omit<MemoryEdge, 'id'> & { _id: string };

export const nodesCollection = defineCollection({
  name: 'memory_nodes',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, client_key: 1 },
      unique: true,
      name: 'scope_client_key',
      // client_key is always present (client_id, or ~<id>), so the unique index needs no partial filter,
      // which the local server does not support.
      why: 'client_id idempotency and resolve by client_id',
    },
    {
      key: { tenant_id: 1, scope: 1, _id: 1 },
      name: 'scope_id',
      // The local server serves unique indexes for exact matches only; ranges and sorts need this one.
      why: 'find pagination (_id > cursor in id order) and full-scope scans (packs, lifecycle)',
    },
    { key: { seq: 1 }, name: 'seq', why: 'other processes catch up on seq > watermark' },
    { key: { tenant_id: 1, scope: 1, kind: 1 }, name: 'scope_kind', why: 'learning reads the workflows, patterns and policies of a scope' },
  ],
});

export const revisionsCollection = defineCollection({
  name: 'memory_node_revisions',
  // Uniqueness comes from _id (`<node_id>:<revision>`); this index is non-unique so the local server
  // can serve the node_id prefix in revision order.
  indexes: [{ key: { tenant_id: 1, scope: 1, node_id: 1, revision: 1 }, name: 'node_revision', why: 'resolve lists a node’s history' }],
});

export const edgesCollection = defineCollection({
  name: 'memory_edges',
  indexes: [
    { key: { tenant_id: 1, scope: 1, src: 1 }, name: 'scope_src', why: 'edges out of a node (resolve)' },
    { key: { tenant_id: 1, scope: 1, dst: 1 }, name: 'scope_dst', why: 'edges into a node (resolve)' },
  ],
});

/** What a caller gives to create or supersede a node; the store fills the bookkeeping. */
export interface NodeContent {
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
  actor: string;
}

export type WriteOutcome = 'created' | 'deduplicated' | 'superseded';

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

export function toNode(doc: NodeDoc & { tenant_id?: string; scope?: string }): StoredNode {
  const { _id, client_key: _ck, ...rest } = doc;
  return { id: _id, ...(rest as Omit<MemoryNode, 'id'>), tenant_id: doc.tenant_id ?? '', scope: doc.scope ?? '' };
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

function toMongoFilter(f: NodeFilter): Filter<NodeDoc> {
  const q: Record<string, unknown> = {};
  if (f.ids) q._id = { $in: f.ids };
  if (f.types) q.type = { $in: f.types };
  if (f.kinds) q.kind = { $in: f.kinds };
  if (f.tiers) q.tier = { $in: f.tiers };
  if (f.tags_all && f.tags_all.length > 0) q.tags = { $all: f.tags_all };
  if (f.created_after || f.created_before) {
    q.created_at = { ...(f.created_after ? { $gte: f.created_after } : {}), ...(f.created_before ? { $lt: f.created_before } : {}) };
  }
  return q as Filter<NodeDoc>;
}

/** Nodes of one tenant+scope. */
export class ScopedNodes {
  constructor(
    private readonly store: NodeStore,
    readonly ref: ScopeRef,
    private readonly nodes: ScopedCollection<NodeDoc>,
    private readonly revisions: ScopedCollection<RevisionDoc>,
    private readonly edges: ScopedCollection<EdgeDoc>,
  ) {}

  async get(id: string): Promise<StoredNode | null> {
    const doc = await this.nodes.findOne({ _id: id });
    return doc ? toNode(doc) : null;
  }

  async getByClientId(clientId: string): Promise<StoredNode | null> {
    const doc = await this.nodes.findOne({ client_key: clientId });
    return doc ? toNode(doc) : null;
  }

  /** Nodes by client_id, in the order given; unknown ones are left out. Exact lookups (unique index). */
  async getManyByClientId(clientIds: string[]): Promise<StoredNode[]> {
    const found = await Promise.all(clientIds.map((c) => this.nodes.findOne({ client_key: c })));
    return found.filter((d): d is NonNullable<typeof d> => d !== null).map(toNode);
  }

  async getMany(ids: string[]): Promise<StoredNode[]> {
    if (ids.length === 0) return [];
    const docs = await this.nodes.find({ _id: { $in: ids } });
    const byId = new Map(docs.map((d) => [d._id, toNode(d)]));
    return ids.map((id) => byId.get(id)).filter((n): n is StoredNode => n !== undefined);
  }

  async find(filter: NodeFilter, opts: { limit: number; after?: string }): Promise<StoredNode[]> {
    const q = toMongoFilter(filter) as Record<string, unknown>;
    if (opts.after) q._id = { ...((q._id as object) ?? {}), $gt: opts.after };
    const docs = await this.nodes.find(q as Filter<NodeDoc>, { sort: { _id: 1 }, limit: opts.limit });
    return docs.map(toNode);
  }

  async count(filter: NodeFilter = {}): Promise<number> {
    return this.nodes.count(toMongoFilter(filter));
  }

  /** Streams every node of the scope in id order (exports, lifecycle scans). */
  async *all(filter: NodeFilter = {}): AsyncGenerator<StoredNode> {
    for await (const doc of this.nodes.iterate(toMongoFilter(filter), { sort: { _id: 1 } })) yield toNode(doc);
  }

  /** Inserts new nodes (no client_id check): one sequence block for the batch. */
  async insert(contents: NodeContent[], now: Date): Promise<StoredNode[]> {
    if (contents.length === 0) return [];
    const first = await this.store.nextSeq(contents.length);
    const docs = contents.map((c, i) => this.newDoc(c, first + i, now));
    await this.nodes.insertMany(docs);
    return docs.map((d) => toNode({ ...d, ...this.ref }));
  }

  private newDoc(c: NodeContent, seq: number, now: Date): NodeDoc {
    const id = uuidv7(now.getTime());
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
      feedback: emptyFeedback(),
      access: { count: 0, last_at: null },
      activation: { count: 0, last_activated_at: null },
      pinned: c.pinned ?? false,
      revision: 1,
      content_hash: contentHash(c),
      seq,
      actor: c.actor,
      created_at: at,
      updated_at: at,
    };
  }

  /**
   * Writes a node identified by client_id: creates it, returns it unchanged when the content is
   * the same (idempotent), or supersedes it, keeping the old content as a revision. `keep` lists
   * slot names the runtime owns, carried over on supersede (e.g. lifecycle slots).
   */
  async writeByClientId(c: NodeContent & { client_id: string }, now: Date, keep: string[] = []): Promise<{ node: StoredNode; outcome: WriteOutcome }> {
    const hash = contentHash(c);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const existing = await this.nodes.findOne({ client_key: c.client_id });
      if (!existing) {
        const doc = this.newDoc(c, await this.store.nextSeq(1), now);
        try {
          await this.nodes.insertOne(doc);
          return { node: toNode({ ...doc, ...this.ref }), outcome: 'created' };
        } catch (err) {
          if (isDuplicateKey(err)) continue; // a concurrent writer created it: treat as existing
          throw err;
        }
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
            updated_at: at,
          },
        },
      );
      if (updated) return { node: toNode(updated), outcome: 'superseded' };
      // Another writer superseded it first: look again.
    }
    throw new Error(`store: could not write client_id '${c.client_id}' after 5 attempts (heavy contention)`);
  }

  /**
   * Changes bookkeeping or runtime-owned fields of a node (tier, slots.*, feedback, access, …)
   * and gives it a new seq so every process's index sees the change. Returns null when missing.
   */
  async update(
    id: string,
    change: { set?: Record<string, unknown>; inc?: Record<string, number>; unset?: string[] },
    now: Date,
    opts: { expectRevision?: number } = {},
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
    const doc = await this.nodes.findOneAndUpdate(filter as Filter<NodeDoc>, update);
    return doc ? toNode(doc) : null;
  }

  /** Access statistics for recall (no new seq: access does not change what is indexed). */
  async touch(ids: string[], now: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.nodes.updateMany({ _id: { $in: ids } }, { $inc: { 'access.count': 1 }, $set: { 'access.last_at': now.toISOString() } });
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

/** The node store: per-scope access, and the cross-scope change feed for catch-up. */
export class NodeStore {
  constructor(readonly db: Database) {}

  in(ref: ScopeRef): ScopedNodes {
    return new ScopedNodes(
      this,
      ref,
      this.db.scoped<NodeDoc>(nodesCollection, ref),
      this.db.scoped<RevisionDoc>(revisionsCollection, ref),
      this.db.scoped<EdgeDoc>(edgesCollection, ref),
    );
  }

  nextSeq(n: number): Promise<number> {
    return allocateSeq(this.db, n);
  }

  /** Nodes of every scope changed after `afterSeq`, in seq order (for in-process index catch-up). */
  async changesSince(afterSeq: number, limit: number): Promise<StoredNode[]> {
    const docs = await this.db
      .raw<NodeDoc>(nodesCollection)
      .find({ seq: { $gt: afterSeq } } as Filter<NodeDoc & { tenant_id: string; scope: string }>)
      .sort({ seq: 1 })
      .limit(limit)
      .toArray();
    return docs.map((d) => toNode(d as NodeDoc & { tenant_id: string; scope: string }));
  }

  /** The highest seq handed out so far (0 when none). */
  async currentSeq(): Promise<number> {
    const doc = await this.db.db.collection<{ _id: string; value: number }>('counters').findOne({ _id: 'nodes' });
    return doc?.value ?? 0;
  }
}
