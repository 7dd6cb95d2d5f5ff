import type { Filter } from 'mongodb';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Access } from '../../model/memory/node';
import { defineCollection, type Database } from '../database';
import { duplicateIndexes } from '../mongo-errors';
import type { ScopeRef } from '../scope';

/**
 * Access statistics (how often recall returned a node, and when last) live apart from node content,
 * in two collections:
 *
 * - **the access log** (`memory_access_log`): what a flush of recall's counts writes. One inserted
 *   document per up to 200 counted nodes of one scope (`ids[i]` was used `n[i]` times, last at
 *   `at`). Inserting is what the server does cheaply: on the local server a count costs 14-33 µs
 *   this way against 200-451 µs as an update of a per-node document (docs/benchmarks.md, "Access
 *   counts as a log"), and flushes are what happens while recall is busy.
 * - **per-node documents** (`memory_node_access`, keyed by tenant, scope and node id): what the
 *   log is folded into, off the recall path (`fold`, run when recall has been quiet for a while and
 *   by the lifecycle operator before it reads a scope).
 *
 * A read adds both: per-node document plus every log entry naming the node that was not folded into
 * it yet. Folding counts each log document exactly once per node, across processes and crashes:
 * a fold claims a log document (an atomic update of its `claim`), applies it to each node's
 * document with a filter that skips nodes already carrying the log document's id in `folded`
 * (the same update pushes that id, so it is atomic per node), then deletes it. A fold that dies
 * half-way leaves the document claimed; once the claim is older than CLAIM_LEASE_MS any fold
 * takes it over and applies it to the nodes that do not carry its id yet. Reads skip the log
 * entries a node already carries, so they are exact before, during and after a fold.
 *
 * `folded` keeps a node's last FOLDED_KEPT log ids. A log document whose fold died is taken over
 * after CLAIM_LEASE_MS; if meanwhile more than FOLDED_KEPT other log documents naming the same node
 * were folded, that node's mark is gone and it would be counted twice. Folds take the oldest log
 * documents first, so this needs a crash mid-fold and that many flushes of one node within the
 * lease; docs/memory.md states the bound.
 *
 * A node's access is its stored `access` (what it was created or imported with) plus what the two
 * collections have counted since; `last_at` is the latest of them (see `withAccess`).
 */

export interface AccessDoc {
  _id: string;
  tenant_id: string;
  scope: string;
  node_id: string;
  count: number;
  last_at: string;
  /** Ids of the last log documents folded into this one (see above). */
  folded?: string[];
}

export interface AccessLogDoc {
  _id: string;
  tenant_id: string;
  scope: string;
  at: string;
  ids: string[];
  n: number[];
  /** Set by the fold that took the document (`at`: when, ISO). */
  claim?: { by: string; at: string };
}

export const accessCollection = defineCollection({
  name: 'memory_node_access',
  // Lookups are by _id alone (exact, on the unique _id index); the id carries tenant and scope.
  indexes: [],
});

export const accessLogCollection = defineCollection({
  name: 'memory_access_log',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, ids: 1 },
      name: 'scope_ids',
      why: 'reads of a node’s access find the log entries not yet folded that name it; a fold of one scope claims its documents',
    },
  ],
});

/** Counted nodes per log document: bounds one document's size (and one fold command's). */
export const LOG_CHUNK = 200;
/** A claim older than this is a fold that died: another fold takes the document over. */
export const CLAIM_LEASE_MS = 30_000;
/** Log documents a fold lists at a time before claiming them one by one. */
const FOLD_BATCH = 100;
/**
 * Log ids a node's document remembers as folded (the bound above). Few and short, because every
 * fold update rewrites the whole document: 32 uuids made it ~1.4 KB (the fold's cost per count
 * measured the same with these 8; docs/notes/experiments.md, "Access counts as a log").
 */
export const FOLDED_KEPT = 8;

/** A log document's id: its time in base 36 (so ids sort by time) and 8 random hex digits; 17 characters. */
const logId = (at: Date) => `${at.getTime().toString(36).padStart(9, '0')}${randomBytes(4).toString('hex')}`;

/** The key of a node's access document: one per tenant, scope and node, so scopes never share one. */
export const accessKey = (ref: ScopeRef, nodeId: string) => `${ref.tenant_id}\u001f${ref.scope}\u001f${nodeId}`;

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

export interface FoldOptions {
  /** Only this scope's log (the lifecycle operator); every scope when absent. */
  ref?: ScopeRef;
  /** Asked before each log document; true stops the fold there (recall came back). */
  stop?: () => boolean;
  /** Called after each folded log document. */
  progress?: () => void;
}

export interface FoldResult {
  /** Log documents folded. */
  documents: number;
  /** Node counts they held. */
  counts: number;
  /** False when `stop` ended the fold with log documents left. */
  complete: boolean;
}

export class AccessStore {
  /** Who this process's claims say took a log document. */
  private readonly folder = randomUUID();

  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get nodesColl() {
    return this.db.raw<AccessDoc>(accessCollection);
  }

  private get logColl() {
    return this.db.raw<AccessLogDoc>(accessLogCollection);
  }

  /**
   * Logs `n[i]` uses of `ids[i]` (nodes of this scope; an unknown id costs one log entry) at `at`:
   * one inserted document per LOG_CHUNK nodes, all in one command.
   */
  async add(ref: ScopeRef, ids: readonly string[], n: readonly number[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    if (n.length !== ids.length) throw new Error(`access counts: ${ids.length} ids but ${n.length} counts`);
    // An id twice in one log document would be folded once (its mark stops the second): sum first.
    if (new Set(ids).size !== ids.length) {
      const summed = new Map<string, number>();
      ids.forEach((id, i) => summed.set(id, (summed.get(id) ?? 0) + n[i]!));
      ids = [...summed.keys()];
      n = [...summed.values()];
    }
    const iso = at.toISOString();
    const docs: AccessLogDoc[] = [];
    for (let from = 0; from < ids.length; from += LOG_CHUNK) {
      docs.push({ _id: logId(at), tenant_id: ref.tenant_id, scope: ref.scope, at: iso, ids: ids.slice(from, from + LOG_CHUNK), n: n.slice(from, from + LOG_CHUNK) });
    }
    await this.logColl.insertMany(docs as never[], { ordered: false });
  }

  /**
   * Counted access per node id of this scope (nodes never recalled are absent). The log is read
   * first, the per-node documents second: a log document the first read missed was deleted, so it
   * had been applied to every node before, and the second read finds it there; one it found is
   * either marked in the node's document by then (skipped) or not applied to that node (counted).
   */
  async of(ref: ScopeRef, nodeIds: string[]): Promise<Map<string, Access>> {
    const out = new Map<string, Access>();
    if (nodeIds.length === 0) return out;
    const logs = await this.logColl
      .find({ tenant_id: ref.tenant_id, scope: ref.scope, ids: { $in: nodeIds } } as Filter<AccessLogDoc>, { projection: { ids: 1, n: 1, at: 1 } })
      .toArray();
    const docs = await this.nodesColl.find({ _id: { $in: nodeIds.map((id) => accessKey(ref, id)) } } as Filter<AccessDoc>).toArray();
    const folded = new Map<string, string[]>();
    for (const d of docs) {
      if (d.tenant_id !== ref.tenant_id || d.scope !== ref.scope) continue;
      out.set(d.node_id, { count: d.count, last_at: d.last_at });
      if (d.folded) folded.set(d.node_id, d.folded);
    }
    if (logs.length === 0) return out;
    const wanted = new Set(nodeIds);
    for (const log of logs) {
      for (let i = 0; i < log.ids.length; i++) {
        const id = log.ids[i]!;
        if (!wanted.has(id) || folded.get(id)?.includes(log._id)) continue;
        const had = out.get(id);
        out.set(id, { count: (had?.count ?? 0) + (log.n[i] ?? 0), last_at: later(had?.last_at ?? null, log.at) });
      }
    }
    return out;
  }

  /** `nodes` with their counted access added to the access they were stored with. */
  async withAccess<N extends { id: string; access: Access }>(ref: ScopeRef, nodes: N[]): Promise<N[]> {
    if (nodes.length === 0) return nodes;
    const counted = await this.of(
      ref,
      nodes.map((n) => n.id),
    );
    if (counted.size === 0) return nodes;
    return nodes.map((n) => {
      const c = counted.get(n.id);
      if (!c) return n;
      const base = n.access ?? { count: 0, last_at: null };
      return { ...n, access: { count: base.count + c.count, last_at: later(base.last_at, c.last_at) } };
    });
  }

  /**
   * Folds the log into per-node documents, oldest log documents first (see the top of this file).
   * Candidates are listed FOLD_BATCH at a time (ids only); each is then claimed by `_id`.
   */
  async fold(opts: FoldOptions = {}): Promise<FoldResult> {
    const result: FoldResult = { documents: 0, counts: 0, complete: true };
    for (;;) {
      const candidates = await this.logColl.find(this.claimable(opts.ref), { projection: { _id: 1 }, sort: { _id: 1 }, limit: FOLD_BATCH }).toArray();
      if (candidates.length === 0) return result;
      for (const { _id } of candidates) {
        if (opts.stop?.()) {
          result.complete = false;
          return result;
        }
        const doc = await this.claim(_id);
        if (!doc) continue; // another fold took it meanwhile
        await this.apply(doc);
        await this.logColl.deleteOne({ _id: doc._id, 'claim.by': this.folder } as Filter<AccessLogDoc>);
        result.documents += 1;
        result.counts += doc.ids.length;
        opts.progress?.();
      }
    }
  }

  /** Log documents no live fold holds: unclaimed, or claimed longer ago than the lease. */
  private claimable(ref?: ScopeRef): Filter<AccessLogDoc> {
    const expired = new Date(this.now().getTime() - CLAIM_LEASE_MS).toISOString();
    return {
      ...(ref ? { tenant_id: ref.tenant_id, scope: ref.scope } : {}),
      $or: [{ claim: { $exists: false } }, { 'claim.at': { $lt: expired } }],
    } as Filter<AccessLogDoc>;
  }

  private claim(id: string): Promise<AccessLogDoc | null> {
    const filter = { ...this.claimable(), _id: id } as Filter<AccessLogDoc>;
    return this.logColl.findOneAndUpdate(filter, { $set: { claim: { by: this.folder, at: this.now().toISOString() } } }, { returnDocument: 'after' });
  }

  /** Claims the oldest claimable log document (of one scope, or any); tests use it to stop a fold half-way. */
  async claimNext(ref?: ScopeRef): Promise<AccessLogDoc | null> {
    const [first] = await this.logColl.find(this.claimable(ref), { projection: { _id: 1 }, sort: { _id: 1 }, limit: 1 }).toArray();
    return first ? this.claim(first._id) : null;
  }

  /**
   * Adds one log document to its nodes' documents, once per node: a node already carrying the log
   * id is skipped by the filter, and the upsert that then finds no match fails as a duplicate key.
   * A duplicate key is also what two folds creating the same node's document at once get, so each
   * is retried once; a second duplicate means the node already has this log document.
   */
  async apply(doc: Pick<AccessLogDoc, '_id' | 'tenant_id' | 'scope' | 'at' | 'ids' | 'n'>): Promise<void> {
    const ref = { tenant_id: doc.tenant_id, scope: doc.scope };
    const ops = doc.ids.map((id, i) => ({
      updateOne: {
        filter: { _id: accessKey(ref, id), folded: { $ne: doc._id } } as Filter<AccessDoc>,
        update: {
          $inc: { count: doc.n[i] ?? 0 },
          $max: { last_at: doc.at },
          $setOnInsert: { tenant_id: doc.tenant_id, scope: doc.scope, node_id: id },
          $push: { folded: { $each: [doc._id], $slice: -FOLDED_KEPT } },
        },
        upsert: true,
      },
    }));
    let pending = ops;
    for (let attempt = 0; attempt < 2 && pending.length > 0; attempt++) {
      try {
        await this.nodesColl.bulkWrite(pending as never[], { ordered: false });
        return;
      } catch (err) {
        const dups = duplicateIndexes(err);
        // Without per-write detail the failed upserts are unknown; the next fold takes the document over.
        if (dups === null || dups.length === 0 || dups.some((i) => pending[i] === undefined)) throw err;
        pending = dups.map((i) => pending[i]!);
      }
    }
  }
}
