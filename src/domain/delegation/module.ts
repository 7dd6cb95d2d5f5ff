import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { delegationRoutes } from '../../contract/families/delegation';
import type { MemoryServices } from '../memory/module';

/** What the delegation family offers other families. */
export type DelegationServices = Record<string, never>;

export function createDelegationModule(_deps: AppDeps, _upstream: { memory: MemoryServices }): FamilyModule<typeof delegationRoutes, DelegationServices> {
  return { handlers: {}, services: {} };
}
