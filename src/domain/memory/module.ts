import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { memoryRoutes } from '../../contract/families/memory';

/** What the memory family offers other families. */
export type MemoryServices = Record<string, never>;

export function createMemoryModule(_deps: AppDeps, _upstream: Record<string, never>): FamilyModule<typeof memoryRoutes, MemoryServices> {
  return { handlers: {}, services: {} };
}
