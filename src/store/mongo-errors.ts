import { MongoServerError } from 'mongodb';

/** A unique index already holds the key (MongoDB error 11000). */
export const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

/**
 * The indexes (in the batch) of the writes a bulk or unordered write rejected as duplicate keys;
 * [] when the error is a duplicate key without per-write detail; null when it failed for another reason.
 */
export function duplicateIndexes(err: unknown): number[] | null {
  const list = (err as { writeErrors?: unknown }).writeErrors;
  const errors = Array.isArray(list) ? list : list ? [list] : [];
  if (errors.length === 0) return isDuplicateKey(err) ? [] : null;
  const idx: number[] = [];
  for (const e of errors as { code?: number; index?: number; err?: { code?: number; index?: number } }[]) {
    const code = e.code ?? e.err?.code;
    if (code !== 11000) return null;
    idx.push(e.index ?? e.err?.index ?? -1);
  }
  return idx;
}
