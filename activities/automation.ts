import type { ActivityDeps } from './deps';

/** Activities of the automation family. */
export function createAutomationActivities(_deps: ActivityDeps) {
  return {};
}
