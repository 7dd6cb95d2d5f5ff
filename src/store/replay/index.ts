import type { CollectionSpec } from '../database';

/** Collections of the replay family (indexes are created at start). */
export const replayCollections: CollectionSpec[] = [];
