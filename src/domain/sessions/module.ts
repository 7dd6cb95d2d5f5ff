import type { FamilyDeps, FamilyModule } from '../family-module';
import type { sessionsRoutes } from '../../contract/families/sessions';
import type { MemoryServices } from '../memory/module';
import { createSessionsHandlers } from './handlers';

/** What the sessions family offers other families. */
export type SessionsServices = Record<string, never>;

export function createSessionsModule(deps: FamilyDeps, upstream: { memory: MemoryServices }): FamilyModule<typeof sessionsRoutes, SessionsServices> {
  return { handlers: createSessionsHandlers({ memory: upstream.memory, clock: deps.clock }), services: {} };
}
