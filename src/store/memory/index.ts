import type { CollectionSpec } from '../database';
import { accessCollection, accessLogCollection } from './access';
import { countersCollection } from './sequence';
import { metaCollection } from './store-identity';
import { edgesCollection, nodesCollection, revisionsCollection } from './nodes';
import { vectorCacheCollection } from './vector-cache';

/** Collections of the memory family (indexes are created at start). */
export const memoryCollections: CollectionSpec[] = [
  nodesCollection,
  revisionsCollection,
  edgesCollection,
  countersCollection,
  accessCollection,
  accessLogCollection,
  vectorCacheCollection,
  metaCollection,
];
