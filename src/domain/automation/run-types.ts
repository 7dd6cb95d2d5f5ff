import type { Graph, NodeState, RunStatus } from '../../model/automation/graph';
import type { ApprovalInfo, Decision, ResumeRecord, RunError, RunOptions } from '../../model/automation/records';

/**
 * What crosses the workflow boundary of an automation run: the workflow's input, the resume
 * signal, and the activities' inputs and results. Types only (the workflow bundle imports them).
 */

export const AUTOMATION_WORKFLOW = 'automationRunWorkflow';
export const RESUME_SIGNAL = 'automation.resume';
export const STATE_QUERY = 'automation.state';

export interface AutomationRunInput {
  tenant_id: string;
  scope: string;
  run_id: string;
  /** The run's server key: names its node documents. */
  run_key: string;
  automation_id: string;
  actor: string;
  options: RunOptions;
  /** The validated graph, snapshotted at run start (later changes to the definition do not reach it). */
  graph: Graph;
  order: string[];
}

export interface ResumeSignal {
  /** Makes a repeated signal harmless. */
  resume_id: string;
  /** The approval nodes to decide: those the store showed paused when the resume was accepted. */
  node_ids: string[];
  /** Absent in signals sent before decisions existed (histories keep them): approve. */
  decision?: Decision;
  reason: string | null;
  actor: string;
  at: string;
}

export interface MirrorNodeChange {
  node_id: string;
  state: NodeState;
  /** The node started since the last write (set started_at). */
  started?: boolean;
  inputs?: Record<string, unknown>;
  output?: unknown;
  error?: { code: string; message: string } | null;
  skip_reason?: string | null;
  approval?: ApprovalInfo;
  /** Approval requested since the last write (set approval.requested_at). */
  approval_requested?: boolean;
  /** With approval_requested: when the approval's timeout ends the wait. */
  approval_expires_at?: string | null;
  child_workflow_id?: string | null;
}

export interface MirrorRunState {
  status: RunStatus;
  paused_nodes: string[];
  node_counts: Record<NodeState, number>;
  resumes: ResumeRecord[];
  error: RunError | null;
  reason: string | null;
  replay_run_id: string | null;
}

export interface MirrorInput {
  tenant_id: string;
  scope: string;
  run_key: string;
  /** Increases with every write of this run; the store ignores writes not newer than the last. */
  seq: number;
  run: MirrorRunState;
  nodes: MirrorNodeChange[];
}

export interface ArtifactCheck {
  path: string;
  from_node: string | null;
  /** Sandbox runs of the upstream playbook nodes to look in, by node. */
  sources: { node_id: string; sandbox_run_ids: string[] }[];
}

export interface ArtifactCheckInput {
  tenant_id: string;
  scope: string;
  checks: ArtifactCheck[];
}

export interface ArtifactFound {
  path: string;
  node_id: string;
  sandbox_run_id: string;
  size: number;
  sha256: string | null;
}

export interface ArtifactCheckResult {
  found: ArtifactFound[];
  missing: { path: string; from_node: string | null; searched_runs: string[] }[];
}

/** What the workflow returns (also visible in the Temporal UI). */
export interface AutomationRunResult {
  run_id: string;
  status: RunStatus;
  node_counts: Record<NodeState, number>;
  error: RunError | null;
}
