import type { RouteInput } from '../../contract';
import type { automationRoutes } from '../../contract/families/automation';
import type { AutomationRuns } from '../../store/automation/index';
import type { ScopeRef } from '../../store/scope';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import { loadRun, storesFor, type AutomationCtx } from './context';
import { isTerminalRun, type RunStatus } from '../../model/automation/graph';
import { parseUntil, versionOf, type Until, type WaitSource } from '../run-wait';
import { runKeyOfChild } from './playbook-node';
import type { NodeDoc, RunDoc } from '../../model/automation/records';
import { toRunWire } from './wire';

type Routes = typeof automationRoutes;

/** How long a run may stay open before a read asks the engine whether its workflow still exists. */
const GRACE_MS = 15_000;

export const NEVER_STARTED = 'the run was never started: Lore stopped before handing it to the workflow engine';

/**
 * A read of an open run double-checks it against the engine, so no run stays open when nothing
 * will ever end it (its workflow never started, or was terminated by an operator). Normal endings
 * are written by the workflow itself; this only catches what it cannot.
 */
export async function reconcile(c: AutomationCtx, runs: AutomationRuns, run: RunDoc): Promise<RunDoc> {
  if (isTerminalRun(run.status) || Date.now() - run.enqueued_wall_ms < GRACE_MS) return run;
  let wf;
  try {
    wf = await c.engine.describe(run.workflow_id);
  } catch (err) {
    c.log.debug({ err, run_id: run.run_id }, 'automation reconcile: engine unreachable');
    return run;
  }
  if (wf && wf.state === 'running') return run;
  const now = c.clock.now().toISOString();
  const ending: { status: RunStatus; reason: string } = !wf
    ? { status: 'failed', reason: NEVER_STARTED }
    : wf.state === 'cancelled'
      ? { status: 'cancelled', reason: 'cancelled; the workflow ended before it recorded the outcome' }
      : { status: 'failed', reason: `the run's workflow ${wf.state === 'completed' ? 'completed' : `was ${wf.state}`} without recording its outcome (e.g. terminated by an operator)` };
  const settled = await runs.settle(run.run_id, { ...ending, paused_nodes: [], finished_at: now, updated_at: now });
  if (settled) await storesFor(c.db, runs.ref).nodes.settleOpen(run._id, now, ending.reason);
  return settled ?? (await runs.get(run.run_id)) ?? run;
}

/** Whether a run record satisfies `until` (docs/automation.md, "Waiting for a run"). */
export function runHolds(until: Until, run: RunDoc): boolean {
  if ('changedFrom' in until) return versionOf(run) !== until.changedFrom;
  if (until.condition === 'not_queued') return run.status !== 'queued';
  if (until.condition === 'paused_or_done') return run.status === 'paused' || isTerminalRun(run.status);
  return isTerminalRun(run.status);
}

/** The scope's runs, read together by the waiters of runs/get. */
function waitSource(c: AutomationCtx, ref: ScopeRef): WaitSource<RunDoc> {
  const { runs } = storesFor(c.db, ref);
  return { key: `automation\0${ref.tenant_id}\0${ref.scope}`, read: async (ids) => new Map((await runs.getMany(ids)).map((r) => [r.run_id, r])) };
}

/**
 * runs/get: the run from the store; with wait_ms, once `until` holds or at the deadline, whichever
 * comes first (a run that is gone ends the wait too: the read then says not_found).
 */
export async function getRun(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.runs.get']>, signal?: AbortSignal) {
  const { runs, nodes } = storesFor(c.db, ref);
  let run = await reconcile(c, runs, await loadRun(runs, input.run_id));
  let wait: { until: string; met: boolean; waited_ms: number } | undefined;
  if (input.wait_ms > 0) {
    const name = input.until ?? 'done';
    const until = parseUntil(name);
    // Wall time, not the injected clock: waited_ms reports how long this request really waited.
    const t0 = Date.now();
    if (!runHolds(until, run)) {
      await c.waiter.until(waitSource(c, ref), run.run_id, (d) => d === undefined || runHolds(until, d), input.wait_ms, signal);
      run = await reconcile(c, runs, await loadRun(runs, input.run_id));
    }
    wait = { until: name, met: runHolds(until, run), waited_ms: Date.now() - t0 };
  }
  const all = input.include_nodes || !isTerminalRun(run.status) ? await nodes.list(run._id) : [];
  const waits = isTerminalRun(run.status) ? [] : await hostWaits(c, ref, all);
  const wire = toRunWire(run, input.include_nodes ? all : undefined, c.uiLink);
  return {
    run: {
      ...wire,
      waiting_for_host: waits,
      ...(wire.nodes ? { nodes: wire.nodes.map((n) => ({ ...n, host_step: waits.find((w) => w.node_id === n.node_id) ?? null })) } : {}),
    },
    version: versionOf(run),
    ...(wait ? { wait } : {}),
  };
}

/**
 * Which running playbook nodes wait for the host: their playbook run (a guided child) shows a
 * pending host step. Read from the replay family at read time; the run's own status stays
 * `running` (a host step is work in progress, not an approval).
 */
async function hostWaits(c: AutomationCtx, ref: ScopeRef, nodes: NodeDoc[]) {
  const out = [];
  for (const n of nodes) {
    if (n.kind !== 'playbook' || n.state !== 'running' || !c.playbooks?.hostWait) continue;
    const key = runKeyOfChild(n.child_workflow_id);
    const w = key ? await c.playbooks.hostWait(ref, key) : null;
    if (w) out.push({ node_id: n.node_id, ...w });
  }
  return out;
}

export async function listRuns(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.runs.list']>) {
  const before = input.cursor !== undefined ? decodeCursor(input.cursor, 'automations.runs.list') : undefined;
  const statuses = input.status === undefined ? undefined : Array.isArray(input.status) ? [...new Set(input.status)] : [input.status];
  const docs = await storesFor(c.db, ref).runs.list({
    ...(input.automation_id ? { automation_id: input.automation_id } : {}),
    ...(statuses ? { statuses } : {}),
    ...(before ? { before } : {}),
    limit: input.limit + 1,
  });
  const shown = docs.slice(0, input.limit);
  return {
    runs: shown.map((r) => toRunWire(r, undefined, c.uiLink)),
    next_cursor: docs.length > input.limit ? encodeCursor('automations.runs.list', shown[shown.length - 1]!._id) : null,
  };
}
