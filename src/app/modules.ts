import type { FamilyDeps } from '../domain/family-module';
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
import { temporalUiLink } from '../domain/temporal-ui';
import type { AppDeps } from './deps';
import { familySettings } from './settings';

/** What every family's module gets from the app's dependencies (its settings come separately). */
export const familyDeps = (deps: AppDeps): FamilyDeps => ({ db: deps.db, engine: deps.engine, clock: deps.clock, log: deps.log, uiLink: temporalUiLink(deps.runtime.temporal) });

/**
 * Builds every family module in dependency order (a family gets the services of the families it
 * builds on, and the few settings it reads). Both the API process and tests assemble through here.
 */
export function createModules(deps: AppDeps) {
  const family = familyDeps(deps);
  const settings = familySettings(deps.config);
  const memory = createMemoryModule(family, {}, settings.memory);
  const sessions = createSessionsModule(family, { memory: memory.services });
  const handoff = createHandoffModule(family, { memory: memory.services });
  const packs = createPacksModule(family, { memory: memory.services });
  const delegation = createDelegationModule(family, { memory: memory.services });
  // Lifecycle before learning: planning surfaces show the forgetting summary and offer archived
  // workflows as rehydration candidates.
  const lifecycle = createLifecycleModule(family, { memory: memory.services }, settings.lifecycle);
  const learning = createLearningModule(family, { memory: memory.services, lifecycle: lifecycle.services }, settings.learning);
  const sandbox = createSandboxModule(family, {}, settings.sandbox);
  const replay = createReplayModule(family, { memory: memory.services, sandbox: sandbox.services, learning: learning.services }, settings.replay);
  const automation = createAutomationModule(family, { replay: replay.services, sandbox: sandbox.services });
  return { memory, sessions, handoff, packs, delegation, lifecycle, learning, sandbox, replay, automation };
}

export type Modules = ReturnType<typeof createModules>;
