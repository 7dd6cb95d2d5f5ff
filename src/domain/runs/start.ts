import type { Engine, StartRequest } from '../../engine/engine';

/** How a family starts one of its workflow-backed runs (automation run, playbook run, sandbox run). */
export interface RunStart<R> {
  /**
   * Stores the run record (queued, or open). `created: false` when the run_id exists already and
   * the request is a repeat of it: that run is answered and nothing is started.
   */
  record: () => Promise<{ run: R; created: boolean }>;
  /** The workflow that runs a newly recorded run. */
  workflow: (run: R) => StartRequest;
  /** Ends the record of a run the engine did not take, with `reason`. */
  compensate: (run: R, reason: string) => Promise<void>;
}

/**
 * Every workflow-backed run starts here: record → start → compensation. The record is stored
 * before the workflow starts, so runs/get answers as soon as the start has; when the engine
 * refuses the start, the record is ended with the reason (and the error rethrown), so no run stays
 * queued that nothing will ever pick up. A start that is lost between the two (the process dies)
 * is caught by the reads' reconciliation (./reconcile.ts, NEVER_STARTED).
 */
export async function startWorkflowRun<R>(engine: Engine, how: RunStart<R>): Promise<{ run: R; created: boolean }> {
  const recorded = await how.record();
  if (!recorded.created) return recorded;
  try {
    await engine.start(how.workflow(recorded.run));
  } catch (err) {
    await how.compensate(recorded.run, `the run could not be handed to the workflow engine: ${(err as Error).message}`);
    throw err;
  }
  return recorded;
}
