import type { DefinitionWire, RunNodeWire, RunRecordWire } from '../../contract/families/automation';
import type { ApprovalInfo, DefinitionDoc, NodeDoc, ResumeRecord, RunDoc } from '../../model/automation/records';
import type { UiLink } from '../temporal-ui';

/** The automation family's wire records, derived from the stored documents (src/model/automation/records.ts). */

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
