import type { Limits, RunRecordWire, SessionRecordWire } from '../../contract/families/sandbox';
import type { UiLink } from '../temporal-ui';
import { TERMINAL_STATUSES } from '../../contract/families/sandbox';

/**
 * Stored shapes of the sandbox family. The store keeps these documents; the wire records
 * (contract/families/sandbox.ts) are derived from them by toSessionWire / toRunWire.
 */

export type Profile = 'default' | 'local-safe';
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'timed_out' | 'cancelled';
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export type LimitHit = 'wall_time' | 'cpu_time' | 'memory' | 'processes' | 'file_size' | 'output_bytes';

export const isTerminal = (s: RunStatus): s is TerminalStatus => (TERMINAL_STATUSES as readonly string[]).includes(s);

export interface SessionIsolation {
  kind: 'bubblewrap' | 'none';
  version: string | null;
  network: 'none' | 'host';
  filesystem: string;
  uid_isolation: boolean;
  memory_limit: 'cgroup' | 'rlimit_data';
  weaker: string | null;
}

export interface SessionDoc {
  /** Server id; also names the host workdir, so caller-chosen session ids of two tenants never share one. */
  _id: string;
  session_id: string;
  profile: Profile;
  isolation: SessionIsolation;
  limits: Limits;
  workdir_name: string;
  /** The host directory the workdir mirrors copy-on-write (absent or null: a plain workdir). */
  workspace?: { path: string } | null;
  actor: string;
  created_at: string;
  /** When the session's latest run was created (absent before its first run). */
  last_run_at?: string;
  /** When workdir retention last removed the workdir's files (absent if never). */
  workdir_removed_at?: string;
}

export interface RunIsolationDoc {
  kind: 'bubblewrap' | 'none';
  uid_isolation: boolean;
  memory_limit: 'cgroup' | 'rlimit_data';
  enforced: Record<string, boolean>;
  weaker: string | null;
}

export interface RunDoc {
  /** Server id (uuid v7); the workflow id and log/artifact keys derive from it. */
  _id: string;
  run_id: string;
  session_id: string;
  /** _id of the session document (the workdir to use). */
  session_key: string;
  profile: Profile;
  mode: 'sync' | 'async';
  status: RunStatus;
  argv: string[];
  env: Record<string, string>;
  limits: Limits;
  isolation_kind: 'bubblewrap' | 'none';
  exit_code: number | null;
  signal: string | null;
  duration_ms: number | null;
  stdout_tail: string;
  stderr_tail: string;
  truncated: boolean;
  output_bytes: number;
  dropped_bytes: number;
  limit_hit: LimitHit | null;
  reason: string | null;
  log_entries: number;
  artifact_count: number;
  /** artifacts/ entries not collected (symlinks, devices, over the caps). */
  artifacts_skipped: string[];
  isolation: RunIsolationDoc | null;
  cancel_requested: boolean;
  cancel_reason: string | null;
  workflow_id: string;
  /** Activity attempts that started (a lost worker never re-runs a started command; see docs/sandbox.md). */
  attempts: number;
  actor: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  /** Real time (ms) when the run was handed to the engine; reconciliation grace, never shown. */
  enqueued_wall_ms: number;
}

export interface LogEntryDoc {
  /** `<run _id>:<seq, zero-padded>`: unique, so a repeated batch write is harmless. */
  _id: string;
  run_key: string;
  seq: number;
  stream: 'stdout' | 'stderr';
  text: string;
  bytes: number;
  at: string;
}

export interface ArtifactDoc {
  _id: string;
  run_key: string;
  path: string;
  size: number;
  /** First bytes of the file (at most the per-file cap); null when not stored. */
  content: Uint8Array | null;
  truncated: boolean;
  sha256: string | null;
  not_stored_reason: string | null;
}

export function toSessionWire(s: SessionDoc, extra: { limit_caps: Limits; shell_allowed: boolean; allowed_commands: string[] | null; workdir: string }): SessionRecordWire {
  return {
    session_id: s.session_id,
    profile: s.profile,
    isolation: s.isolation,
    limits: s.limits,
    limit_caps: extra.limit_caps,
    shell_allowed: extra.shell_allowed,
    allowed_commands: extra.allowed_commands,
    workdir: extra.workdir,
    workspace: s.workspace ? { path: s.workspace.path, view: 'copy' } : null,
    actor: s.actor,
    created_at: s.created_at,
    last_run_at: s.last_run_at ?? null,
    workdir_removed_at: s.workdir_removed_at ?? null,
  };
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

/** What a finished (or settled) run looks like when it ends without the runner's outcome. */
export interface Settlement {
  status: TerminalStatus;
  reason: string;
}
