import type { RouteInput } from '../../contract';
import type { automationRoutes } from '../../contract/families/automation';
import type { AutomationRuns } from '../../store/automation/index';
import type { ScopeRef } from '../../store/scope';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import { loadDefinition, loadAutomationRun, automationStores, type AutomationCtx } from './context';
import { isTerminalRun, type RunStatus } from '../../model/automation/graph';
import { versionOf, type Until } from '../runs/wait';
import { NEVER_STARTED, readRunRecordWithWait, reconcileRun } from '../runs/index';
import { runKeyOfChild } from './playbook-node';
import type { NodeDoc, RunDoc } from '../../model/automation/records';
import { toRunWire } from './views';

type Routes = typeof automationRoutes;

export { NEVER_STARTED };

/**
 * A read of an open run double-checks it against the engine (../runs/reconcile.ts): a run whose
 * workflow is gone or closed without recording the outcome is settled, its open nodes with it.
 */
export function reconcileAutomationRun(c: AutomationCtx, runs: AutomationRuns, run: RunDoc): Promise<RunDoc> {
  return reconcileRun(c.engine, {
    run,
    open: !isTerminalRun(run.status),
    workflowId: run.workflow_id,
    sinceMs: run.enqueued_wall_ms,
    unreachable: (err) => c.log.debug({ err, run_id: run.run_id }, 'automation reconcile: engine unreachable'),
    settle: async (wf) => {
      const now = c.clock.now().toISOString();
      const ending: { status: RunStatus; reason: string } = !wf
        ? { status: 'failed', reason: NEVER_STARTED }
        : wf.state === 'cancelled'
          ? { status: 'cancelled', reason: 'cancelled; the workflow ended before it recorded the outcome' }
          : {
              status: 'failed',
              reason: `the run's workflow ${wf.state === 'completed' ? 'completed' : `was ${wf.state}`} without recording its outcome (e.g. terminated by an operator)`,
            };
      const settled = await runs.settle(run.run_id, { ...ending, paused_nodes: [], finished_at: now, updated_at: now });
      if (settled) await automationStores(c.db, runs.ref).nodes.settleOpen(run._id, now, ending.reason);
      return settled ?? (await runs.get(run.run_id)) ?? run;
    },
  });
}

/** Whether a run record satisfies `until` (docs/automation.md, "Waiting for a run"). */
export function runHolds(until: Until, run: RunDoc): boolean {
  if ('changedFrom' in until) return versionOf(run) !== until.changedFrom;
  if (until.condition === 'not_queued') return run.status !== 'queued';
  if (until.condition === 'paused_or_done') return run.status === 'paused' || isTerminalRun(run.status);
  return isTerminalRun(run.status);
}

/**
 * runs/get: the run from the store; with wait_ms, once `until` holds or at the deadline, whichever
 * comes first (a run that is gone ends the wait too: the read then says not_found).
 */
export async function getAutomationRun(c: AutomationCtx, ref: ScopeRef, input: RouteInput<Routes['automations.runs.get']>, signal?: AbortSignal) {
  const { runs, nodes } = automationStores(c.db, ref);
  const read = async () => reconcileAutomationRun(c, runs, await loadAutomationRun(runs, input.run_id));
  const { doc: run, wait } = await readRunRecordWithWait(c.waiter, input, { family: 'automation', ref, runs }, read, runHolds, signal);
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
  // The runs of an automation that does not exist: not_found, not an empty page (a mistyped id would look like "no runs").
  if (input.automation_id) await loadDefinition(automationStores(c.db, ref).definitions, input.automation_id);
  const statuses = input.status === undefined ? undefined : Array.isArray(input.status) ? [...new Set(input.status)] : [input.status];
  const docs = await automationStores(c.db, ref).runs.list({
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
