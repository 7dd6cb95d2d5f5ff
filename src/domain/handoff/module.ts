import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { handoffRoutes } from '../../contract/families/handoff';
import type { MemoryServices } from '../memory/module';

/** What the handoff family offers other families. */
export type HandoffServices = Record<string, never>;

export function createHandoffModule(_deps: AppDeps, _upstream: { memory: MemoryServices }): FamilyModule<typeof handoffRoutes, HandoffServices> {
  return { handlers: {}, services: {} };
}
