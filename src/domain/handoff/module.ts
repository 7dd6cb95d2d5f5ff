import type { FamilyDeps, FamilyModule } from '../family-module';
import type { handoffRoutes } from '../../contract/families/handoff';
import type { MemoryServices } from '../memory/module';
import { createHandoffHandlers } from './handlers';

/** What the handoff family offers other families. */
export type HandoffServices = Record<string, never>;

export function createHandoffModule(_deps: FamilyDeps, upstream: { memory: MemoryServices }): FamilyModule<typeof handoffRoutes, HandoffServices> {
  return { handlers: createHandoffHandlers({ memory: upstream.memory }), services: {} };
}
