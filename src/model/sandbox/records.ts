/**
 * Stored shapes of the sandbox family. The store keeps these documents; the wire records
 * (contract/families/sandbox.ts) are derived from them by toSessionWire / toRunWire
 * (src/domain/sandbox/wire.ts).
 */

export const TERMINAL_STATUSES = ['succeeded', 'failed', 'timed_out', 'cancelled'] as const;

/** A run's resource limits as stored; the same fields as the contract's `Limits`. */
export interface Limits {
  wall_ms: number;
  cpu_seconds: number;
  memory_bytes: number;
  max_processes: number;
  max_file_bytes: number;
  max_output_bytes: number;
}

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

/** What a finished (or settled) run looks like when it ends without the runner's outcome. */
export interface Settlement {
  status: TerminalStatus;
  reason: string;
}
