import type { AppDeps } from '../app-deps';
import type { FamilyModule } from '../family-module';
import type { memoryRoutes } from '../../contract/families/memory';
import { createMemoryHandlers } from './handlers';
import { createMemoryRuntime, type MemoryServices } from './services';

export type { MemoryServices } from './services';

/**
 * The memory core. start() builds the in-process recall index from MongoDB before the API
 * listens; stop() flushes pending access statistics and stops the embedding queue.
 */
export function createMemoryModule(deps: AppDeps, _upstream: Record<string, never>): FamilyModule<typeof memoryRoutes, MemoryServices> {
  const runtime = createMemoryRuntime({ config: deps.config, db: deps.db, clock: deps.clock, log: deps.log });
  return {
    handlers: createMemoryHandlers(runtime.services),
    services: runtime.services,
    start: () => runtime.start(),
    stop: () => runtime.stop(),
    // Built before the API listens (start() returns when it is), so /health always finds it ready.
    readiness: () => ({ status: 'ready', detail: `${runtime.services.index.size} nodes` }),
  };
}
