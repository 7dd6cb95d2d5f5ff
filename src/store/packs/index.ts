import type { CollectionSpec } from '../database';
import { chunksCollection, importsCollection } from './imports';

/** Collections of the packs family (indexes are created at start). */
export const packsCollections: CollectionSpec[] = [importsCollection, chunksCollection];
