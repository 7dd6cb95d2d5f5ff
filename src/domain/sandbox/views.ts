import type { Limits, RunRecordWire, SessionRecordWire } from '../../contract/families/sandbox';
import type { RunDoc, SessionDoc, SessionIsolation, SessionWorkspace } from '../../model/sandbox/records';
import type { UiLink } from '../temporal-ui';

/** The sandbox family's wire records, derived from the stored documents (src/model/sandbox/records.ts). */

export function toSessionWire(s: SessionDoc, extra: { limit_caps: Limits; shell_allowed: boolean; allowed_commands: string[] | null; workdir: string }): SessionRecordWire {
  return {
    session_id: s.session_id,
    profile: s.profile,
    isolation: s.workspace ? withWorkspace(s.isolation, s.workspace) : s.isolation,
    limits: s.limits,
    limit_caps: extra.limit_caps,
    shell_allowed: extra.shell_allowed,
    allowed_commands: extra.allowed_commands,
    workdir: extra.workdir,
    workspace: s.workspace ? { path: s.workspace.path, view: s.workspace.view ?? 'copy', detail: s.workspace.view_detail ?? null } : null,
    actor: s.actor,
    created_at: s.created_at,
    last_run_at: s.last_run_at ?? null,
    workdir_removed_at: s.workdir_removed_at ?? null,
  };
}

/** The session's isolation, saying how its commands see the workspace at /work. */
function withWorkspace(isolation: SessionIsolation, w: SessionWorkspace): SessionIsolation {
  const how =
    (w.view ?? 'copy') === 'overlay'
      ? `/work is the workspace ${w.path} seen copy-on-write through an overlay mounted for each run: the project is read-only, the commands' writes land in the session's own layer`
      : `/work is a copy of the workspace ${w.path}, brought up to date before each run (no overlay${w.view_detail ? `: ${w.view_detail}` : ''}); the project is only read`;
  return { ...isolation, filesystem: `${isolation.filesystem}; ${how}` };
}

export function toRunWire(r: RunDoc, uiLink: UiLink = () => null): RunRecordWire {
  return {
    run_id: r.run_id,
    session_id: r.session_id,
    profile: r.profile,
    mode: r.mode,
    status: r.status,
    argv: r.argv,
    limits: r.limits,
    exit_code: r.exit_code,
    signal: r.signal,
    duration_ms: r.duration_ms,
    stdout_tail: r.stdout_tail,
    stderr_tail: r.stderr_tail,
    truncated: r.truncated,
    output_bytes: r.output_bytes,
    dropped_bytes: r.dropped_bytes,
    limit_hit: r.limit_hit,
    reason: r.reason,
    log_entries: r.log_entries,
    artifact_count: r.artifact_count,
    isolation: r.isolation,
    workspace_changes: r.workspace_changes ?? null,
    cancel_requested: r.cancel_requested,
    workflow_id: r.workflow_id,
    temporal_ui_url: uiLink(r.workflow_id),
    actor: r.actor,
    created_at: r.created_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    updated_at: r.updated_at,
  };
}
