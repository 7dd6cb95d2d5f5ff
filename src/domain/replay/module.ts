import type { AppDeps } from '../../app/deps';
import type { FamilyModule } from '../../app/module';
import type { replayRoutes } from '../../contract/families/replay';
import type { MemoryServices } from '../memory/module';
import type { SandboxServices } from '../sandbox/module';
import type { LearningServices } from '../learning/module';

/** What the replay family offers other families. */
export type ReplayServices = Record<string, never>;

export function createReplayModule(_deps: AppDeps, _upstream: { memory: MemoryServices; sandbox: SandboxServices; learning: LearningServices }): FamilyModule<typeof replayRoutes, ReplayServices> {
  return { handlers: {}, services: {} };
}
