import type { RouteInput } from '../../contract';
import { LoreError, invalidState, notFound } from '../../contract/errors';
import type { automationRoutes } from '../../contract/families/automation';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { loadAutomationRun, pollUntil, automationStores, type AutomationCtx } from './context';
import { isTerminalRun } from '../../model/automation/graph';
import type { RunDoc } from '../../model/automation/records';
import { toRunWire } from './views';
import { reconcileAutomationRun } from './run-reads';
import { RESUME_SIGNAL, type ResumeSignal } from './run-types';

type Routes = typeof automationRoutes;

/** How long cancel waits for the run (and its sandbox processes) to stop before answering. */
const CANCEL_WAIT_MS = 20_000;
/** How long resume waits for the workflow to take the approval before answering. */
const RESUME_WAIT_MS = 10_000;

const ended = (run: RunDoc) =>
  invalidState(`automation run '${run.run_id}' has already ended (${run.status}); only a queued, running or paused run can be cancelled`, run.status, { run_id: run.run_id });

/**
 * Cancels the run's workflow. Temporal cancels its scope: approval waits end, artifact checks stop,
 * and playbook child workflows are cancelled and waited for (their sandbox activities kill the
 * process trees), then the workflow records the run `cancelled`.
 */
export async function cancelRun(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.runs.cancel']>) {
  const { runs, nodes } = automationStores(c.db, ref);
  const run = await loadAutomationRun(runs, input.run_id);
  if (isTerminalRun(run.status)) throw ended(run);
  const now = () => c.clock.now().toISOString();
  const flagged = await runs.requestCancel(run.run_id, input.reason ?? null, now());
  if (!flagged) throw ended(await loadAutomationRun(runs, run.run_id));
  try {
    await c.engine.cancel(run.workflow_id);
  } catch (err) {
    if (!(err instanceof LoreError && err.code === 'not_found')) throw err;
    // The workflow is not running: it never started, or it ended just now.
    const current = await loadAutomationRun(runs, run.run_id);
    if (isTerminalRun(current.status)) throw ended(current);
    const at = now();
    if (await runs.settle(run.run_id, { status: 'cancelled', reason: 'cancelled; its workflow was not running', paused_nodes: [], finished_at: at, updated_at: at })) {
      await nodes.settleOpen(run._id, at, 'the run was cancelled');
    }
  }
  const after = await pollUntil(
    () => loadAutomationRun(runs, run.run_id),
    (r) => isTerminalRun(r.status),
    CANCEL_WAIT_MS,
    150,
  );
  return {
    run: toRunWire(after, undefined, c.uiLink),
    ...(isTerminalRun(after.status) ? {} : { message: `cancellation requested; the run is still ${after.status} and will end once in-flight work has stopped` }),
  };
}

/**
 * Decides approval nodes of a paused run (approve, the default, or reject): those named (node_id
 * or approval_key), else every one the run waits at. The signal carries the decision, the reason,
 * the actor and the time; the workflow records them on the node and in the run's resumes. A
 * rejection fails the node (approval_rejected), which follows stop_on_failure.
 */
export async function resumeRun(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.runs.resume']>, actor: string) {
  const { runs, nodes } = automationStores(c.db, ref);
  const run = await reconcileAutomationRun(c, runs, await loadAutomationRun(runs, input.run_id));
  if (run.status !== 'paused') {
    throw invalidState(`automation run '${run.run_id}' is ${run.status}, not paused; only a paused run can be resumed`, run.status, { run_id: run.run_id });
  }
  const all = await nodes.list(run._id);
  let targets = all.filter((n) => n.state === 'paused');
  if (input.node_id !== undefined || input.approval_key !== undefined) {
    const named = all.filter(
      (n) => (input.node_id === undefined || n.node_id === input.node_id) && (input.approval_key === undefined || n.approval?.approval_key === input.approval_key),
    );
    if (named.length === 0) {
      throw notFound('approval node', input.node_id ?? input.approval_key ?? '', ref.scope, { run_id: run.run_id, node_id: input.node_id, approval_key: input.approval_key });
    }
    targets = named.filter((n) => n.state === 'paused');
    if (targets.length === 0) {
      throw invalidState(`node '${named[0]!.node_id}' of run '${run.run_id}' is ${named[0]!.state}, not paused`, named[0]!.state, {
        run_id: run.run_id,
        node_id: named[0]!.node_id,
      });
    }
  }
  if (targets.length === 0) throw invalidState(`automation run '${run.run_id}' has no paused approval node`, run.status, { run_id: run.run_id });

  const signal: ResumeSignal = {
    resume_id: uuidv7(),
    node_ids: targets.map((n) => n.node_id),
    decision: input.decision,
    reason: input.reason ?? null,
    actor,
    at: c.clock.now().toISOString(),
  };
  try {
    await c.engine.signal(run.workflow_id, RESUME_SIGNAL, signal);
  } catch (err) {
    if (!(err instanceof LoreError && err.code === 'not_found')) throw err;
    const current = await reconcileAutomationRun(c, runs, { ...run, enqueued_wall_ms: 0 });
    throw invalidState(`automation run '${run.run_id}' is no longer running (${current.status})`, current.status, { run_id: run.run_id });
  }
  // The run record is written after its nodes: once it no longer lists them, both show the resume.
  const ids = new Set(signal.node_ids);
  const after = await pollUntil(
    () => loadAutomationRun(runs, run.run_id),
    (r) => !r.paused_nodes.some((id) => ids.has(id)),
    RESUME_WAIT_MS,
    100,
  );
  const still = after.paused_nodes.filter((id) => ids.has(id));
  return {
    run: toRunWire(after, undefined, c.uiLink),
    resumed_node_ids: signal.node_ids,
    decision: input.decision,
    ...(still.length > 0 ? { message: `resume sent; the run has not recorded it yet for ${still.join(', ')} (poll runs/get)` } : {}),
  };
}
