import type { CollectionSpec } from '../database';

/** Collections of the handoff family (indexes are created at start). */
export const handoffCollections: CollectionSpec[] = [];
