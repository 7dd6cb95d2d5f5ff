import { endianness } from 'node:os';
import { Binary } from 'mongodb';
import { defineCollection, type Database } from '../database';
import { duplicateIndexes } from '../mongo-errors';

/**
 * Node vectors as the encoder computed them, so a restart reads them back instead of running the
 * encoder over every node again (docs/memory.md, "Vectors"). Content-addressed: `_id` is the key
 * the caller derives (domain/memory/vector-key.ts: a sha256 of the encoder's id and weights, the
 * tenant, the scope and the exact text), so a node rewritten with other text simply misses, and a
 * vector is never stale. The value is the vector's float32 bytes, little-endian (1.5 KB for 384
 * dimensions), exact: a vector read back equals a recomputed one, so recall scores the same after
 * a restart.
 *
 * No secondary index: every read and write is by `_id` (a batch `$in` of keys), and an index would
 * only cost each insert. `tenant_id` and `scope` are kept for inspection and a future purge of a
 * scope; nothing reads by them today.
 */
export const vectorCacheCollection = defineCollection({ name: 'memory_vector_cache', indexes: [] });

interface VectorDoc {
  _id: string;
  tenant_id: string;
  scope: string;
  model: string;
  dim: number;
  vector: Binary;
  at: Date;
}

export interface CachedVector {
  key: string;
  tenant_id: string;
  scope: string;
  model: string;
  vector: Float32Array;
}

/** The bytes are float32 in the machine's order; only little-endian machines share them (all Lore runs on). */
const LITTLE_ENDIAN = endianness() === 'LE';

export class VectorCacheStore {
  constructor(private readonly db: Database) {}

  /** Whether this machine can read and write the cache (see LITTLE_ENDIAN). */
  get usable(): boolean {
    return LITTLE_ENDIAN;
  }

  /** The cached vectors of these keys (those found). */
  async get(keys: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (keys.length === 0 || !LITTLE_ENDIAN) return out;
    const docs = await this.db.findAll<VectorDoc>(vectorCacheCollection, { filter: { _id: { $in: keys } }, projection: { dim: 1, vector: 1 } });
    for (const d of docs) {
      const bytes = d.vector?.buffer;
      if (!bytes || bytes.byteLength !== d.dim * 4) continue; // not a vector this code wrote: recompute
      // A copy: the BSON buffer's offset need not be 4-aligned.
      out.set(d._id, new Float32Array(Uint8Array.from(bytes).buffer));
    }
    return out;
  }

  /** Stores vectors; a key already present (another process, a race) is left as it is. */
  async put(entries: CachedVector[]): Promise<void> {
    if (entries.length === 0 || !LITTLE_ENDIAN) return;
    const at = new Date();
    const docs: VectorDoc[] = entries.map((e) => ({
      _id: e.key,
      tenant_id: e.tenant_id,
      scope: e.scope,
      model: e.model,
      dim: e.vector.length,
      vector: new Binary(Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength)),
      at,
    }));
    try {
      await this.db.raw<VectorDoc>(vectorCacheCollection).insertMany(docs as never[], { ordered: false });
    } catch (err) {
      // Content-addressed: a duplicate key holds the same vector already.
      if (duplicateIndexes(err) === null) throw err;
    }
  }
}
