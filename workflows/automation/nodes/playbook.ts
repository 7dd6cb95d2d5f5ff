import { ChildWorkflowCancellationType, ParentClosePolicy, executeChild, uuid4 } from '@temporalio/workflow';
import type { GraphNode } from '../../../src/model/automation/graph';
import { PLAYBOOK_RUN_WORKFLOW, playbookChildWorkflowId, playbookNodeOutcome, playbookRunInput } from '../../../src/domain/automation/playbook-node';
import type { PlaybookRunInput, PlaybookRunResult } from '../../../src/domain/replay/workflow-types';
import * as replayWorkflows from '../../replay';
import { SA } from '../../../src/model/search-attributes';
import { NodeFailure } from '../failure';
import type { AutomationRun } from '../run';

/**
 * Whether this worker runs the replay family's playbook-run workflow (workflows/index.ts exports
 * both families, so an export of ./replay is registered). Without it a child would never be picked
 * up; the node fails at once instead, saying why.
 */
const PLAYBOOK_WORKFLOW_REGISTERED = typeof (replayWorkflows as Record<string, unknown>)[PLAYBOOK_RUN_WORKFLOW] === 'function';

/** A playbook node: the replay family's playbook run, as a child workflow. */
export async function runPlaybookNode(run: AutomationRun, node: GraphNode, inputs: Record<string, unknown>): Promise<void> {
  const { input, st } = run;
  if (!PLAYBOOK_WORKFLOW_REGISTERED) {
    throw new NodeFailure('playbook_unavailable', `playbook nodes need the replay family's ${PLAYBOOK_RUN_WORKFLOW}, which this worker does not have`);
  }
  const ctx = { tenant_id: input.tenant_id, scope: input.scope, actor: input.actor, automation_id: input.automation_id, automation_run_id: input.run_id, run_key: uuid4() };
  const childId = playbookChildWorkflowId(ctx);
  st.set(node.node_id, 'running', { child_workflow_id: childId });
  const result = await executeChild<(i: PlaybookRunInput) => Promise<PlaybookRunResult>>(PLAYBOOK_RUN_WORKFLOW, {
    workflowId: childId,
    args: [playbookRunInput(ctx, node, inputs)],
    // Cancelling the run waits until the playbook (and its sandbox processes) has stopped.
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
    typedSearchAttributes: [
      { key: SA.tenant, value: input.tenant_id },
      { key: SA.scope, value: input.scope },
      { key: SA.runKind, value: 'playbook_run' },
      { key: SA.automationId, value: input.automation_id },
      { key: SA.playbookId, value: node.playbook_id ?? '' },
    ],
    staticSummary: `automation ${input.automation_id} run ${input.run_id}: node ${node.node_id} (playbook ${node.playbook_id} v${node.version})`,
  });
  const outcome = playbookNodeOutcome(result);
  run.sandboxRuns.set(node.node_id, outcome.sandbox_run_ids);
  if (!outcome.ok) throw new NodeFailure(outcome.error?.code ?? 'playbook_failed', outcome.error?.message ?? 'the playbook run failed', outcome.output);
  st.set(node.node_id, 'succeeded', { output: outcome.output });
}
