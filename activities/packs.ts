import type { ActivityDeps } from './deps';

/** Activities of the packs family. */
export function createPacksActivities(_deps: ActivityDeps) {
  return {};
}
