import type { FamilyDeps, FamilyModule } from '../family-module';
import type { packsRoutes } from '../../contract/families/packs';
import { PackImportStore } from '../../store/packs/imports';
import type { MemoryServices } from '../memory/module';
import { createPacksHandlers } from './handlers';

/** What the packs family offers other families. */
export type PacksServices = Record<string, never>;

export function createPacksModule(deps: FamilyDeps, upstream: { memory: MemoryServices }): FamilyModule<typeof packsRoutes, PacksServices> {
  const imports = new PackImportStore(deps.db);
  return {
    handlers: createPacksHandlers({ memory: upstream.memory, engine: deps.engine, clock: deps.clock, imports, log: deps.log }),
    services: {},
  };
}
