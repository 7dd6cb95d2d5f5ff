import type { CollectionSpec } from '../database';
import { definitionsCollection } from './definitions';
import { runNodesCollection } from './run-nodes';
import { runsCollection } from './runs';

export { AutomationDefinitions } from './definitions';
export { AutomationRuns, type RunPatch } from './runs';
export { AutomationRunNodes, type NodePatch } from './run-nodes';

/** Collections of the automation family (indexes are created at start). */
export const automationCollections: CollectionSpec[] = [definitionsCollection, runsCollection, runNodesCollection];
