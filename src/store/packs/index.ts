import type { CollectionSpec } from '../database';

/** Collections of the packs family (indexes are created at start). */
export const packsCollections: CollectionSpec[] = [];
