import type { DefinitionWire, RunNodeWire, RunRecordWire } from '../../contract/families/automation';
import type { UiLink } from '../temporal-ui';
import type { Graph, NodeKind, NodeState, RunStatus } from './graph';

/** Stored shapes of the automation family and their wire views (docs/automation.md, "Records"). */

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

export function toDefinitionWire(d: DefinitionDoc, includeGraph = true): DefinitionWire {
  return {
    automation_id: d.automation_id,
    name: d.name,
    description: d.description,
    status: d.status,
    ...(includeGraph ? { graph: d.graph } : {}),
    node_count: d.node_count,
    edge_count: d.edge_count,
    content_hash: d.content_hash,
    status_history: d.status_history,
    actor: d.actor,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export function toNodeWire(n: NodeDoc): RunNodeWire {
  return {
    node_id: n.node_id,
    kind: n.kind,
    state: n.state,
    inputs: n.inputs,
    output: n.output ?? null,
    output_truncated: n.output_truncated,
    error: n.error,
    skip_reason: n.skip_reason,
    approval: n.approval ? approvalWire(n.approval) : null,
    child_workflow_id: n.child_workflow_id,
    started_at: n.started_at,
    finished_at: n.finished_at,
    updated_at: n.updated_at,
  };
}

/** An approval as the wire shows it; a node decided before decisions existed was approved by its resume. */
function approvalWire(a: ApprovalInfo): NonNullable<RunNodeWire['approval']> {
  const legacyApproved = a.decision === undefined && a.resumed_at !== null;
  return {
    approval_key: a.approval_key,
    requested_at: a.requested_at,
    expires_at: a.expires_at ?? null,
    decision: a.decision ?? (legacyApproved ? 'approve' : null),
    decided_by: a.decided_by ?? (legacyApproved ? a.resumed_by : null),
    decided_at: a.decided_at ?? (legacyApproved ? a.resumed_at : null),
    timed_out: a.timed_out ?? false,
    resumed_at: a.resumed_at,
    resumed_by: a.resumed_by,
    reason: a.reason,
  };
}

const resumeWire = (r: ResumeRecord) => ({ ...r, decision: r.decision ?? 'approve', timed_out: r.timed_out ?? false });

export function toRunWire(r: RunDoc, nodes?: NodeDoc[], uiLink: UiLink = () => null): RunRecordWire {
  return {
    run_id: r.run_id,
    automation_id: r.automation_id,
    automation_name: r.automation_name,
    automation_hash: r.automation_hash,
    status: r.status,
    options: r.options,
    reason: r.reason,
    error: r.error,
    paused_nodes: r.paused_nodes,
    node_counts: r.node_counts,
    resumes: r.resumes.map(resumeWire),
    cancel_requested: r.cancel_requested,
    cancel_reason: r.cancel_reason,
    replay_run_id: r.replay_run_id,
    workflow_id: r.workflow_id,
    temporal_ui_url: uiLink(r.workflow_id),
    actor: r.actor,
    created_at: r.created_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    updated_at: r.updated_at,
    ...(nodes ? { nodes: nodes.map(toNodeWire) } : {}),
  };
}
