import type { CollectionSpec } from '../database';
import { toolDecisionsCollection } from './decisions';
import { ruleRegistryCollection } from './rules';

export { ToolDecisions, type ToolDecisionDoc } from './decisions';
export { RuleRegistry, type RuleEntryDoc } from './rules';

/** Collections of the learning family (indexes are created at start). */
export const learningCollections: CollectionSpec[] = [toolDecisionsCollection, ruleRegistryCollection];
