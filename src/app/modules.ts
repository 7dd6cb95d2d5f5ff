import type { AppDeps } from '../domain/app-deps';
import { createMemoryModule } from '../domain/memory/module';
import { createSessionsModule } from '../domain/sessions/module';
import { createHandoffModule } from '../domain/handoff/module';
import { createPacksModule } from '../domain/packs/module';
import { createDelegationModule } from '../domain/delegation/module';
import { createLearningModule } from '../domain/learning/module';
import { createLifecycleModule } from '../domain/lifecycle/module';
import { createSandboxModule } from '../domain/sandbox/module';
import { createReplayModule } from '../domain/replay/module';
import { createAutomationModule } from '../domain/automation/module';

/**
 * Builds every family module in dependency order (a family gets the services of the families it
 * builds on). Both the API process and tests assemble through here.
 */
export function createModules(deps: AppDeps) {
  const memory = createMemoryModule(deps, {});
  const sessions = createSessionsModule(deps, { memory: memory.services });
  const handoff = createHandoffModule(deps, { memory: memory.services });
  const packs = createPacksModule(deps, { memory: memory.services });
  const delegation = createDelegationModule(deps, { memory: memory.services });
  // Lifecycle before learning: planning surfaces show the forgetting summary and offer archived
  // workflows as rehydration candidates.
  const lifecycle = createLifecycleModule(deps, { memory: memory.services });
  const learning = createLearningModule(deps, { memory: memory.services, lifecycle: lifecycle.services });
  const sandbox = createSandboxModule(deps, {});
  const replay = createReplayModule(deps, { memory: memory.services, sandbox: sandbox.services, learning: learning.services });
  const automation = createAutomationModule(deps, { replay: replay.services, sandbox: sandbox.services });
  return { memory, sessions, handoff, packs, delegation, lifecycle, learning, sandbox, replay, automation };
}

export type Modules = ReturnType<typeof createModules>;
