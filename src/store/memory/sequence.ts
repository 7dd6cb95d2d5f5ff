import { randomUUID } from 'node:crypto';
import type { Database } from '../database';
import { defineCollection } from '../database';

/**
 * A monotonically increasing write sequence shared by every Lore process on one database.
 * Every node mutation takes a number; other processes catch up on `seq > watermark` instead of
 * change streams (which the local server lacks).
 */
export const countersCollection = defineCollection({ name: 'counters', indexes: [] });

/**
 * Takes n numbers from the counter `name`: the block (value - n, value]; returns its first.
 *
 * The update carries a unique token and the allocation only counts when the returned document
 * holds that token. On MongoDB the returned document is always our own update's result; the local
 * MongoDB-compatible server applies concurrent $inc updates atomically but may return a document
 * read after a later update (measured: 731 distinct values returned for 1,600 concurrent calls).
 * A mismatch means the value is not known to be ours: the block is abandoned (its numbers become
 * gaps, which readers treat as short-lived holes) and we allocate again.
 */
export async function allocateSeq(db: Database, n = 1, name = 'nodes'): Promise<number> {
  const counters = db.db.collection<{ _id: string; value: number; token?: string }>(countersCollection.name);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const token = randomUUID();
    const doc = await counters.findOneAndUpdate({ _id: name }, { $inc: { value: n }, $set: { token } }, { upsert: true, returnDocument: 'after' });
    if (!doc) throw new Error('store: sequence allocation returned nothing');
    if (doc.token === token) return doc.value - n + 1;
  }
  throw new Error(`store: could not allocate from sequence '${name}' (50 interleaved attempts)`);
}

/**
 * Coalesces concurrent allocations of one process into one counter update: while an update is
 * in flight, requests queue and the next update serves them all. The counter is a durable write
 * on the write path, so at concurrency 8 this halves the store round trips spent on it.
 * Numbers are handed out per request (no pre-reserved blocks): a reserved-but-unused block would
 * look like a gap to other processes for as long as it stays unused.
 */
export class SeqAllocator {
  private pending: { n: number; resolve: (first: number) => void; reject: (err: unknown) => void }[] = [];
  private busy = false;

  constructor(
    private readonly db: Database,
    private readonly name = 'nodes',
  ) {}

  next(n = 1): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending.push({ n, resolve, reject });
      if (!this.busy) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0);
        const total = batch.reduce((s, p) => s + p.n, 0);
        try {
          let at = await allocateSeq(this.db, total, this.name);
          for (const p of batch) {
            p.resolve(at);
            at += p.n;
          }
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
