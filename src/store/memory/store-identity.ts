import { randomUUID } from 'node:crypto';
import { defineCollection, type Database } from '../database';

/**
 * Which store this is: a random id written once into the database (`lore_meta`, `_id: 'store'`).
 * What a process keeps on disk about the store's contents (the recall index's snapshots) names it,
 * so a snapshot is never applied to another store, nor to this database dropped and created again.
 */
export const metaCollection = defineCollection({ name: 'lore_meta', indexes: [] });

export async function storeIdentity(db: Database): Promise<string> {
  const meta = db.db.collection<{ _id: string; id: string }>(metaCollection.name);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const doc = await meta.findOneAndUpdate({ _id: 'store' }, { $setOnInsert: { id: randomUUID() } }, { upsert: true, returnDocument: 'after' });
      if (doc?.id) return doc.id;
    } catch {
      // two processes creating it at once: one insert loses on the unique _id; read the winner's
    }
    const found = await meta.findOne({ _id: 'store' });
    if (found?.id) return found.id;
  }
  throw new Error('store: could not read or create the store identity');
}
