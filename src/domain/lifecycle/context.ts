import type { Engine } from '../../engine/engine';
import type { Log } from '../../log';
import type { ColdStore } from '../../store/lifecycle/cold-store';
import type { ScopeStates } from '../../store/lifecycle/scope-state';
import type { Clock } from '../../model/clock';
import type { MemoryServices } from '../memory/module';
import type { FeedbackRuns } from './feedback-runs';
import type { ForgettingView } from './forgetting-view';

/** The settings the lifecycle family reads (docs/configuration.md), handed in by the app (src/app/settings.ts). */
export interface LifecycleSettings {
  /** LORE_BUILD_WAIT: how long a summary waits for the forgetting view's start-up build. */
  readonly buildWaitMs: number;
  /** LORE_INDEX_SNAPSHOTS: the forgetting view's snapshots, under `<dataDir>/index/forgetting/`. */
  readonly indexSnapshots: boolean;
  readonly dataDir: string;
}

/** What the lifecycle family's operations use (built once in module.ts). */
export interface LifecycleCtx {
  memory: MemoryServices;
  cold: ColdStore;
  states: ScopeStates;
  view: ForgettingView;
  /** Re-decides the nodes feedback touched, in the background (feedback-runs.ts). */
  feedback: FeedbackRuns;
  engine: Engine;
  clock: Clock;
  log: Log;
  /** How long a summary waits for the view's start-up build before answering without it (LORE_BUILD_WAIT). */
  buildWaitMs: number;
}
