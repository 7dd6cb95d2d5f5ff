import type { packsRoutes } from '../../contract/families/packs';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import type { PacksCtx } from './context';
import { exportPackPage } from './export';
import { getImportStatus, startImport } from './import-pack';

/** One handler per packs route; each is a thin call into the operation's module. */
export function createPacksHandlers(c: PacksCtx): Handlers<typeof packsRoutes> {
  return {
    'packs.export': (input, ctx) => exportPackPage(c.memory, c.clock, refOf(ctx), input),
    'packs.import': (input, ctx) => startImport(c, refOf(ctx), input, ctx.actor),
    'packs.importStatus': (input, ctx) => getImportStatus(c.imports, refOf(ctx), input),
  };
}
