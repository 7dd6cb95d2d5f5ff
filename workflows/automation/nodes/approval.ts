/**
 * Approval nodes: a signal wait that runs/resume resolves (approve or reject), with an optional
 * deadline after which Lore rejects or fails the node.
 */
import { condition, patched } from '@temporalio/workflow';
import type { GraphNode } from '../../../src/model/automation/graph';
import type { ApprovalInfo } from '../../../src/model/automation/records';
import type { ResumeSignal } from '../../../src/domain/automation/run-types';
import { PATCHES } from '../../patches';
import { showDecision, showWaiting } from '../details';
import { NodeFailure } from '../failure';
import type { AutomationRun } from '../run';

/** The actor recorded when an approval's timeout decides instead of a person. */
const TIMEOUT_ACTOR = 'lore';

/** The resume signal: decides the named nodes that wait now and have no decision yet; a repeat is ignored. */
export function receiveResume(run: AutomationRun, s: ResumeSignal): void {
  if (run.seenResumes.has(s.resume_id)) return;
  run.seenResumes.add(s.resume_id);
  const hit = s.node_ids.filter((id) => run.waiting.has(id) && !run.approvals.has(id));
  if (hit.length === 0) return;
  for (const id of hit) run.approvals.set(id, s);
  run.st.resumes.push({ resume_id: s.resume_id, node_ids: hit, decision: s.decision ?? 'approve', reason: s.reason, actor: s.actor, at: s.at });
  run.st.touch();
}

export async function awaitApproval(run: AutomationRun, node: GraphNode, inputs: Record<string, unknown>): Promise<void> {
  const { st } = run;
  const id = node.node_id;
  const key = node.approval_key!;
  // A timer only where the node asks for one, and only in runs that reach this wait with this code.
  const timeoutMs = node.timeout_ms !== undefined && patched(PATCHES.approvalTimeout) ? node.timeout_ms : null;
  const expiresAt = timeoutMs === null ? null : new Date(Date.now() + timeoutMs).toISOString();
  st.set(id, 'paused', { approval_requested: true, ...(expiresAt ? { approval_expires_at: expiresAt } : {}) });
  run.waiting.add(id);
  run.waitingFor.set(id, { approval_key: key, since: new Date().toISOString(), expires_at: expiresAt, on_timeout: timeoutMs === null ? null : (node.on_timeout ?? 'reject') });
  showWaiting(run);
  let decided = true;
  try {
    if (timeoutMs === null) await condition(() => run.approvals.has(id));
    else decided = await condition(() => run.approvals.has(id), timeoutMs, { summary: `deadline of approval ${key} (node ${id})` });
  } finally {
    run.waiting.delete(id);
    run.waitingFor.delete(id);
    showWaiting(run);
  }
  if (!decided) return approvalExpired(run, node, inputs, expiresAt!);
  const a = run.approvals.get(id)!;
  // Only signals sent by a runs/resume that knew about decisions can reject.
  const decision = a.decision === 'reject' && patched(PATCHES.approvalDecisions) ? 'reject' : 'approve';
  const approval: ApprovalInfo = {
    approval_key: key,
    requested_at: null,
    resumed_at: a.at,
    resumed_by: a.actor,
    reason: a.reason,
    decision,
    decided_by: a.actor,
    decided_at: a.at,
    timed_out: false,
  };
  const output = { approved: decision === 'approve', decision, approval_key: key, reason: a.reason, actor: a.actor, resumed_at: a.at, inputs };
  showDecision(run);
  if (decision === 'reject') throw new NodeFailure('approval_rejected', `approval '${key}' was rejected by ${a.actor}${a.reason ? `: ${a.reason}` : ''}`, output, approval);
  st.set(id, 'succeeded', { output, approval });
}

/** The deadline passed with no decision: a rejection by Lore (on_timeout reject, the default) or a failure. */
function approvalExpired(run: AutomationRun, node: GraphNode, inputs: Record<string, unknown>, expiresAt: string): never {
  const id = node.node_id;
  const key = node.approval_key!;
  const at = new Date().toISOString();
  const reason = `no decision within ${node.timeout} (the approval expired at ${expiresAt})`;
  if ((node.on_timeout ?? 'reject') === 'fail') {
    const approval: ApprovalInfo = {
      approval_key: key,
      requested_at: null,
      resumed_at: null,
      resumed_by: null,
      reason,
      decision: null,
      decided_by: null,
      decided_at: null,
      timed_out: true,
    };
    throw new NodeFailure('approval_timeout', `approval '${key}' timed out: ${reason}`, undefined, approval);
  }
  run.st.resumes.push({ resume_id: `timeout:${id}`, node_ids: [id], decision: 'reject', reason, actor: TIMEOUT_ACTOR, at, timed_out: true });
  run.st.touch();
  showDecision(run);
  const approval: ApprovalInfo = {
    approval_key: key,
    requested_at: null,
    resumed_at: null,
    resumed_by: null,
    reason,
    decision: 'reject',
    decided_by: TIMEOUT_ACTOR,
    decided_at: at,
    timed_out: true,
  };
  const output = { approved: false, decision: 'reject', approval_key: key, reason, actor: TIMEOUT_ACTOR, timed_out: true, inputs };
  throw new NodeFailure('approval_rejected', `approval '${key}' was rejected: ${reason}`, output, approval);
}
