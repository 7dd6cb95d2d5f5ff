import type { CollectionSpec } from '../database';

/** Collections of the automation family (indexes are created at start). */
export const automationCollections: CollectionSpec[] = [];
