import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { lifecycleRoutes } from '../../contract/families/lifecycle';
import type { MemoryServices } from '../memory/module';
import type { ForgettingSummary } from '../../contract/shapes/forgetting';
import type { ScopeRef } from '../../store/scope';

/** What the lifecycle family offers other families. */
export interface LifecycleServices {
  /** The scope's forgetting summary (counts kept current, not scanned per call). */
  forgettingSummary(ref: ScopeRef): Promise<ForgettingSummary>;
}

export function createLifecycleModule(_deps: AppDeps, _upstream: { memory: MemoryServices }): FamilyModule<typeof lifecycleRoutes, LifecycleServices> {
  // Placeholder until the lifecycle family lands (issue 6): callers see a clear failure, not zeros.
  return {
    handlers: {},
    services: {
      forgettingSummary: async () => {
        throw new Error('lifecycle family not implemented yet');
      },
    },
  };
}
