import { probesCollection } from './system/probes';
import type { CollectionSpec } from './database';
import { memoryCollections } from './memory';
import { sessionsCollections } from './sessions';
import { handoffCollections } from './handoff';
import { packsCollections } from './packs';
import { delegationCollections } from './delegation';
import { learningCollections } from './learning';
import { lifecycleCollections } from './lifecycle';
import { sandboxCollections } from './sandbox';
import { replayCollections } from './replay';
import { automationCollections } from './automation';

/** Every collection Lore uses, so indexes are created in one place at start. */
export const allCollections: CollectionSpec[] = [
  probesCollection,
  ...memoryCollections,
  ...sessionsCollections,
  ...handoffCollections,
  ...packsCollections,
  ...delegationCollections,
  ...learningCollections,
  ...lifecycleCollections,
  ...sandboxCollections,
  ...replayCollections,
  ...automationCollections,
];
