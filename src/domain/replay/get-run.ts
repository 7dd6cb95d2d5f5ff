import type { ScopeRef } from '../../store/scope';
import { loadReplayRun, nowIso, replayStores, type ReplayCtx } from './context';
import type { LearningFeed } from './learning-feed';
import { versionOf, type Until, type WaitSource } from '../runs/wait';
import { readWithWait, reconcileRun, scopedWaitSource } from '../runs/index';
import { resignalLostReport } from './host-steps';
import type { RunDoc, StepDoc } from '../../model/replay/types';
import { pendingStepOf, runView } from './views';

type GetInput = { run_id: string; include_steps: boolean; wait_ms?: number; until?: string | undefined };

interface RunWithSteps {
  run: RunDoc;
  steps: StepDoc[];
}

/**
 * Whether a run satisfies `until` (docs/replay.md, "Waiting for a run"): a playbook run is queued
 * until its workflow starts a step; it is paused while a step waits for the host (pending), done
 * once ended. A recorded run is never queued.
 */
export function runHolds(until: Until, r: RunWithSteps): boolean {
  if ('changedFrom' in until) return versionOf(r.run, r.steps) !== until.changedFrom;
  const ended = r.run.state === 'ended';
  if (until.condition === 'done') return ended;
  if (until.condition === 'paused_or_done') return ended || r.steps.some((s) => s.status === 'pending');
  return ended || r.run.source === 'recorded' || r.steps.some((s) => s.status !== 'queued');
}

function waitSource(c: ReplayCtx, ref: ScopeRef): WaitSource<RunWithSteps> {
  const { runs, steps } = replayStores(c.db, ref);
  return scopedWaitSource('replay', ref, async (ids) => {
    const found = await runs.getMany(ids);
    const all = found.length > 0 ? await steps.listMany(found.map((r) => r._id)) : [];
    return new Map(found.map((run) => [run.run_id, { run, steps: all.filter((s) => s.run_key === run._id) }]));
  });
}

/**
 * runs/get. A playbook run is ended by its workflow; if that workflow is gone or closed without
 * recording the end (terminated by an operator, never started), the read records it `failure`
 * with the reason, so no run stays open forever. A run whose learning feed is pending is fed now.
 * With wait_ms, the answer comes once `until` holds or at the deadline.
 */
export async function getReplayRun(c: ReplayCtx, feed: LearningFeed, ref: ScopeRef, input: GetInput, signal?: AbortSignal) {
  const { runs, steps } = replayStores(c.db, ref);
  const { doc: r, wait } = await readWithWait(
    c.waiter,
    input,
    {
      read: async (): Promise<RunWithSteps> => {
        const run = await reconcilePlaybookRun(c, ref, await loadReplayRun(runs, input.run_id));
        return { run, steps: await steps.list(run._id) };
      },
      idOf: (d) => d.run.run_id,
      holds: runHolds,
      source: () => waitSource(c, ref),
    },
    signal,
  );
  let run = r.run;
  if (run.learning?.state === 'pending') {
    await feed.feedRun(ref, run._id).catch(() => null);
    run = (await runs.getByKey(run._id)) ?? run;
  }
  if (run.state === 'open') await resignalLostReport(c, ref, run, r.steps);
  return {
    run: input.include_steps ? runView(run, r.steps, undefined, c.uiLink) : runView(run, null, r.steps.length, c.uiLink, pendingStepOf(run, r.steps)),
    version: versionOf(run, r.steps),
    ...(wait ? { wait } : {}),
  };
}

/**
 * A read of an open playbook run double-checks it against the engine (../runs/reconcile.ts): a
 * run whose workflow is gone or closed without recording the end is ended `failure` (or
 * `cancelled`), its open steps settled.
 */
export function reconcilePlaybookRun(c: ReplayCtx, ref: ScopeRef, run: RunDoc): Promise<RunDoc> {
  return reconcileRun(c.engine, {
    run,
    open: run.state === 'open',
    workflowId: run.playbook?.workflow_id,
    sinceMs: run.created_wall_ms,
    settle: async (wf) => {
      const { runs, steps } = replayStores(c.db, ref);
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
    },
  });
}
