import type { CollectionSpec } from '../database';

/** Collections of the memory family (indexes are created at start). */
export const memoryCollections: CollectionSpec[] = [];
