import { evaluateCondition } from '../../../src/domain/automation/condition';
import type { GraphNode } from '../../../src/model/automation/graph';
import type { AutomationRun } from '../run';

/** A condition node: evaluated in the workflow itself, from upstream outputs (no command). */
export function evaluateConditionNode(run: AutomationRun, node: GraphNode): void {
  const outcome = evaluateCondition(node.condition!, run.st.outputs);
  run.st.set(node.node_id, 'succeeded', { output: outcome }, outcome.result);
}
