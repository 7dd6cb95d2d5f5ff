/**
 * The automation graph as Lore stores and runs it (after validation and normalisation).
 * Plain types with no imports: the workflow bundle reads these too.
 */

export type NodeKind = 'playbook' | 'approval' | 'condition' | 'artifact_gate';
export type EdgeType = 'on_success' | 'on_false';
export type ConditionOp = 'eq' | 'ne' | 'gt' | 'lt' | 'exists' | 'truthy';

export interface ConditionSpec {
  left: unknown;
  op: ConditionOp;
  right?: unknown;
}

export interface ArtifactSpec {
  /** Relative to the sandbox run's artifacts/ directory (a leading "artifacts/" is accepted). */
  path: string;
  /** The upstream playbook node whose sandbox runs must have produced it; absent: any upstream playbook node. */
  from_node?: string;
}

export interface GraphNode {
  node_id: string;
  kind: NodeKind;
  name?: string;
  playbook_id?: string;
  version?: number;
  /** Playbook nodes: `guided` waits for the host at host steps; absent means strict (command steps only). */
  mode?: 'guided';
  approval_key?: string;
  /** Approval nodes: the deadline for a decision, as given (ISO-8601 duration or seconds)… */
  timeout?: string | number;
  /** …and in milliseconds (what the workflow's timer uses). */
  timeout_ms?: number;
  /** Approval nodes with a timeout: what the deadline does (docs/automation.md, "Approvals"). */
  on_timeout?: 'reject' | 'fail';
  /** Values may be reference strings `$nodes.<node_id>.<path>`, resolved when the node starts. */
  inputs: Record<string, unknown>;
  condition?: ConditionSpec;
  artifacts?: ArtifactSpec[];
}

export interface GraphEdge {
  from: string;
  to: string;
  type: EdgeType;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export type NodeState = 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'paused' | 'cancelled';
export type RunStatus = 'queued' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';

export const NODE_STATE_LIST: readonly NodeState[] = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'paused', 'cancelled'];
export const TERMINAL_RUN: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];
export const isTerminalRun = (s: RunStatus) => TERMINAL_RUN.includes(s);
export const SETTLED_NODE: readonly NodeState[] = ['succeeded', 'failed', 'skipped', 'cancelled'];

/** Node ids appear inside `$nodes.<id>.<path>` references and as store keys: no dots, no `$`. */
export const NODE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** Every node id that can reach `target` through edges (its ancestors). Tolerates cycles. */
export function ancestorsOf(target: string, incoming: ReadonlyMap<string, readonly GraphEdge[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [target];
  while (stack.length > 0) {
    const id = stack.pop()!;
    for (const e of incoming.get(id) ?? []) {
      if (!seen.has(e.from)) {
        seen.add(e.from);
        stack.push(e.from);
      }
    }
  }
  return seen;
}

export function incomingEdges(graph: Pick<Graph, 'edges'>): Map<string, GraphEdge[]> {
  const m = new Map<string, GraphEdge[]>();
  for (const e of graph.edges) {
    const list = m.get(e.to) ?? [];
    list.push(e);
    m.set(e.to, list);
  }
  return m;
}
