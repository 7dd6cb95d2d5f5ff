import type { FamilyDeps, FamilyModule } from '../family-module';
import type { delegationRoutes } from '../../contract/families/delegation';
import { DelegationStore } from '../../store/delegation/records';
import type { MemoryServices } from '../memory/module';
import { createDelegationHandlers } from './handlers';

/** What the delegation family offers other families. */
export type DelegationServices = Record<string, never>;

export function createDelegationModule(deps: FamilyDeps, _upstream: { memory: MemoryServices }): FamilyModule<typeof delegationRoutes, DelegationServices> {
  return { handlers: createDelegationHandlers({ store: new DelegationStore(deps.db), clock: deps.clock }), services: {} };
}
