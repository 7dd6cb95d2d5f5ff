import type { FamilyDeps, FamilyModule } from '../family-module';
import { RunWaiter } from '../runs/wait';
import type { replayRoutes } from '../../contract/families/replay';
import type { LearningServices } from '../learning/module';
import type { MemoryServices } from '../memory/module';
import type { SandboxServices } from '../sandbox/module';
import type { ReplayCtx, ReplaySettings } from './context';
import { createReplayHandlers } from './handlers';
import { LearningFeed } from './learning-feed';
import { createReplayServices, type ReplayServices } from './services';

export type { ReplayServices } from './services';
export type { PlaybookRunInput, PlaybookRunResult, PlaybookStepResult } from './workflow-types';
export { PLAYBOOK_RUN_WORKFLOW, playbookRunWorkflowId } from './workflow-types';

/**
 * The replay family (docs/replay.md): recorded runs, versioned playbooks with a status state
 * machine, and playbook runs as Temporal workflows whose command steps are child sandbox
 * workflows. start() begins draining the learning feed (successful runs of active playbooks →
 * workflow learning). Command steps run through the sandbox family's record code and workflow
 * (src/domain/sandbox/execute.ts createRunRecord, workflows/sandbox.ts), not through its
 * services, because they run inside our workflow.
 */
export function createReplayModule(
  deps: FamilyDeps,
  upstream: { memory: MemoryServices; sandbox: SandboxServices; learning: LearningServices },
  settings: ReplaySettings,
): FamilyModule<typeof replayRoutes, ReplayServices> {
  const log = deps.log.child('replay');
  const c: ReplayCtx = {
    config: settings,
    db: deps.db,
    engine: deps.engine,
    clock: deps.clock,
    log,
    learning: upstream.learning,
    waiter: new RunWaiter(log),
    uiLink: deps.uiLink,
  };
  const feed = new LearningFeed({ db: deps.db, clock: deps.clock, log: c.log, learning: upstream.learning });
  return {
    handlers: createReplayHandlers(c, feed),
    services: createReplayServices(c, feed),
    async start() {
      feed.start();
    },
    async stop() {
      await feed.stop();
    },
  };
}
