import type { Engine, WorkflowDescription } from '../../engine/engine';

/** How long a run may stay open before a read asks the engine whether its workflow still exists. */
export const RECONCILE_GRACE_MS = 15_000;

/** The reason a run gets when its workflow was never started. */
export const NEVER_STARTED = 'the run was never started: Lore stopped before handing it to the workflow engine';

/** How a family's run record looks to reconcile(). */
export interface OpenRun<R> {
  run: R;
  /** False once the record shows an end: nothing to check. */
  open: boolean;
  /** The workflow that ends the run (none yet: nothing to check). */
  workflowId: string | null | undefined;
  /** When the run was handed to the engine (wall clock ms): the grace counts from here. */
  sinceMs: number;
  /** The engine could not be asked (the read says what the store says; the next read tries again). */
  unreachable?: (err: unknown) => void;
  /**
   * Records the end the workflow did not record: `wf` is null when the workflow does not exist,
   * else closed in some way. Returns the record as it now is.
   */
  settle: (wf: WorkflowDescription | null) => Promise<R>;
}

/**
 * A read of an open workflow-backed run (automation, playbook, sandbox) double-checks it against
 * the engine, so no run stays open when nothing will ever end it: its workflow never started, was
 * terminated by an operator, or closed without recording the outcome. Normal endings are written
 * by the workflow itself; this only catches what it cannot. Within the grace after the start the
 * engine is not asked (the start may still be on its way).
 */
export async function reconcileRun<R>(engine: Engine, r: OpenRun<R>): Promise<R> {
  if (!r.open || !r.workflowId || Date.now() - r.sinceMs < RECONCILE_GRACE_MS) return r.run;
  let wf: WorkflowDescription | null;
  try {
    wf = await engine.describe(r.workflowId);
  } catch (err) {
    r.unreachable?.(err);
    return r.run;
  }
  if (wf && wf.state === 'running') return r.run;
  return r.settle(wf);
}
