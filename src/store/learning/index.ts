import type { CollectionSpec } from '../database';

/** Collections of the learning family (indexes are created at start). */
export const learningCollections: CollectionSpec[] = [];
