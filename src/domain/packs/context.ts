import type { Engine } from '../../engine/engine';
import type { Log } from '../../log';
import type { PackImportStore } from '../../store/packs/imports';
import type { Clock } from '../../model/clock';
import type { MemoryServices } from '../memory/context';

/** What the packs routes use: memory's nodes to export, and the import records the pack_import workflow keeps current. */
export interface PacksCtx {
  memory: MemoryServices;
  engine: Engine;
  clock: Clock;
  imports: PackImportStore;
  log: Log;
}
