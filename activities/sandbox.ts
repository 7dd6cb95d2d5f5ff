import type { ActivityDeps } from './deps';

/** Activities of the sandbox family. */
export function createSandboxActivities(_deps: ActivityDeps) {
  return {};
}
