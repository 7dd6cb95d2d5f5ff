import type { ActivityDeps } from './deps';
import { createPacksActivities } from './packs';
import { createSystemActivities } from './system';
import { createLifecycleActivities } from './lifecycle';
import { createSandboxActivities } from './sandbox';
import { createReplayActivities } from './replay';
import { createAutomationActivities } from './automation';

/**
 * All activities, bound to the worker's dependencies. Workflows reference them by name through
 * proxyActivities typed with the family's `ReturnType<typeof createXActivities>`.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createSystemActivities(deps),
    ...createPacksActivities(deps),
    ...createLifecycleActivities(deps),
    ...createSandboxActivities(deps),
    ...createReplayActivities(deps),
    ...createAutomationActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
