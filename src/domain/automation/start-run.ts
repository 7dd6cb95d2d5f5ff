import type { RouteInput } from '../../contract';
import { LoreError, invalidState } from '../../contract/errors';
import type { automationRoutes } from '../../contract/families/automation';
import type { AutomationRuns } from '../../store/automation/index';
import type { ScopeRef } from '../../store/scope';
import { startWorkflowRun } from '../runs/index';
import { uuidv7 } from '../../model/ids';
import { automationWorkflowId, loadDefinition, loadAutomationRun, automationStores, type AutomationCtx } from './context';
import { canonicalJson, validationFailed } from './definitions';
import { checkPlaybooks } from './playbooks';
import { emptyCounts, nodeDocId, type NodeDoc, type RunDoc } from '../../model/automation/records';
import { toRunWire } from './views';
import { AUTOMATION_WORKFLOW, type AutomationRunInput } from './run-types';
import type { Graph } from '../../model/automation/graph';
import { topologicalOrder } from './graph-order';

type RunInput = RouteInput<(typeof automationRoutes)['automations.run']>;

/**
 * Starts a run: stores it queued with every node pending, then hands it to the engine and returns
 * at once. A draft may run (to try it before activating it); a disabled automation may not.
 */
export async function startAutomationRun(c: AutomationCtx, ref: ScopeRef, input: RunInput, actor: string) {
  const { definitions, runs, nodes } = automationStores(c.db, ref);
  const def = await loadDefinition(definitions, input.automation_id);
  if (def.status === 'disabled') {
    throw invalidState(`automation '${def.automation_id}' is disabled; activate it with /v1/automations/status to run it`, def.status, { automation_id: def.automation_id });
  }
  // Playbook versions are checked again: they may have changed since the definition was stored.
  const issues = await checkPlaybooks(c.playbooks, ref, def.graph);
  if (issues.length > 0) throw validationFailed(issues);

  const now = c.clock.now();
  const at = now.toISOString();
  const key = uuidv7(now.getTime());
  const runId = input.run_id ?? key;
  const order = topologicalOrder(def.graph);
  const counts = emptyCounts();
  counts.pending = def.graph.nodes.length;
  const doc: RunDoc = {
    _id: key,
    run_id: runId,
    automation_id: def.automation_id,
    automation_name: def.name,
    automation_hash: def.content_hash,
    status: 'queued',
    options: input.options,
    reason: null,
    error: null,
    paused_nodes: [],
    node_counts: counts,
    resumes: [],
    cancel_requested: false,
    cancel_reason: null,
    replay_run_id: null,
    workflow_id: automationWorkflowId(ref, runId),
    node_order: order,
    seq: 0,
    actor,
    created_at: at,
    started_at: null,
    finished_at: null,
    updated_at: at,
    // Wall time, not the injected clock: the reconcile grace period is measured against the engine's real start (RunDoc.enqueued_wall_ms).
    enqueued_wall_ms: Date.now(),
  };
  const position = new Map(order.map((id, i) => [id, i]));
  const nodeDocs: NodeDoc[] = def.graph.nodes.map((n) => ({
    _id: nodeDocId(key, n.node_id),
    run_key: key,
    node_id: n.node_id,
    kind: n.kind,
    order: position.get(n.node_id) ?? 0,
    state: 'pending',
    seq: 0,
    inputs: null,
    output: null,
    output_truncated: false,
    error: null,
    skip_reason: null,
    approval:
      n.kind === 'approval'
        ? {
            approval_key: n.approval_key!,
            requested_at: null,
            expires_at: null,
            decision: null,
            decided_by: null,
            decided_at: null,
            timed_out: false,
            resumed_at: null,
            resumed_by: null,
            reason: null,
          }
        : null,
    child_workflow_id: null,
    started_at: null,
    finished_at: null,
    updated_at: at,
  }));

  const wf: AutomationRunInput = {
    tenant_id: ref.tenant_id,
    scope: ref.scope,
    run_id: runId,
    run_key: key,
    automation_id: def.automation_id,
    actor,
    options: input.options,
    graph: def.graph,
    order,
  };
  const { run, created } = await startWorkflowRun<RunDoc>(c.engine, {
    record: async () => {
      // Nodes first (under the fresh key): a run record never exists without its nodes.
      await nodes.insertMany(nodeDocs);
      if (await runs.insert(doc)) return { run: doc, created: true };
      await nodes.deleteRun(key);
      return { run: await repeatOf(runs, runId, doc), created: false };
    },
    workflow: () => ({
      workflowType: AUTOMATION_WORKFLOW,
      workflowId: doc.workflow_id,
      args: [wf],
      labels: { tenant_id: ref.tenant_id, scope: ref.scope, kind: 'automation', automation_id: def.automation_id },
      summary: `automation ${def.name === def.automation_id ? def.automation_id : `${def.name} (${def.automation_id})`}: run ${runId}`.slice(0, 400),
      details: runDetails(def.name, def.automation_id, runId, actor, input.options, def.graph),
      rejectDuplicate: true,
    }),
    compensate: async (_run, reason) => {
      const end = c.clock.now().toISOString();
      await runs.settle(runId, { status: 'failed', reason, finished_at: end, updated_at: end });
      await nodes.settleOpen(key, end, 'the run never started');
    },
  });
  return { run_id: runId, created, run: toRunWire(run, undefined, c.uiLink) };
}

/** The run's static details in the Temporal UI: what it runs, for whom, with which options. */
function runDetails(name: string, automationId: string, runId: string, actor: string, options: RunInput['options'], graph: Graph): string {
  const shown = 50;
  const nodes = graph.nodes.slice(0, shown).map((n) => {
    const what =
      n.kind === 'playbook'
        ? `playbook ${n.playbook_id} v${n.version}`
        : n.kind === 'approval'
          ? `approval ${n.approval_key}${n.timeout !== undefined ? ` (timeout ${n.timeout}, then ${n.on_timeout ?? 'reject'})` : ''}`
          : n.kind;
    return `- \`${n.node_id}\`: ${what}`;
  });
  if (graph.nodes.length > shown) nodes.push(`- … and ${graph.nodes.length - shown} more`);
  return [
    `**Automation** ${name} (\`${automationId}\`), run \`${runId}\`, started by ${actor}`,
    `stop_on_failure: ${options.stop_on_failure}, record_run: ${options.record_run}`,
    '',
    `${graph.nodes.length} node(s), ${graph.edges.length} edge(s):`,
    ...nodes,
  ].join('\n');
}

/** The same run_id again: the existing run when automation and options agree (a retried call), else conflict. */
async function repeatOf(runs: AutomationRuns, runId: string, wanted: RunDoc): Promise<RunDoc> {
  const existing = await loadAutomationRun(runs, runId);
  if (existing.automation_id !== wanted.automation_id || canonicalJson(existing.options) !== canonicalJson(wanted.options)) {
    throw new LoreError('conflict', `automation run '${runId}' exists for another automation or with other options`, {
      run_id: runId,
      automation_id: existing.automation_id,
    });
  }
  return existing;
}
