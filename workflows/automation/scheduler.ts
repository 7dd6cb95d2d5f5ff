/**
 * The automation run's scheduler: starts each node once its inputs are ready (independent branches
 * run concurrently, each node in a cancellation scope of its own), hands it to the executor of its
 * kind (nodes/), and settles it: a failure, a cancellation, or stop_on_failure stopping the rest.
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { AutomationNodeKind, GraphNode } from '../../src/model/automation/graph';
import { readiness } from '../../src/domain/automation/readiness';
import { resolveValue } from '../../src/domain/automation/references';
import { causeOf, NodeFailure } from './failure';
import { awaitApproval } from './nodes/approval';
import { checkArtifactGate } from './nodes/artifact-gate';
import { evaluateConditionNode } from './nodes/condition';
import { runPlaybookNode } from './nodes/playbook';
import type { AutomationRun } from './run';

type Executor = (run: AutomationRun, node: GraphNode, inputs: Record<string, unknown>) => Promise<void> | void;

/**
 * One executor per node kind. Typed by AUTOMATION_NODE_KINDS (src/model/automation/graph.ts): a kind
 * added there without an executor here does not compile.
 */
const EXECUTORS: Record<AutomationNodeKind, Executor> = {
  playbook: runPlaybookNode,
  approval: awaitApproval,
  condition: (run, node) => evaluateConditionNode(run, node),
  artifact_gate: (run, node) => checkArtifactGate(run, node),
};

/** Resolves a node's inputs, records its start, and runs the executor of its kind. */
async function executeNode(run: AutomationRun, node: GraphNode): Promise<void> {
  const { st } = run;
  const missing: string[] = [];
  const inputs = resolveValue(node.inputs, st.outputs, missing) as Record<string, unknown>;
  run.started.push(node.node_id);
  run.nodeInputs.set(node.node_id, inputs);
  st.set(node.node_id, 'running', { started: true, inputs });
  if (missing.length > 0) throw new NodeFailure('reference_unresolved', `references did not resolve: ${missing.join(', ')}`);
  return EXECUTORS[node.kind](run, node, inputs);
}

/** A node's executor threw: cancelled (the run was cancelled or stopped) or failed. */
function settle(run: AutomationRun, node: GraphNode, err: unknown): void {
  const { st } = run;
  const id = node.node_id;
  if (isCancellation(err) && (run.root.consideredCancelled || run.stoppedBy !== null)) {
    const message = run.root.consideredCancelled ? 'the run was cancelled' : `the run stopped: node '${run.stoppedBy}' failed`;
    st.set(id, 'cancelled', { error: { code: 'cancelled', message } });
    run.nodeErrors.set(id, { message });
    return;
  }
  const cause = causeOf(err);
  st.set(id, 'failed', {
    error: cause,
    ...(err instanceof NodeFailure && err.output !== undefined ? { output: err.output } : {}),
    ...(err instanceof NodeFailure && err.approval ? { approval: err.approval } : {}),
  });
  st.error ??= { node_id: id, ...cause };
  run.nodeErrors.set(id, { message: cause.message, ...(err instanceof NodeFailure && err.output !== undefined ? { output: err.output } : {}) });
  if (run.input.options.stop_on_failure && run.stoppedBy === null) {
    run.stoppedBy = id;
    for (const s of run.scopes.values()) s.cancel();
  }
}

function launch(run: AutomationRun, node: GraphNode): void {
  const scope = new CancellationScope();
  run.scopes.set(node.node_id, scope);
  const task = scope
    .run(() => executeNode(run, node))
    .catch((err) => settle(run, node, err))
    .finally(() => {
      run.tasks.delete(node.node_id);
      run.scopes.delete(node.node_id);
      run.st.touch();
    });
  run.tasks.set(node.node_id, task);
}

/** One pass in topological order: a skip or an instant node (condition) settles what follows it in the same pass. */
export function schedule(run: AutomationRun): void {
  const { st } = run;
  for (const id of run.input.order) {
    if (st.stateOf(id) !== 'pending') continue;
    if (run.root.consideredCancelled) st.set(id, 'skipped', { skip_reason: 'the run was cancelled' });
    else if (run.stoppedBy !== null) st.set(id, 'skipped', { skip_reason: `the run stopped: node '${run.stoppedBy}' failed` });
    else {
      const d = readiness(st.incoming.get(id) ?? [], st.facts);
      if (d.decision === 'skip') st.set(id, 'skipped', { skip_reason: d.reason });
      else if (d.decision === 'run') launch(run, run.byId.get(id)!);
    }
  }
}
