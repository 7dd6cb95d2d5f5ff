import type { Routes } from '../contract';
import type { Handlers } from '../contract/handlers';
import type { AppDeps } from './deps';
import { createSystemHandlers } from './health';
import type { Modules } from './modules';

/** Every route's handler. A family added to the contract without its handlers fails to compile here. */
export function createHandlers(deps: AppDeps, m: Modules): Handlers<Routes> {
  return {
    ...createSystemHandlers(
      deps,
      () => m.memory.services.encoder().status,
      () => ({ recall: m.memory.readiness!(), forgetting: m.lifecycle.readiness!(), learning: m.learning.readiness!() }),
    ),
    ...m.memory.handlers,
    ...m.sessions.handlers,
    ...m.handoff.handlers,
    ...m.packs.handlers,
    ...m.delegation.handlers,
    ...m.learning.handlers,
    ...m.lifecycle.handlers,
    ...m.sandbox.handlers,
    ...m.replay.handlers,
    ...m.automation.handlers,
  };
}
