import type { ActivityDeps } from './deps';

/** Activities of the replay family. */
export function createReplayActivities(_deps: ActivityDeps) {
  return {};
}
