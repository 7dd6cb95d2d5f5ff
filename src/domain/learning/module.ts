import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { learningRoutes } from '../../contract/families/learning';
import type { MemoryServices } from '../memory/module';
import type { LifecycleServices } from '../lifecycle/module';

/** What the learning family offers other families. */
export type LearningServices = Record<string, never>;

export function createLearningModule(_deps: AppDeps, _upstream: { memory: MemoryServices; lifecycle: LifecycleServices }): FamilyModule<typeof learningRoutes, LearningServices> {
  return { handlers: {}, services: {} };
}
