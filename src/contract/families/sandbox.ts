import { z } from 'zod';
import { CallerId, Timestamp, countsOf, identityFields, pageInputFields, pageOutputFields, waitInputFields, waitOutputFields } from '../common';
import { route } from '../route';
import { LIMIT_CAPS, LIMIT_NAMES, WORKSPACE_DIFF_CAPS, type LimitName } from '../../model/sandbox/limits';
import {
  ACTION_KINDS,
  ARTIFACT_CONTENT_OMISSIONS,
  CONTENT_ENCODINGS,
  CONTENT_OMISSIONS,
  ISOLATION_KINDS,
  LIMIT_HITS,
  LOG_STREAMS,
  MEMORY_LIMITS,
  NETWORK_MODES,
  SANDBOX_PROFILES,
  SANDBOX_RUN_MODES,
  SANDBOX_RUN_STATUSES,
  WORKSPACE_CHANGES,
  WORKSPACE_ENTRY_KINDS,
  WORKSPACE_VIEWS,
} from '../../model/sandbox/records';

/**
 * Sandbox routes (interface spec "Sandbox", contract.md §8). Record shapes and limits are
 * documented in docs/sandbox.md; the defaults and caps of a run's limits are in src/model/sandbox/limits.ts.
 */

const MiB = 1024 * 1024;

const capped = (name: keyof typeof LIMIT_CAPS, min: number) => z.number().int().min(min).max(LIMIT_CAPS[name], `must be at most ${LIMIT_CAPS[name]} (the cap for ${name})`);

/** Per-session or per-execute limit overrides; each within its cap. Closed: an unknown limit is validation_failed, never ignored. */
export const LimitsInput = z.strictObject({
  wall_ms: capped('wall_ms', 100).optional().describe('wall-clock limit; the process tree is killed when it passes'),
  cpu_seconds: capped('cpu_seconds', 1).optional().describe('CPU seconds per process (RLIMIT_CPU)'),
  memory_bytes: capped('memory_bytes', 16 * MiB)
    .optional()
    .describe('memory of the whole run (cgroup) and per process (RLIMIT_DATA)'),
  max_processes: capped('max_processes', 1).optional().describe('processes and threads at once'),
  max_file_bytes: capped('max_file_bytes', 1).optional().describe('largest file the command may write'),
  max_output_bytes: capped('max_output_bytes', 1024).optional().describe('stdout + stderr kept; past it the tree is killed and the run marked truncated'),
} satisfies Record<LimitName, z.ZodType>);

export const Limits = countsOf(LIMIT_NAMES);
export type Limits = z.infer<typeof Limits>;

const MAX_ARGV = 256;
const MAX_ARG_BYTES = 16 * 1024;
const MAX_ARGV_TOTAL = 64 * 1024;

const Arg = z
  .string()
  .max(MAX_ARG_BYTES, `each argument is at most ${MAX_ARG_BYTES} characters`)
  .refine((a) => !a.includes('\u0000'), 'must not contain NUL');

export const Argv = z
  .array(Arg)
  .min(1, 'argv needs at least the program')
  .max(MAX_ARGV, `at most ${MAX_ARGV} arguments`)
  .refine((argv) => argv[0] !== undefined && argv[0].trim() !== '', 'argv[0] (the program) must not be empty')
  .refine((argv) => argv.reduce((n, a) => n + Buffer.byteLength(a), 0) <= MAX_ARGV_TOTAL, `argv is at most ${MAX_ARGV_TOTAL} bytes in all`);

const EnvName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const CommandEnv = z
  .record(
    z.string().regex(EnvName, 'environment names are [A-Za-z_][A-Za-z0-9_]*'),
    z
      .string()
      .max(4096)
      .refine((v) => !v.includes('\u0000'), 'must not contain NUL'),
  )
  .refine((e) => Object.keys(e).length <= 64, 'at most 64 environment variables');

/** Closed like every options object: a key Lore does not know (cwd, timeout, …) is validation_failed, not silently dropped. */
export const Action = z.strictObject({
  kind: z.enum(ACTION_KINDS, { error: "action.kind must be 'command'" }),
  argv: Argv.describe('program then arguments; run directly, never through a shell unless argv[0] is one and the profile allows it'),
  env: CommandEnv.optional().describe('extra environment for the command; nothing of the runtime’s environment is passed'),
});

/** A host directory the sandbox sees copy-on-write (docs/sandbox.md, "Workspaces"). */
export const WorkspaceInput = z
  .object({ path: z.string().min(1).max(4096).describe('absolute host path of a directory under one of LORE_SANDBOX_WORKSPACE_ROOTS') })
  .describe(
    'a project directory the commands see copy-on-write at /work: they read it and the host’s latest edits, their writes stay in the sandbox, the directory is never modified',
  );

const Isolation = z.object({
  kind: z.enum(ISOLATION_KINDS),
  version: z.string().nullable().describe('bubblewrap version'),
  network: z.enum(NETWORK_MODES).describe('none: a private network namespace with only its own loopback'),
  filesystem: z.string().describe('what the command can see and write'),
  uid_isolation: z.boolean().describe('each run gets its own unprivileged host uid'),
  memory_limit: z.enum(MEMORY_LIMITS),
  weaker: z.string().nullable().describe('what this isolation does not protect against, when weaker than the full design'),
});

export const SessionRecord = z.object({
  session_id: z.string(),
  profile: z.enum(SANDBOX_PROFILES),
  isolation: Isolation,
  limits: Limits.describe('defaults for runs of this session'),
  limit_caps: Limits.describe('the most an execute request may ask for'),
  shell_allowed: z.boolean(),
  allowed_commands: z.array(z.string()).nullable().describe('local-safe: the argv[0] allowlist; null when any program may run'),
  workdir: z.string().describe('path of the session workdir inside the sandbox (cwd of every run); files under artifacts/ form each run’s artifact bundle'),
  workspace: z
    .object({
      path: z.string().describe('the resolved host path'),
      view: z
        .enum(WORKSPACE_VIEWS)
        .describe(
          'how the commands see it: overlay = mounted copy-on-write for each run (the session’s writes in its own layer); copy = a copy brought up to date before each run',
        ),
      detail: z.string().nullable().describe('copy: why no overlay is mounted'),
    })
    .nullable()
    .describe('the workspace the commands see at /work, null for a plain (empty) workdir'),
  actor: z.string(),
  created_at: Timestamp,
  last_run_at: Timestamp.nullable().describe('when the latest run of the session was created; null before the first'),
  workdir_removed_at: Timestamp.nullable().describe(
    'when the workdir was last removed after being idle for LORE_SANDBOX_WORKDIR_TTL (its files are gone; the next run starts in an empty workdir); null if never',
  ),
});

const ChangeCounts = z.object({
  added: z.number().int(),
  modified: z.number().int(),
  deleted: z.number().int(),
  truncated: z.boolean().describe(`more than ${WORKSPACE_DIFF_CAPS.changes} changes: only the first were listed and counted`),
});

const RunIsolation = z.object({
  kind: z.enum(ISOLATION_KINDS),
  uid_isolation: z.boolean(),
  memory_limit: z.enum(MEMORY_LIMITS),
  enforced: z.record(z.string(), z.boolean()).describe('which limits were enforced for this run'),
  weaker: z.string().nullable(),
});

export const RunRecord = z.object({
  run_id: z.string(),
  session_id: z.string(),
  profile: z.enum(SANDBOX_PROFILES),
  mode: z.enum(SANDBOX_RUN_MODES),
  status: z.enum(SANDBOX_RUN_STATUSES),
  argv: z.array(z.string()),
  limits: Limits,
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  stdout_tail: z.string().describe('last ~4 KiB of stdout'),
  stderr_tail: z.string().describe('last ~4 KiB of stderr'),
  truncated: z.boolean().describe('output passed max_output_bytes; the rest was dropped'),
  output_bytes: z.number().int(),
  dropped_bytes: z.number().int(),
  limit_hit: z.enum(LIMIT_HITS).nullable(),
  reason: z.string().nullable().describe('how the run ended, in words'),
  log_entries: z.number().int().describe('log entries stored so far (runs/logs)'),
  artifact_count: z.number().int(),
  isolation: RunIsolation.nullable().describe('what was in force for this run (null until it starts)'),
  workspace_changes: ChangeCounts.nullable().describe(
    'a workspace session: what the session had changed in its workspace (files added, modified, deleted) when this run ended; sessions/diff lists them. null otherwise, or while the run is going',
  ),
  cancel_requested: z.boolean(),
  workflow_id: z.string().describe('the Temporal workflow of this run'),
  temporal_ui_url: z.string().nullable().describe("the workflow's page in the Temporal UI (null when Lore does not know the UI's address: LORE_TEMPORAL_UI_URL)"),
  actor: z.string(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  updated_at: Timestamp,
});
export type RunRecordWire = z.infer<typeof RunRecord>;
export type SessionRecordWire = z.infer<typeof SessionRecord>;

const runRef = { ...identityFields, run_id: CallerId };

export const sandboxRoutes = {
  'sandbox.createSession': route({
    name: 'sandbox.createSession',
    path: '/v1/memory/sandbox/sessions',
    aliases: ['/v1/memory/sandbox/sessions/create'],
    summary: 'Create a sandbox session: a private workdir, a profile (default or local-safe) and default limits. Says which isolation is in force.',
    input: z.object({
      ...identityFields,
      profile: z.enum(SANDBOX_PROFILES, { error: "profile must be 'default' or 'local-safe'" }).default('default'),
      session_id: CallerId.optional().describe('chosen by the caller; the same id and profile again returns the existing session'),
      limits: LimitsInput.optional().describe('defaults for runs of this session (each within its cap)'),
      workspace: WorkspaceInput.optional(),
    }),
    output: z.object({ session_id: z.string(), created: z.boolean(), session: SessionRecord }),
    errors: ['conflict', 'sandbox_disabled', 'overloaded'],
  }),
  'sandbox.getSession': route({
    name: 'sandbox.getSession',
    path: '/v1/memory/sandbox/sessions/get',
    summary: 'One sandbox session.',
    input: z.object({ ...identityFields, session_id: CallerId }),
    output: z.object({ session: SessionRecord }),
    errors: ['not_found', 'sandbox_disabled'],
  }),
  'sandbox.sessionDiff': route({
    name: 'sandbox.sessionDiff',
    path: '/v1/memory/sandbox/sessions/diff',
    summary:
      'What a workspace session has changed: the files added, modified and deleted against its project (an overlay’s upper layer, or the copy’s changes), as read when its latest run ended, with the changed files’ contents, so a host can show or apply them. The project itself is never written.',
    input: z.object({
      ...identityFields,
      session_id: CallerId,
      include_content: z.boolean().default(true).describe('the changed files’ contents (utf8 or base64); false: the list only'),
      paths: z.array(z.string().min(1).max(4096)).max(1000).optional().describe('only these paths (relative to the workspace, as listed)'),
    }),
    output: z.object({
      session_id: z.string(),
      workspace: z.object({ path: z.string(), view: z.enum(WORKSPACE_VIEWS) }),
      read: z
        .object({ run_id: z.string(), read_at: Timestamp })
        .nullable()
        .describe('the run at whose end the changes were read (a later run replaces them); null before any run of the session ended'),
      summary: ChangeCounts,
      changes: z.array(
        z.object({
          path: z.string().describe('relative to the workspace, / separated'),
          change: z.enum(WORKSPACE_CHANGES),
          kind: z.enum(WORKSPACE_ENTRY_KINDS).describe('what the entry is now (for a deletion: what was deleted)'),
          size: z.number().int().nullable().describe('files: bytes now'),
          mode: z.string().nullable().describe('permission bits now, octal (e.g. "0644"); null for links and deletions'),
          link: z.string().nullable().describe('links: the target now'),
          sha256: z.string().nullable().describe('files: SHA-256 of the content now'),
          encoding: z.enum(CONTENT_ENCODINGS).nullable(),
          content: z.string().nullable().describe('files: the content now; null when not asked for, not stored or over this response’s budget (see omitted)'),
          truncated: z.boolean().describe(`only the first ${WORKSPACE_DIFF_CAPS.fileBytes} bytes are stored`),
          omitted: z.enum(CONTENT_OMISSIONS).nullable(),
        }),
      ),
      message: z.string().optional(),
    }),
    errors: ['not_found', 'invalid_state', 'sandbox_disabled'],
  }),
  'sandbox.execute': route({
    name: 'sandbox.execute',
    path: '/v1/memory/sandbox/execute',
    summary: 'Run a command (argv) in a session as a Temporal workflow. mode sync waits for the end (bounded by wait_ms); async returns the queued run at once.',
    input: z.object({
      ...identityFields,
      session_id: CallerId,
      mode: z.enum(SANDBOX_RUN_MODES, { error: "mode must be 'sync' or 'async'" }).default('sync'),
      action: Action,
      run_id: CallerId.optional().describe('chosen by the caller; the same id with the same command returns the existing run'),
      limits: LimitsInput.optional().describe('overrides of the session’s limits for this run (each within its cap)'),
      timeout_ms: LimitsInput.shape.wall_ms.describe('shorthand for limits.wall_ms'),
      wait_ms: z
        .number()
        .int()
        .min(0)
        .max(LIMIT_CAPS.wall_ms + 60_000)
        .optional()
        .describe('sync: how long to wait (default wall_ms + 15 s, at most 5 min)'),
    }),
    output: z.object({
      run_id: z.string(),
      completed: z.boolean().describe('false when the run has not ended yet (async, or the sync wait ran out: the run goes on)'),
      message: z.string().optional(),
      run: RunRecord,
    }),
    errors: ['not_found', 'conflict', 'command_not_allowed', 'sandbox_disabled'],
  }),
  'sandbox.getRun': route({
    name: 'sandbox.getRun',
    path: '/v1/memory/sandbox/runs/get',
    summary:
      'The run record: status, exit code, signal, duration, output tails, limits and isolation. With wait_ms (at most 30 s), answers as soon as `until` holds (not_queued, paused_or_done = done, or a change since a version), or with the current state at the deadline.',
    input: z.object({ ...runRef, ...waitInputFields }),
    output: z.object({ run: RunRecord, ...waitOutputFields }),
    errors: ['not_found', 'sandbox_disabled'],
  }),
  'sandbox.runs.list': route({
    name: 'sandbox.runs.list',
    path: '/v1/memory/sandbox/runs/list',
    summary:
      'Sandbox runs of the scope, newest first, optionally of one session (a session that does not exist is not_found), as stored (a run whose worker died shows its stored status until runs/get reconciles it); cursor pagination.',
    input: z.object({ ...identityFields, ...pageInputFields, session_id: CallerId.optional() }),
    output: z.object({ runs: z.array(RunRecord), ...pageOutputFields }),
    errors: ['not_found', 'sandbox_disabled'],
  }),
  'sandbox.runLogs': route({
    name: 'sandbox.runLogs',
    path: '/v1/memory/sandbox/runs/logs',
    summary: 'Output of a run as ordered log entries with sequence numbers; page with cursor.',
    input: z.object({
      ...runRef,
      limit: z.number().int().min(1).max(1000).default(200),
      cursor: z
        .string()
        .regex(/^\d{1,12}$/, 'cursor is the next_cursor of a previous page')
        .optional(),
      stream: z.enum(LOG_STREAMS).optional().describe('only this stream'),
    }),
    output: z.object({
      run_id: z.string(),
      status: z.enum(SANDBOX_RUN_STATUSES),
      logs: z.array(
        z.object({
          seq: z.number().int().describe('0, 1, 2, … in the order the output arrived, across both streams'),
          stream: z.enum(LOG_STREAMS),
          text: z.string(),
          bytes: z.number().int(),
          at: Timestamp,
        }),
      ),
      next_cursor: z.string().nullable().describe('null when no more entries are stored; while the run is going, more may come later'),
      complete: z.boolean().describe('the run has ended and every entry has been returned'),
    }),
    errors: ['not_found', 'sandbox_disabled'],
  }),
  'sandbox.runArtifact': route({
    name: 'sandbox.runArtifact',
    path: '/v1/memory/sandbox/runs/artifact',
    summary: 'The run’s bundle: its output, its result, and the files it wrote under artifacts/ (utf8 or base64).',
    input: z.object({
      ...runRef,
      include_output: z.boolean().default(true),
      include_result: z.boolean().default(true),
      include_files: z.boolean().default(true),
      paths: z.array(z.string().min(1).max(1024)).max(100).optional().describe('only these files (relative to artifacts/)'),
    }),
    output: z.object({
      run_id: z.string(),
      status: z.enum(SANDBOX_RUN_STATUSES),
      complete: z.boolean().describe('the run has ended; the bundle will not change'),
      output: z
        .object({
          stdout: z.string(),
          stderr: z.string(),
          stdout_bytes: z.number().int(),
          stderr_bytes: z.number().int(),
          truncated: z.boolean().describe('the command’s output was cut at max_output_bytes'),
          clipped: z.boolean().describe('this response holds less than was stored (use runs/logs for all of it)'),
        })
        .optional(),
      result: z
        .object({
          status: z.enum(SANDBOX_RUN_STATUSES),
          exit_code: z.number().int().nullable(),
          signal: z.string().nullable(),
          duration_ms: z.number().int().nullable(),
          reason: z.string().nullable(),
          limit_hit: z.string().nullable(),
          truncated: z.boolean(),
        })
        .optional(),
      files: z
        .array(
          z.object({
            path: z.string(),
            size: z.number().int().describe('size on disk when the run ended'),
            encoding: z.enum(CONTENT_ENCODINGS).nullable(),
            content: z.string().nullable().describe('null when not stored or over this response’s budget (see omitted)'),
            truncated: z.boolean().describe('only the first stored bytes are kept'),
            sha256: z.string().nullable(),
            omitted: z.enum(ARTIFACT_CONTENT_OMISSIONS).nullable(),
          }),
        )
        .optional(),
      files_skipped: z.array(z.string()).optional().describe('entries not collected: symlinks, devices, over the caps'),
    }),
    errors: ['not_found', 'sandbox_disabled'],
  }),
  'sandbox.cancelRun': route({
    name: 'sandbox.cancelRun',
    path: '/v1/memory/sandbox/runs/cancel',
    summary: 'Cancel a queued or running run: its whole process tree is killed. Cancelling a finished run is invalid_state.',
    input: z.object({ ...runRef, reason: z.string().max(1000).optional() }),
    output: z.object({ run: RunRecord, message: z.string().optional() }),
    errors: ['not_found', 'invalid_state', 'sandbox_disabled'],
  }),
} as const;
