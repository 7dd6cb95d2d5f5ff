/**
 * Types of the low-level isolation runner.
 *
 * This module is pure process plumbing: no HTTP, no MongoDB, no Temporal.
 * The sandbox service above it maps RunOutcome onto the run record of the
 * wire contract (§8): status, exit_code, signal, duration_ms, stdout_tail,
 * stderr_tail, truncated.
 */

import type { IsolationKind, LimitHit, LogStream, MemoryLimit, TerminalStatus, WorkspaceView } from '../../model/sandbox/records';

export type { IsolationKind } from '../../model/sandbox/records';

export type OutputStream = LogStream;

/** The limits the runner enforces, named as a run's limit_hit names them. */
export type LimitName = LimitHit;

export type RunStatus = TerminalStatus;

/** What the host offers, as found by a real probe (see detectIsolation). */
export interface IsolationInfo {
  /** Best isolation this host can give. 'none' means only rlimits, env scrubbing, cwd and tree kill. */
  kind: IsolationKind;
  /** bubblewrap version string, e.g. "0.8.0", when bubblewrap works. */
  version?: string;
  /** Why bubblewrap is not used (missing, probe failed, ...), or other caveats. */
  reason?: string;
  /**
   * True when every run gets its own unprivileged uid (we are root). Without it the process
   * limit cannot be enforced per run and stray processes cannot be swept by uid.
   */
  uid_isolation: boolean;
  /**
   * How memory is limited: 'cgroup' = the whole process tree of a run in its own cgroup v1 memory
   * group (plus RLIMIT_DATA per process); 'rlimit_data' = RLIMIT_DATA per process only.
   */
  memory_limit: MemoryLimit;
  /** Absolute paths of the helper binaries found on this host. */
  bwrap_path?: string;
  prlimit_path?: string;
  /**
   * How a workspace can be seen (overlay.ts): 'overlay' when the probe mounted one through the full
   * chain; else 'copy', and workspace_reason says why.
   */
  workspace_view: WorkspaceView;
  workspace_reason?: string;
}

export interface RunLimits {
  /** Wall-clock limit in ms, measured from spawn; the process tree is killed when it passes. */
  wallMs: number;
  /** RLIMIT_CPU (per process): SIGXCPU at this many seconds, SIGKILL one second later. */
  cpuSeconds: number;
  /**
   * Memory in bytes: RLIMIT_DATA per process, and the memory cgroup limit of the whole run (resident
   * memory, page cache, tmpfs) when cgroups are usable. Also caps the private /tmp and /dev/shm.
   */
  memoryBytes: number;
  /** RLIMIT_NPROC for the run's private uid: processes (and threads) the command may have at once. */
  maxProcesses: number;
  /** RLIMIT_FSIZE: largest file the command may write, in bytes. */
  maxFileBytes: number;
  /** stdout + stderr bytes delivered before the tree is killed and the run marked truncated. */
  maxOutputBytes: number;
  /** RLIMIT_NOFILE. Default 1024. */
  maxOpenFiles?: number;
  /** Size of the private tmpfs /tmp (and /dev/shm) in bubblewrap mode. Default min(memoryBytes, 256 MiB). */
  tmpBytes?: number;
}

export interface RunSpec {
  /** argv only; argv[0] is looked up on the sandbox PATH. Never passed through a shell by the runner. */
  argv: string[];
  /** Host path of the session workdir (from prepareWorkdir). Mounted at /work in bubblewrap mode. */
  workdir: string;
  /** Extra environment for the command (already scrubbed by the caller). Added on top of the minimal env. */
  env?: Record<string, string>;
  limits: RunLimits;
  /** When false, argv[0] must not be a shell (see isShell); the run is refused. Undefined: no check. */
  shell?: boolean;
  isolation: IsolationKind;
  /**
   * A workspace directory (its resolved real path) the command sees at /work through an overlay
   * whose upper layer is the workdir (overlay.ts). Bubblewrap only, and only where the probe found
   * overlays usable (IsolationInfo.workspace_view); otherwise the run is refused.
   */
  workspace?: string;
}

export interface RunHooks {
  /** Called in order with a sequence number that increases across both streams (first chunk: seq 0). */
  onOutput(stream: OutputStream, chunk: string, seq: number): void;
  /** Abort to cancel: the whole process tree is killed and the run ends 'cancelled'. */
  signal?: AbortSignal;
  /** Called once the host process (prlimit → bwrap, or the command in 'none' mode) is spawned. */
  onStart?(pid: number): void;
}

/** What was in force for one run. */
export interface RunIsolationReport {
  kind: IsolationKind;
  version?: string;
  uid_isolation: boolean;
  /** Host uid/gid the command ran as (null when not root). */
  uid: number | null;
  gid: number | null;
  /** How memory was limited for this run (see IsolationInfo.memory_limit). */
  memory_limit: MemoryLimit;
  /** Which limits the runner actually enforced for this run. */
  enforced: Record<LimitName, boolean>;
  /** Plain statement of what this isolation does not protect against. */
  weaker?: string;
}

export interface RunOutcome {
  status: RunStatus;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  /** Last ~4 KiB of each stream as delivered (UTF-8 decoded). */
  stdout_tail: string;
  stderr_tail: string;
  /** Bytes delivered through onOutput (stdout + stderr). */
  output_bytes: number;
  /** Bytes the command wrote after the output limit was reached, and that were dropped. */
  dropped_bytes: number;
  truncated: boolean;
  limit_hit?: LimitName;
  /** Human readable explanation of how the run ended. */
  reason?: string;
  isolation: RunIsolationReport;
}
