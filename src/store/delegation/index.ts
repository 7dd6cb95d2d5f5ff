import type { CollectionSpec } from '../database';

/** Collections of the delegation family (indexes are created at start). */
export const delegationCollections: CollectionSpec[] = [];
