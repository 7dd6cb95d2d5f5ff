import type { CollectionSpec } from '../database';

/** Collections of the sessions family (indexes are created at start). */
export const sessionsCollections: CollectionSpec[] = [];
