/** The automation workflow's activity stubs, each with the retry policy its work calls for. */
import { proxyActivities } from '@temporalio/workflow';
import type { AutomationActivities } from '../../activities/automation';

// Mirror writes are idempotent (seq-guarded): retry through MongoDB outages for as long as it takes.
export const mirror = proxyActivities<AutomationActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '10 seconds' },
});
// Recording a replay run: idempotent writes; a few attempts, then the run says recording failed.
export const recorder = proxyActivities<AutomationActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
});
// An artifact check only reads; a few attempts ride out a hiccup, then the gate fails with the cause.
export const checks = proxyActivities<AutomationActivities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 5 },
});
