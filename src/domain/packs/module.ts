import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { packsRoutes } from '../../contract/families/packs';
import type { MemoryServices } from '../memory/module';

/** What the packs family offers other families. */
export type PacksServices = Record<string, never>;

export function createPacksModule(_deps: AppDeps, _upstream: { memory: MemoryServices }): FamilyModule<typeof packsRoutes, PacksServices> {
  return { handlers: {}, services: {} };
}
