import type { ActivityDeps } from './deps';

/** Activities of the lifecycle family. */
export function createLifecycleActivities(_deps: ActivityDeps) {
  return {};
}
