import type { CollectionSpec } from '../database';
import { activeCollection } from './active';
import { outboxCollection } from './outbox';
import { playbooksCollection } from './playbooks';
import { runsCollection } from './runs';
import { stepsCollection } from './steps';

export { ReplayRuns, type RunPatch } from './runs';
export { ReplaySteps, stepId, type StepPatch } from './steps';
export { ReplayPlaybooks, type PlaybookPatch } from './playbooks';
export { ReplayActive } from './active';
export { LearningOutbox } from './outbox';

/** Collections of the replay family (indexes are created at start). */
export const replayCollections: CollectionSpec[] = [runsCollection, stepsCollection, playbooksCollection, activeCollection, outboxCollection];
