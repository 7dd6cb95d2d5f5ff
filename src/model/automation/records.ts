import { NODE_STATES, type AutomationNodeKind, type Graph, type NodeState, type RunStatus } from './graph';

/** Stored shapes of the automation family (docs/automation.md, "Records"); their wire views are in src/domain/automation/wire.ts. */

export const DEFINITION_STATUSES = ['draft', 'active', 'disabled'] as const;
export type DefinitionStatus = (typeof DEFINITION_STATUSES)[number];
/** What automations/create may set (activation is automations/status)… */
export const DEFINITION_CREATE_STATUSES = ['draft'] as const satisfies readonly DefinitionStatus[];
/** …and what automations/status may set. */
export const DEFINITION_SET_STATUSES = ['active', 'disabled'] as const satisfies readonly DefinitionStatus[];

export interface StatusChange {
  from: DefinitionStatus | null;
  to: DefinitionStatus;
  actor: string;
  reason: string | null;
  at: string;
}

export interface DefinitionDoc {
  _id: string;
  automation_id: string;
  name: string;
  description: string | null;
  status: DefinitionStatus;
  graph: Graph;
  node_count: number;
  edge_count: number;
  content_hash: string;
  status_history: StatusChange[];
  actor: string;
  created_at: string;
  updated_at: string;
}

export const EXECUTION_MODES = ['default'] as const;
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

export interface RunOptions {
  execution_mode: ExecutionMode;
  record_run: boolean;
  stop_on_failure: boolean;
}

export const APPROVAL_DECISIONS = ['approve', 'reject'] as const;
export type Decision = (typeof APPROVAL_DECISIONS)[number];

/** One approval decision: a runs/resume, or a rejection by an approval's timeout. */
export interface ResumeRecord {
  resume_id: string;
  node_ids: string[];
  /** Absent in records written before decisions existed: those were approvals. */
  decision?: Decision;
  reason: string | null;
  actor: string;
  at: string;
  timed_out?: boolean;
}

export interface RunError {
  node_id: string | null;
  code: string;
  message: string;
}

export interface RunDoc {
  /** Server key (uuid v7): orders runs by creation and names the node documents. */
  _id: string;
  run_id: string;
  automation_id: string;
  automation_name: string;
  automation_hash: string;
  status: RunStatus;
  options: RunOptions;
  reason: string | null;
  error: RunError | null;
  paused_nodes: string[];
  node_counts: Record<NodeState, number>;
  resumes: ResumeRecord[];
  cancel_requested: boolean;
  cancel_reason: string | null;
  replay_run_id: string | null;
  workflow_id: string;
  node_order: string[];
  /** Sequence number of the last mirror write applied (writes with a lower one are stale repeats). */
  seq: number;
  actor: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  /** Wall-clock ms when stored (reconcile's grace period; independent of the injectable clock). */
  enqueued_wall_ms: number;
}

export interface ApprovalInfo {
  approval_key: string;
  requested_at: string | null;
  /** The fields below are absent on nodes stored before decisions and timeouts existed. */
  expires_at?: string | null;
  decision?: Decision | null;
  decided_by?: string | null;
  decided_at?: string | null;
  timed_out?: boolean;
  resumed_at: string | null;
  resumed_by: string | null;
  reason: string | null;
}

export interface NodeDoc {
  _id: string;
  run_key: string;
  node_id: string;
  kind: AutomationNodeKind;
  order: number;
  state: NodeState;
  seq: number;
  inputs: Record<string, unknown> | null;
  output: unknown;
  output_truncated: boolean;
  error: { code: string; message: string } | null;
  skip_reason: string | null;
  approval: ApprovalInfo | null;
  child_workflow_id: string | null;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export const nodeDocId = (runKey: string, nodeId: string) => `${runKey}:${nodeId}`;

export const emptyCounts = (): Record<NodeState, number> => Object.fromEntries(NODE_STATES.map((s) => [s, 0])) as Record<NodeState, number>;
