import type { packsRoutes } from '../../contract/families/packs';
import type { Handlers } from '../../contract/handlers';
import { scopeRef } from '../../store/scope';
import { exportPackPage } from './export';
import { getImportStatus, startImport, type PackImportDeps } from './import-pack';

const refOf = (ctx: { tenant_id: string; scope: string }) => scopeRef(ctx.tenant_id, ctx.scope);

/** One handler per packs route; each is a thin call into the operation's module. */
export function createPacksHandlers(deps: PackImportDeps): Handlers<typeof packsRoutes> {
  return {
    'packs.export': (input, ctx) => exportPackPage(deps.memory, deps.clock, refOf(ctx), input),
    'packs.import': (input, ctx) => startImport(deps, refOf(ctx), input, ctx.actor),
    'packs.importStatus': (input, ctx) => getImportStatus(deps.imports, refOf(ctx), input),
  };
}
