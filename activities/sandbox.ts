import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { SandboxRunInput } from '../src/domain/sandbox/execute';
import { startSandboxHost, type SandboxHost } from '../src/domain/sandbox/host';
import { runSandboxCommand, settleSandboxRun, type SandboxRunSummary, type SandboxSettleInput } from '../src/domain/sandbox/run-command';
import type { ActivityDeps } from './deps';

export type { SandboxRunSummary, SandboxSettleInput };

/** Heartbeats for the activity's whole life; cancellation is delivered with the heartbeat response. */
const HEARTBEAT_MS = 500;

/**
 * Activities of the sandbox family: adapters over src/domain/sandbox/run-command.ts (the run's
 * steps from queued to its end). This file wires them to the engine: the worker's sandbox host,
 * heartbeats and cancellation.
 */
export function createSandboxActivities(deps: ActivityDeps) {
  const { config, db, log } = deps;
  // Probe isolation and publish it for the API as soon as the worker starts (not on the first run).
  let host: Promise<SandboxHost> | null = null;
  const hostReady = () =>
    (host ??= startSandboxHost({ config, db, log }).catch((err) => {
      host = null;
      throw err;
    }));
  void hostReady().catch((err) => log.error({ err }, 'sandbox: isolation probe or report failed'));

  return {
    /**
     * Runs one sandbox command to its end. Not retried (maximumAttempts 1, see workflows/sandbox.ts):
     * a command that may have had side effects is never started twice. Heartbeats every 500 ms;
     * cancellation (or worker shutdown) kills the whole process tree.
     */
    async sandboxRunCommand(input: SandboxRunInput): Promise<SandboxRunSummary> {
      const ctx = Context.current();
      // A heartbeat for the activity's whole life, not only while the command runs: on a loaded
      // machine the store round trips before and after the command can outlast the heartbeat
      // timeout, and a live run must never be settled as "worker lost".
      const beat: Record<string, unknown> = { phase: 'picked_up' };
      ctx.heartbeat(beat);
      const keepAlive = setInterval(() => ctx.heartbeat({ ...beat }), HEARTBEAT_MS);
      try {
        const { summary, cancelled } = await runSandboxCommand(deps, input, {
          host: hostReady,
          stop: ctx.cancellationSignal,
          isShutdown: () => ctx.cancellationDetails?.workerShutdown === true,
          beat,
        });
        // Report a cancelled activity as cancelled, so the workflow (and the Temporal UI) shows it.
        if (cancelled) throw new CancelledFailure('sandbox run cancelled');
        return summary;
      } finally {
        clearInterval(keepAlive);
      }
    },

    /**
     * Records how a run ended when its command activity could not (cancelled before it started,
     * worker lost, activity failure). Idempotent: a run that already ended is left as it is.
     */
    async sandboxSettleRun(input: SandboxSettleInput): Promise<{ state: 'settled' | 'not_started'; summary: SandboxRunSummary }> {
      return settleSandboxRun(deps, input);
    },
  };
}

export type SandboxActivities = ReturnType<typeof createSandboxActivities>;
