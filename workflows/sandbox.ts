/**
 * Workflows of the sandbox family (deterministic code only).
 *
 * One workflow per sandbox run. Its activity runs the command and records the outcome; this code
 * decides what happens when the activity cannot: cancelled before it started, worker lost mid-run,
 * or the activity failed. Retry semantics (docs/sandbox.md): a command that may have started is
 * never started again; a command whose activity was lost before it started is tried again, up to
 * MAX_START_ATTEMPTS times. Behaviour changes for running histories go behind patched().
 */
import { ActivityCancellationType, ActivityFailure, CancellationScope, TimeoutFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { SandboxActivities, SandboxRunSummary } from '../activities/sandbox';
import type { SandboxRunInput } from '../src/domain/sandbox/execute';

const MAX_START_ATTEMPTS = 3;
const WORKER_LOST_REASON = 'worker lost during the run (its heartbeat stopped); the command was killed with it and was not re-run';

function timeoutOf(err: unknown): string | null {
  if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure) return String(err.cause.timeoutType);
  return null;
}

export async function sandboxRunWorkflow(input: SandboxRunInput): Promise<SandboxRunSummary> {
  const command = proxyActivities<SandboxActivities>({
    // The runner's own wall limit ends the command first; this only bounds a stuck activity.
    startToCloseTimeout: input.wall_ms + 120_000,
    // A killed worker stops heartbeating: after this the run is settled as lost.
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 1 },
    // Wait for the activity to kill the tree and record `cancelled` before the workflow moves on.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const settle = proxyActivities<SandboxActivities>({
    startToCloseTimeout: '30 seconds',
    // Settling is idempotent: retry through a MongoDB hiccup until the record is right.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 50 },
  });
  const ref = { tenant_id: input.tenant_id, scope: input.scope, run_id: input.run_id };

  for (let attempt = 1; ; attempt++) {
    try {
      return await command.sandboxRunCommand(input);
    } catch (err) {
      if (isCancellation(err)) {
        await CancellationScope.nonCancellable(() => settle.sandboxSettleRun({ ...ref, status: 'cancelled', reason: 'cancelled before the command started' }));
        throw err;
      }
      const timeout = timeoutOf(err);
      const lost = timeout === 'HEARTBEAT';
      const reason = lost
        ? WORKER_LOST_REASON
        : timeout !== null
          ? 'the sandbox activity ran past its time limit; the run was abandoned'
          : `the sandbox activity failed: ${(err as Error).message}`;
      const r = await settle.sandboxSettleRun({ ...ref, status: 'failed', reason, lost });
      if (r.state === 'not_started' && attempt < MAX_START_ATTEMPTS) continue;
      if (r.state === 'not_started') {
        return (await settle.sandboxSettleRun({ ...ref, status: 'failed', reason: `${reason} (gave up after ${attempt} attempts to start it)` })).summary;
      }
      return r.summary;
    }
  }
}
