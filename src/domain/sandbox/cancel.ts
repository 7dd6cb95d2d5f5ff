import { LoreError, invalidState } from '../../contract/errors';
import type { ScopeRef } from '../../store/scope';
import { loadSandboxRun, sandboxStores, type SandboxCtx } from './context';
import { waitForEnd } from './execute';
import { isTerminal, type RunDoc } from '../../model/sandbox/records';
import { toRunWire } from './views';

/** How long cancel waits for the process tree to be gone before answering. */
const CANCEL_WAIT_MS = 10_000;

const alreadyEnded = (run: RunDoc) =>
  invalidState(`sandbox run '${run.run_id}' has already ended (${run.status}); only a queued or running run can be cancelled`, run.status, {
    run_id: run.run_id,
  });

/**
 * Cancels the run's workflow; its activity kills the whole process tree (Temporal delivers the
 * cancellation with the next heartbeat, within about a second) and records `cancelled`.
 */
export async function cancelRun(c: SandboxCtx, ref: ScopeRef, runId: string, reason: string | undefined) {
  const { runs } = sandboxStores(c.db, ref);
  const run = await loadSandboxRun(runs, runId);
  if (isTerminal(run.status)) throw alreadyEnded(run);
  const now = () => c.clock.now().toISOString();
  const flagged = await runs.requestCancel(runId, reason ?? null, now());
  if (!flagged) throw alreadyEnded(await loadSandboxRun(runs, runId));
  try {
    await c.engine.cancel(run.workflow_id);
  } catch (err) {
    if (!(err instanceof LoreError && err.code === 'not_found')) throw err;
    // The workflow is not running: it never started, or it ended just now.
    const current = await loadSandboxRun(runs, runId);
    if (isTerminal(current.status)) throw alreadyEnded(current);
    await runs.finish(runId, { status: 'cancelled', reason: 'cancelled; its workflow was not running', finished_at: now(), updated_at: now() });
  }
  const ended = await waitForEnd(c, runs, flagged, CANCEL_WAIT_MS);
  return {
    run: toRunWire(ended, c.uiLink),
    ...(isTerminal(ended.status) ? {} : { message: `cancellation requested; the run is still ${ended.status} and will end shortly` }),
  };
}
