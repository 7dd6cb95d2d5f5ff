import type { CollectionSpec } from '../database';
import { coldStoreCollection } from './cold-store';
import { countHistoryCollection } from './count-history';
import { scopeStateCollection } from './scope-state';

/** Collections of the lifecycle family (indexes are created at start). */
export const lifecycleCollections: CollectionSpec[] = [coldStoreCollection, scopeStateCollection, countHistoryCollection];

export { ColdStore, ColdStoreCorruption, coldKey, type ColdReceipt } from './cold-store';
export { ScopeStates, scopeStateId, REHYDRATION_MODE_KEYS, type LastRun, type ScopeStateDoc, type RehydrationModeKey } from './scope-state';
export { nodeStatesAt, nodeStatesSince, scanNodeStates, type NodeState } from './node-states';
export { CountHistory, type CountSample } from './count-history';
