import type { UiLink } from '../temporal-ui';
import type { PlaybookDoc, PlaybookStatus, RunDoc, StepDoc } from '../../model/replay/types';

/** Wire records of the replay family from the stored documents (contract/families/replay.ts). */

/**
 * The status a version has: the active pointer is the truth for `active` (status.ts), so a
 * version the pointer names is active and a version still marked active that it does not name
 * (a promote that lost a race, not yet reconciled) is shown as what it was demoted to.
 */
export function effectiveStatus(doc: Pick<PlaybookDoc, 'version' | 'status'>, activeVersion: number | null): PlaybookStatus {
  if (activeVersion !== null && doc.version === activeVersion) return 'active';
  return doc.status === 'active' ? 'shadow' : doc.status;
}

export function stepView(s: StepDoc) {
  return {
    step_index: s.step_index,
    tool_name: s.tool_name,
    tool_input: s.tool_input,
    expected_output_signature: s.expected_output_signature,
    status: s.status,
    output_signature: s.output_signature,
    error: s.error,
    kind: s.kind,
    sandbox_run_id: s.sandbox_run_id,
    attempts: s.attempts,
    match: s.match,
    metadata: s.metadata,
    started_at: s.started_at,
    ended_at: s.ended_at,
    waiting_since: s.waiting_since ?? null,
  };
}

/** The host step an open guided run waits for (the store's view: the workflow marks it pending). */
export function pendingStepOf(r: RunDoc, steps: StepDoc[]) {
  if (r.state !== 'open') return null;
  const s = steps.find((x) => x.status === 'pending' && x.waiting_since);
  if (!s) return null;
  return {
    step_index: s.step_index,
    tool_name: s.tool_name,
    tool_input: s.tool_input,
    expected_output_signature: s.expected_output_signature,
    waiting_since: s.waiting_since!,
    reported: Boolean(s.host_report),
  };
}

export type PendingStepView = NonNullable<ReturnType<typeof pendingStepOf>>;

/** A run as the routes show it; `pending` is needed when `steps` is not given (runs/get without steps). */
export function runView(r: RunDoc, steps: StepDoc[] | null, stepCount?: number, uiLink: UiLink = () => null, pending?: PendingStepView | null) {
  return {
    run_id: r.run_id,
    goal: r.goal,
    state: r.state,
    status: r.status,
    summary: r.summary,
    source: r.source,
    playbook: r.playbook
      ? {
          playbook_id: r.playbook.playbook_id,
          version: r.playbook.version,
          mode: r.playbook.mode,
          purpose: r.playbook.purpose,
          workflow_id: r.playbook.workflow_id,
          temporal_ui_url: uiLink(r.playbook.workflow_id),
          params: r.playbook.params,
          active_at_start: r.playbook.active_at_start,
          sandbox_session_id: r.playbook.session_id,
          workspace: r.playbook.workspace ?? null,
        }
      : null,
    pending_step: steps ? pendingStepOf(r, steps) : (pending ?? null),
    metadata: r.metadata,
    actor: r.actor,
    created_at: r.created_at,
    updated_at: r.updated_at,
    ended_at: r.ended_at,
    step_count: steps ? steps.length : (stepCount ?? 0),
    ...(steps ? { steps: steps.map(stepView) } : {}),
    learning: r.learning,
  };
}

export function playbookView(p: PlaybookDoc, activeVersion: number | null) {
  return {
    playbook_id: p.playbook_id,
    name: p.name,
    version: p.version,
    status: effectiveStatus(p, activeVersion),
    repair_of: p.repair_of,
    source_run_id: p.source_run_id,
    steps: p.steps,
    parameters: p.parameters.map((x) => ({ name: x.name, default: x.default ?? null, required: x.default === null || x.default === undefined })),
    sandbox_profile: p.sandbox_profile,
    shadow_validation: p.shadow_validation,
    review: p.review,
    note: p.note,
    status_history: p.status_history,
    actor: p.actor,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}
