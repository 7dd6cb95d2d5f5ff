import type { ScopeRef } from '../../store/scope';
import { loadRun, nowIso, storesFor, type ReplayCtx } from './context';
import type { LearningFeed } from './learning-feed';
import type { RunDoc } from './types';
import { resignalLostReport } from './host-steps';
import { pendingStepOf, runView } from './views';

/** How long a playbook run may stay open before a read asks the engine whether its workflow still exists. */
const GRACE_MS = 15_000;

/**
 * runs/get. A playbook run is ended by its workflow; if that workflow is gone or closed without
 * recording the end (terminated by an operator, never started), the read records it `failure`
 * with the reason, so no run stays open forever. A run whose learning feed is pending is fed now.
 */
export async function getRun(c: ReplayCtx, feed: LearningFeed, ref: ScopeRef, runId: string, includeSteps: boolean) {
  const { runs, steps } = storesFor(c.db, ref);
  let run = await reconcile(c, ref, await loadRun(runs, runId));
  if (run.learning?.state === 'pending') {
    await feed.feedRun(ref, run._id).catch(() => null);
    run = (await runs.getByKey(run._id)) ?? run;
  }
  const all = includeSteps || run.state === 'open' ? await steps.list(run._id) : null;
  if (all && run.state === 'open') await resignalLostReport(c, ref, run, all);
  return { run: includeSteps ? runView(run, all!) : runView(run, null, await steps.count(run._id), all ? pendingStepOf(run, all) : null) };
}

export async function reconcile(c: ReplayCtx, ref: ScopeRef, run: RunDoc): Promise<RunDoc> {
  if (run.state !== 'open' || !run.playbook?.workflow_id || Date.now() - run.created_wall_ms < GRACE_MS) return run;
  let wf;
  try {
    wf = await c.engine.describe(run.playbook.workflow_id);
  } catch {
    return run; // the engine is unreachable: say what the store says; the next read tries again
  }
  if (wf && wf.state === 'running') return run;
  const { runs, steps } = storesFor(c.db, ref);
  const at = nowIso(c);
  const why = !wf ? 'its workflow was never started (Lore stopped before handing it to the engine)' : `its workflow ${wf.state} without recording the end`;
  await steps.settle(run._id, ['running'], { status: 'failed', error: why, ended_at: at, updated_at: at });
  await steps.settle(run._id, ['pending'], { status: 'skipped', error: 'the run ended while this step waited for the host', ended_at: at, updated_at: at });
  await steps.settle(run._id, ['queued'], { status: 'skipped', error: 'the run ended without reaching this step', updated_at: at });
  const ended = await runs.end(run._id, {
    status: wf?.state === 'cancelled' ? 'cancelled' : 'failure',
    summary: `failure: ${why}`,
    ended_at: at,
    updated_at: at,
    learning: { state: 'not_eligible', workflows_updated: [], reason: why, at },
  });
  return ended ?? (await runs.getByKey(run._id)) ?? run;
}
