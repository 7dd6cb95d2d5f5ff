import type { CollectionSpec } from '../database';

/** Collections of the lifecycle family (indexes are created at start). */
export const lifecycleCollections: CollectionSpec[] = [];
