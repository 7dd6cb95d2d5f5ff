import type { Log } from '../../log';
import type { Database } from '../../store/database';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import type { LifecycleServices } from '../lifecycle/module';
import type { MemoryServices } from '../memory/module';
import type { DistillDeps } from './distill';
import type { Persist } from './persist';
import type { ScopeLearning } from './scope-state';
import type { ScopeView } from './scopes';
import type { GoalVectors } from './vectors';

/** The settings the learning family reads (docs/configuration.md), handed in by the app (src/app/settings.ts). */
export interface LearningSettings {
  /** LORE_BUILD_WAIT: how long a task start or a write waits for its scope's learned state to load. */
  readonly buildWaitMs: number;
  /** Which encoder memory was configured with, and whether on purpose (then an unusable one is an error). */
  readonly embeddings: { readonly provider: string; readonly explicit: boolean };
}

/** What the learning family's operations use (built once by createLearningRuntime, runtime.ts). */
export interface LearningCtx {
  memory: MemoryServices;
  lifecycle: LifecycleServices;
  db: Database;
  clock: Clock;
  log: Log;
  persist: Persist;
  vectors: GoalVectors | null;
  /** The scope's whole learning state, after catching up with other processes' writes: for routes that change it or list it. */
  scope(ref: ScopeRef): Promise<ScopeLearning>;
  /**
   * The scope's learning state for a task start: whole, or, while the scope is still loading after
   * a start and does not finish within LORE_BUILD_WAIT, as far as it has loaded.
   */
  scopeForReading(ref: ScopeRef): Promise<ScopeView>;
  distillDeps: DistillDeps;
}
