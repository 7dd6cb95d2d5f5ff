import type { SandboxRuns } from '../../store/sandbox/index';
import { NEVER_STARTED, reconcileRun } from '../runs/index';
import type { SandboxCtx } from './context';
import { isTerminal, type RunDoc } from '../../model/sandbox/records';

export { NEVER_STARTED };

/**
 * A read of an open run double-checks it against the engine (../runs/reconcile.ts), so no run
 * stays "queued" or "running" when nothing will ever end it. Normal endings are recorded by the
 * workflow's activities; this only catches what they cannot.
 */
export function reconcileSandboxRun(c: SandboxCtx, runs: SandboxRuns, run: RunDoc): Promise<RunDoc> {
  return reconcileRun(c.engine, {
    run,
    open: !isTerminal(run.status),
    workflowId: run.workflow_id,
    sinceMs: run.enqueued_wall_ms,
    unreachable: (err) => c.log.debug({ err, run_id: run.run_id }, 'sandbox reconcile: engine unreachable'),
    settle: async (wf) => {
      const now = c.clock.now().toISOString();
      const ending: Pick<RunDoc, 'status' | 'reason'> = !wf
        ? { status: 'failed', reason: NEVER_STARTED }
        : wf.state === 'cancelled'
          ? { status: 'cancelled', reason: 'cancelled; the workflow ended before the command could record its outcome' }
          : {
              status: 'failed',
              reason: `the run's workflow ${wf.state === 'completed' ? 'completed' : `was ${wf.state}`} without recording a result (e.g. terminated by an operator)`,
            };
      const settled = await runs.finish(run.run_id, { ...ending, finished_at: now, updated_at: now });
      return settled ?? (await runs.get(run.run_id)) ?? run;
    },
  });
}
