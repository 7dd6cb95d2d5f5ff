import type { CollectionSpec } from '../database';
import { delegationCollection } from './records';

/** Collections of the delegation family (indexes are created at start). */
export const delegationCollections: CollectionSpec[] = [delegationCollection];
