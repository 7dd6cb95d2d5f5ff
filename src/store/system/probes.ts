import { defineCollection, type Database } from '../database';

/** Round-trip markers written by the engine probe workflow (one small document per probe). */
export const probesCollection = defineCollection({ name: 'system_probes', indexes: [] });

/** Writes a probe marker and reads it back (proves the worker reaches MongoDB). */
export async function writeAndReadProbe(db: Database, probeId: string, at: Date): Promise<string> {
  const coll = db.db.collection<{ _id: string; stored_at: string }>(probesCollection.name);
  await coll.updateOne({ _id: probeId }, { $set: { stored_at: at.toISOString() } }, { upsert: true });
  const back = await coll.findOne({ _id: probeId });
  if (!back) throw new Error(`probe ${probeId} was not readable after its write`);
  return back.stored_at;
}
