import type { FamilyDeps, FamilyModule } from '../family-module';
import type { learningRoutes } from '../../contract/families/learning';
import type { LifecycleServices } from '../lifecycle/module';
import type { MemoryServices } from '../memory/module';
import { createLearningHandlers } from './handlers';
import type { LearningSettings } from './context';
import { createLearningRuntime } from './runtime';
import type { LearningServices } from './services';

export type { LearningServices } from './services';
export type { ReplayEpisode } from './replay';

/**
 * The learning family (docs/learning.md): workflows, patterns, policy memory and rules learned
 * from execution evidence, and the planning surfaces that apply them. start() subscribes to
 * memory's write path, starts following other processes' writes, and loads every scope that has
 * learned something in the background (a scope asked for first loads on that request).
 */
export function createLearningModule(
  deps: FamilyDeps,
  upstream: { memory: MemoryServices; lifecycle: LifecycleServices },
  settings: LearningSettings,
): FamilyModule<typeof learningRoutes, LearningServices> {
  const runtime = createLearningRuntime({ settings, db: deps.db, clock: deps.clock, log: deps.log, memory: upstream.memory, lifecycle: upstream.lifecycle });
  return {
    handlers: createLearningHandlers(runtime.ctx),
    services: runtime.services,
    start: () => runtime.start(),
    stop: () => runtime.stop(),
    readiness: () => runtime.readiness(),
  };
}
