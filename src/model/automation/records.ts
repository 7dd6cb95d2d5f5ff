import type { Graph, NodeKind, NodeState, RunStatus } from './graph';

/** Stored shapes of the automation family (docs/automation.md, "Records"); their wire views are in src/domain/automation/wire.ts. */

export type DefinitionStatus = 'draft' | 'active' | 'disabled';

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

export interface RunOptions {
  execution_mode: 'default';
  record_run: boolean;
  stop_on_failure: boolean;
}

export type Decision = 'approve' | 'reject';

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
  kind: NodeKind;
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

export const emptyCounts = (): Record<NodeState, number> => ({ pending: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, paused: 0, cancelled: 0 });
