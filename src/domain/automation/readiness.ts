import type { AutomationNodeKind, GraphEdge, NodeState } from '../../model/automation/graph';

/**
 * When a node may start (docs/automation.md, "Execution"). Every incoming edge must hold:
 * `on_success` holds when its source succeeded (a condition: evaluated true), `on_false` when
 * its source is a condition that evaluated false. One edge that can no longer hold skips the
 * node at once (it does not wait for its other inputs); a node without incoming edges is ready
 * at the start. Pure: the workflow schedules with it.
 */

export interface NodeFacts {
  kind: AutomationNodeKind;
  state: NodeState;
  /** The value a condition node evaluated to. */
  result?: boolean;
}

export type Readiness = { decision: 'run' } | { decision: 'wait' } | { decision: 'skip'; reason: string };

export function readiness(incoming: readonly GraphEdge[], facts: (nodeId: string) => NodeFacts | undefined): Readiness {
  let waiting = false;
  for (const e of incoming) {
    const src = facts(e.from);
    if (!src) return { decision: 'skip', reason: `upstream node '${e.from}' is unknown` };
    switch (src.state) {
      case 'pending':
      case 'running':
      case 'paused':
        waiting = true;
        continue;
      case 'failed':
        return { decision: 'skip', reason: `upstream node '${e.from}' failed` };
      case 'skipped':
        return { decision: 'skip', reason: `upstream node '${e.from}' was skipped` };
      case 'cancelled':
        return { decision: 'skip', reason: `upstream node '${e.from}' was cancelled` };
      case 'succeeded':
        if (src.kind === 'condition') {
          const wanted = e.type === 'on_success';
          if (src.result !== wanted) return { decision: 'skip', reason: `condition '${e.from}' was ${String(src.result)}` };
        } else if (e.type !== 'on_success') {
          return { decision: 'skip', reason: `edge type ${e.type} from a ${src.kind} node never holds` };
        }
    }
  }
  return waiting ? { decision: 'wait' } : { decision: 'run' };
}
