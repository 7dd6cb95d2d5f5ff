import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { lifecycleRoutes } from '../../contract/families/lifecycle';
import type { MemoryServices } from '../memory/module';
import type { LearningServices } from '../learning/module';

/** What the lifecycle family offers other families. */
export type LifecycleServices = Record<string, never>;

export function createLifecycleModule(_deps: AppDeps, _upstream: { memory: MemoryServices; learning: LearningServices }): FamilyModule<typeof lifecycleRoutes, LifecycleServices> {
  return { handlers: {}, services: {} };
}
