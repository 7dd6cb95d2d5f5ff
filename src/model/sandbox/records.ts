/**
 * Stored shapes of the sandbox family. The store keeps these documents; the wire records
 * (contract/families/sandbox.ts) are derived from them by toSessionWire / toRunWire
 * (src/domain/sandbox/wire.ts).
 */

import type { Limits } from './limits';

export type { Limits } from './limits';

export const SANDBOX_PROFILES = ['default', 'local-safe'] as const;
export type Profile = (typeof SANDBOX_PROFILES)[number];
export const SANDBOX_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'timed_out', 'cancelled'] as const;
export type RunStatus = (typeof SANDBOX_RUN_STATUSES)[number];
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'timed_out', 'cancelled'] as const satisfies readonly RunStatus[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
/** sync answers when the run ends; async answers at once (runs/get, runs/wait). */
export const SANDBOX_RUN_MODES = ['sync', 'async'] as const;
export type RunMode = (typeof SANDBOX_RUN_MODES)[number];
/** What an execute request asks the sandbox to do. */
export const ACTION_KINDS = ['command'] as const;
/** Which limit stopped a run. */
export const LIMIT_HITS = ['wall_time', 'cpu_time', 'memory', 'processes', 'file_size', 'output_bytes'] as const;
export type LimitHit = (typeof LIMIT_HITS)[number];
export const LOG_STREAMS = ['stdout', 'stderr'] as const;
export type LogStream = (typeof LOG_STREAMS)[number];

export const isTerminal = (s: RunStatus): s is TerminalStatus => (TERMINAL_STATUSES as readonly string[]).includes(s);

/** bubblewrap, or none (the command runs as the worker's user, with rlimits only). */
export const ISOLATION_KINDS = ['bubblewrap', 'none'] as const;
export type IsolationKind = (typeof ISOLATION_KINDS)[number];
/** none: a private network namespace with only its own loopback; host: the host's network. */
export const NETWORK_MODES = ['none', 'host'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];
/** cgroup: the whole run's memory (plus RLIMIT_DATA per process); rlimit_data: per process only. */
export const MEMORY_LIMITS = ['cgroup', 'rlimit_data'] as const;
export type MemoryLimit = (typeof MEMORY_LIMITS)[number];

export interface SessionIsolation {
  kind: IsolationKind;
  version: string | null;
  network: NetworkMode;
  filesystem: string;
  uid_isolation: boolean;
  memory_limit: MemoryLimit;
  weaker: string | null;
}

/**
 * How a session's commands see its workspace: through a kernel overlay whose upper layer is the
 * workdir, or through a copy brought up to date before each run (where no overlay can be mounted).
 */
export const WORKSPACE_VIEWS = ['overlay', 'copy'] as const;
export type WorkspaceView = (typeof WORKSPACE_VIEWS)[number];
/** How a workspace entry changed, and what it is now (for a deletion: what was deleted). */
export const WORKSPACE_CHANGES = ['added', 'modified', 'deleted'] as const;
export type WorkspaceChange = (typeof WORKSPACE_CHANGES)[number];
export const WORKSPACE_ENTRY_KINDS = ['file', 'directory', 'symlink', 'other'] as const;
export type WorkspaceEntryKind = (typeof WORKSPACE_ENTRY_KINDS)[number];
/** How file content travels in an answer. */
export const CONTENT_ENCODINGS = ['utf8', 'base64'] as const;
/** Why an answer carries no content: not in the store, or over the answer's budget. */
export const CONTENT_OMISSIONS = ['not_stored', 'too_large_for_response'] as const;
/** The same values in the order runs/artifact has always published them (the OpenAPI document keeps it). */
export const ARTIFACT_CONTENT_OMISSIONS = ['too_large_for_response', 'not_stored'] as const satisfies readonly (typeof CONTENT_OMISSIONS)[number][];

export interface SessionWorkspace {
  path: string;
  /** Absent on sessions made before overlays: they were copies. */
  view?: WorkspaceView;
  /** Why a copy: the worker's reason it could not mount an overlay. */
  view_detail?: string | null;
}

export interface SessionDoc {
  /** Server id; also names the host workdir, so caller-chosen session ids of two tenants never share one. */
  _id: string;
  session_id: string;
  profile: Profile;
  isolation: SessionIsolation;
  limits: Limits;
  workdir_name: string;
  /** The host directory the session's commands see copy-on-write (absent or null: a plain workdir). */
  workspace?: SessionWorkspace | null;
  actor: string;
  created_at: string;
  /** When the session's latest run was created (absent before its first run). */
  last_run_at?: string;
  /** When workdir retention last removed the workdir's files (absent if never). */
  workdir_removed_at?: string;
}

export interface RunIsolationDoc {
  kind: IsolationKind;
  uid_isolation: boolean;
  memory_limit: MemoryLimit;
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
  mode: RunMode;
  status: RunStatus;
  argv: string[];
  env: Record<string, string>;
  limits: Limits;
  isolation_kind: IsolationKind;
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
  /** A workspace session's changes (files added, modified, deleted) as read when this run ended; absent otherwise. */
  workspace_changes?: WorkspaceChangeCounts | null;
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

export interface WorkspaceChangeCounts {
  added: number;
  modified: number;
  deleted: number;
  /** More changes than were listed (the diff keeps the first WORKSPACE_DIFF_CAPS.changes). */
  truncated: boolean;
}

/** One change of a workspace session's layer against its project, as stored. */
export interface WorkspaceChangeDoc {
  path: string;
  change: WorkspaceChange;
  kind: WorkspaceEntryKind;
  size: number | null;
  mode: number | null;
  link: string | null;
  sha256: string | null;
  /** Files whose content is not in the store, and why (null when it is, and for everything but files). */
  not_stored_reason: string | null;
}

/**
 * What a workspace session has changed, read when one of its runs ended (the latest read replaces
 * the one before). One per session: `_id` is the session's server id.
 */
export interface WorkspaceDiffDoc {
  _id: string;
  session_id: string;
  /** The run at whose end it was read. */
  run_key: string;
  run_id: string;
  view: WorkspaceView;
  workspace_path: string;
  read_at: string;
  /** Orders reads of concurrent runs' ends: a read never replaces a later one. */
  seq: number;
  counts: WorkspaceChangeCounts;
  changes: WorkspaceChangeDoc[];
}

/** The content of a changed file of a session's layer, by SHA-256 (one copy per session). */
export interface WorkspaceBlobDoc {
  /** `<session key>:<sha256>`. */
  _id: string;
  session_key: string;
  sha256: string;
  size: number;
  content: Uint8Array;
  /** Only the first bytes are kept (over the per-file cap). */
  truncated: boolean;
}

export interface LogEntryDoc {
  /** `<run _id>:<seq, zero-padded>`: unique, so a repeated batch write is harmless. */
  _id: string;
  run_key: string;
  seq: number;
  stream: LogStream;
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
