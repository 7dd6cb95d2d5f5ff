import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Binary, type Filter } from 'mongodb';
import { defineCollection, isDuplicateKey, type Database } from '../database';
import type { ScopeRef } from '../scope';

/**
 * The cold store (contract.md §4): payloads the lifecycle operator relocated out of archived
 * nodes, gzip-compressed, one document per (node, revision). Documents are only ever added
 * (an archive of the same revision again is a no-op); nothing here is deleted, so every payload
 * that was ever relocated can be restored.
 */
export const coldStoreCollection = defineCollection({
  name: 'lifecycle_cold_store',
  // _id (`<node id>:<revision>`) serves the restore lookups; this index lists a node's relocations.
  indexes: [{ key: { tenant_id: 1, scope: 1, node_id: 1 }, name: 'scope_node', why: 'the relocated payloads of one node (diagnostics, packs)' }],
});

interface ColdDoc {
  _id: string;
  node_id: string;
  revision: number;
  client_id: string | null;
  codec: 'gzip';
  payload: Binary;
  payload_bytes: number;
  stored_bytes: number;
  sha256: string;
  content_hash: string;
  relocated_at: string;
  run_id: string;
}

export interface ColdPut {
  node_id: string;
  revision: number;
  client_id: string | null;
  content_hash: string;
  text: string;
  relocated_at: string;
  run_id: string;
}

export interface ColdReceipt {
  cold_key: string;
  payload_bytes: number;
  stored_bytes: number;
  sha256: string;
}

/** True when a bulk insert failed only on duplicate keys (payloads stored before). */
function onlyDuplicates(err: unknown): boolean {
  const writeErrors = (err as { writeErrors?: unknown })?.writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  if (list.length === 0) return isDuplicateKey(err);
  return list.every((e) => (e as { code?: number }).code === 11000 || (e as { err?: { code?: number } }).err?.code === 11000);
}

export const coldKey = (nodeId: string, revision: number) => `${nodeId}:${revision}`;
export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Thrown when a stored payload does not decompress to the bytes it was stored with. */
export class ColdStoreCorruption extends Error {
  constructor(readonly key: string) {
    super(`cold-store payload '${key}' failed its checksum`);
    this.name = 'ColdStoreCorruption';
  }
}

export class ColdStore {
  constructor(private readonly db: Database) {}

  private coll(ref: ScopeRef) {
    return this.db.scoped<ColdDoc>(coldStoreCollection, ref);
  }

  /**
   * Stores payloads (one insert for the batch) and reads them back (one query) to check each
   * digest before the caller empties any node: a node is only emptied once its payload is known
   * to be restorable. Idempotent per (node, revision): a payload stored before keeps its first copy.
   */
  async putMany(ref: ScopeRef, items: ColdPut[]): Promise<Map<string, ColdReceipt>> {
    const out = new Map<string, ColdReceipt>();
    if (items.length === 0) return out;
    const docs: ColdDoc[] = items.map((p) => {
      const raw = Buffer.from(p.text, 'utf8');
      const stored = gzipSync(raw, { level: 6 });
      return {
        _id: coldKey(p.node_id, p.revision),
        node_id: p.node_id,
        revision: p.revision,
        client_id: p.client_id,
        codec: 'gzip',
        payload: new Binary(stored),
        payload_bytes: raw.length,
        stored_bytes: stored.length,
        sha256: sha256(raw),
        content_hash: p.content_hash,
        relocated_at: p.relocated_at,
        run_id: p.run_id,
      };
    });
    try {
      await this.coll(ref).bulkWrite(
        docs.map((d) => ({ insertOne: { document: d } })),
        false,
      );
    } catch (err) {
      if (!onlyDuplicates(err)) throw err; // relocated before (a retried activity): keep the first copies
    }
    const back = await this.coll(ref).find({ _id: { $in: docs.map((d) => d._id) } } as Filter<ColdDoc>);
    const byKey = new Map(back.map((d) => [d._id, d]));
    for (const d of docs) {
      const b = byKey.get(d._id);
      if (!b) throw new ColdStoreCorruption(d._id);
      const bytes = gunzipSync(b.payload.buffer);
      if (b.sha256 !== d.sha256 || sha256(bytes) !== d.sha256) throw new ColdStoreCorruption(d._id);
      out.set(d._id, { cold_key: d._id, payload_bytes: bytes.length, stored_bytes: b.stored_bytes, sha256: d.sha256 });
    }
    return out;
  }

  async put(ref: ScopeRef, p: ColdPut): Promise<ColdReceipt> {
    return (await this.putMany(ref, [p])).get(coldKey(p.node_id, p.revision))!;
  }

  /** The payload's exact bytes, checked against the stored digest; null when unknown. */
  async get(ref: ScopeRef, key: string): Promise<{ bytes: Buffer; sha256: string; stored_bytes: number; revision: number } | null> {
    const doc = await this.coll(ref).findOne({ _id: key } as Filter<ColdDoc>);
    if (!doc) return null;
    const bytes = gunzipSync(doc.payload.buffer);
    if (sha256(bytes) !== doc.sha256 || bytes.length !== doc.payload_bytes) throw new ColdStoreCorruption(key);
    return { bytes, sha256: doc.sha256, stored_bytes: doc.stored_bytes, revision: doc.revision };
  }

  /** Every payload stored for these nodes (packs export them with their nodes), checked against their digests. */
  async forNodes(ref: ScopeRef, nodeIds: string[]): Promise<(Omit<ColdDoc, '_id' | 'payload' | 'codec'> & { text: string })[]> {
    if (nodeIds.length === 0) return [];
    const docs = await this.coll(ref).find({ node_id: { $in: nodeIds } } as Filter<ColdDoc>, { sort: { _id: 1 } });
    return docs.map((d) => {
      const bytes = gunzipSync(d.payload.buffer);
      if (sha256(bytes) !== d.sha256) throw new ColdStoreCorruption(d._id);
      return {
        node_id: d.node_id,
        revision: d.revision,
        client_id: d.client_id,
        payload_bytes: d.payload_bytes,
        stored_bytes: d.stored_bytes,
        sha256: d.sha256,
        content_hash: d.content_hash,
        relocated_at: d.relocated_at,
        run_id: d.run_id,
        text: bytes.toString('utf8'),
      };
    });
  }

  /** The payload as text (UTF-8 round trip of what was stored). */
  async getText(ref: ScopeRef, key: string): Promise<string | null> {
    const r = await this.get(ref, key);
    return r ? r.bytes.toString('utf8') : null;
  }
}
