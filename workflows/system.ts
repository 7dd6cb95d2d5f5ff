import { proxyActivities } from '@temporalio/workflow';
import type { createSystemActivities } from '../activities/system';

const { probeStore } = proxyActivities<ReturnType<typeof createSystemActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 3, initialInterval: '200 ms' },
});

/** start → activity (MongoDB write + read) → result: the engine round trip, for tests and benchmarks. */
export async function roundTripWorkflow(probeId: string): Promise<{ probe_id: string; stored_at: string }> {
  return probeStore(probeId);
}
