import type { FamilyDeps, FamilyModule } from '../family-module';
import type { memoryRoutes } from '../../contract/families/memory';
import { createMemoryHandlers } from './handlers';
import type { MemorySettings, MemoryServices } from './context';
import { createMemoryRuntime } from './runtime';

export type { MemoryServices } from './context';

/**
 * The memory core. start() loads the in-process recall index from its snapshot (or builds it from
 * MongoDB when there is none) before the API listens, and catches up with the store after the
 * snapshot in the background; stop() flushes pending access statistics, stops the embedding queue
 * and writes a last snapshot.
 */
export function createMemoryModule(deps: FamilyDeps, _upstream: Record<string, never>, settings: MemorySettings): FamilyModule<typeof memoryRoutes, MemoryServices> {
  const runtime = createMemoryRuntime({ settings, db: deps.db, clock: deps.clock, log: deps.log });
  return {
    handlers: createMemoryHandlers(runtime.services),
    services: runtime.services,
    start: () => runtime.start(),
    stop: () => runtime.stop(),
    // Loaded before the API listens; `building` while it catches up after a snapshot (recall waits for that).
    readiness: () => runtime.readiness(),
  };
}
