/**
 * The automation graph as Lore stores and runs it (after validation and normalisation), and the
 * vocabulary it is written in: each list is the one place its values are named (the contract's
 * schemas, the graph validator and the scheduler's executor map are built from it).
 * Plain values with no imports: the workflow bundle reads these too.
 */

/** What an automation node does; the scheduler (workflows/automation/scheduler.ts) has one executor per kind. */
export const AUTOMATION_NODE_KINDS = ['playbook', 'approval', 'condition', 'artifact_gate'] as const;
export type AutomationNodeKind = (typeof AUTOMATION_NODE_KINDS)[number];
export const AUTOMATION_EDGE_TYPES = ['on_success', 'on_false'] as const;
export type EdgeType = (typeof AUTOMATION_EDGE_TYPES)[number];
export const CONDITION_OPS = ['eq', 'ne', 'gt', 'lt', 'exists', 'truthy'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];
/** The operators that compare `left` with `right` (the others read `left` alone). */
export const BINARY_CONDITION_OPS = ['eq', 'ne', 'gt', 'lt'] as const satisfies readonly ConditionOp[];
/** Playbook nodes: `guided` waits for the host at host steps; absent means strict. */
export const PLAYBOOK_NODE_MODES = ['guided'] as const;
export type PlaybookNodeMode = (typeof PLAYBOOK_NODE_MODES)[number];
/** What an approval's deadline does: reject (a rejection by lore) or fail the node (approval_timeout). */
export const ON_TIMEOUT_ACTIONS = ['reject', 'fail'] as const;
export type OnTimeout = (typeof ON_TIMEOUT_ACTIONS)[number];

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
  kind: AutomationNodeKind;
  name?: string;
  playbook_id?: string;
  version?: number;
  /** Playbook nodes: `guided` waits for the host at host steps; absent means strict (command steps only). */
  mode?: PlaybookNodeMode;
  approval_key?: string;
  /** Approval nodes: the deadline for a decision, as given (ISO-8601 duration or seconds)… */
  timeout?: string | number;
  /** …and in milliseconds (what the workflow's timer uses). */
  timeout_ms?: number;
  /** Approval nodes with a timeout: what the deadline does (docs/automation.md, "Approvals"). */
  on_timeout?: OnTimeout;
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

export const NODE_STATES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'paused', 'cancelled'] as const;
export type NodeState = (typeof NODE_STATES)[number];
export const AUTOMATION_RUN_STATUSES = ['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof AUTOMATION_RUN_STATUSES)[number];

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
