import type { Database } from '../database';
import { defineCollection } from '../database';

/**
 * A monotonically increasing write sequence shared by every Lore process on one database.
 * Every node mutation takes a number; other processes catch up on `seq > watermark` instead of
 * change streams (which the local server lacks).
 */
export const countersCollection = defineCollection({ name: 'counters', indexes: [] });

export async function allocateSeq(db: Database, n = 1, name = 'nodes'): Promise<number> {
  const counters = db.db.collection<{ _id: string; value: number }>(countersCollection.name);
  const doc = await counters.findOneAndUpdate({ _id: name }, { $inc: { value: n } }, { upsert: true, returnDocument: 'after' });
  if (!doc) throw new Error('store: sequence allocation returned nothing');
  // The block allocated is (value - n, value]; callers use value - n + 1 … value.
  return doc.value - n + 1;
}
