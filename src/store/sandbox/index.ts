import type { CollectionSpec } from '../database';

/** Collections of the sandbox family (indexes are created at start). */
export const sandboxCollections: CollectionSpec[] = [];
