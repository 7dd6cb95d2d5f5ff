import type { SandboxRuns } from '../../store/sandbox/index';
import type { SandboxCtx } from './context';
import { isTerminal, type RunDoc } from '../../model/sandbox/records';

/** How long a run may stay open before a read asks the engine whether its workflow still exists. */
const GRACE_MS = 15_000;

export const NEVER_STARTED = 'the run was never started: Lore stopped before handing it to the workflow engine';

/**
 * A read of an open run double-checks it against the engine, so no run stays "queued" or
 * "running" when nothing will ever end it: its workflow is gone (never started, or terminated by
 * an operator) or closed without recording a result. Normal endings are recorded by the
 * workflow's activities; this only catches what they cannot.
 */
export async function reconcile(c: SandboxCtx, runs: SandboxRuns, run: RunDoc): Promise<RunDoc> {
  if (isTerminal(run.status) || Date.now() - run.enqueued_wall_ms < GRACE_MS) return run;
  let wf;
  try {
    wf = await c.engine.describe(run.workflow_id);
  } catch (err) {
    c.log.debug({ err, run_id: run.run_id }, 'sandbox reconcile: engine unreachable');
    return run; // say what the store says; the next read tries again
  }
  if (wf && wf.state === 'running') return run;
  const now = c.clock.now().toISOString();
  const ending: Pick<RunDoc, 'status' | 'reason'> = !wf
    ? { status: 'failed', reason: NEVER_STARTED }
    : wf.state === 'cancelled'
      ? { status: 'cancelled', reason: 'cancelled; the workflow ended before the command could record its outcome' }
      : { status: 'failed', reason: `the run's workflow ${wf.state === 'completed' ? 'completed' : `was ${wf.state}`} without recording a result (e.g. terminated by an operator)` };
  const settled = await runs.finish(run.run_id, { ...ending, finished_at: now, updated_at: now });
  return settled ?? (await runs.get(run.run_id)) ?? run;
}
