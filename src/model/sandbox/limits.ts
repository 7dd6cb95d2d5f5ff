/**
 * A sandbox run's resource limits: their names, the defaults applied when neither the session nor
 * the execute request sets one, and the most anyone may ask for. The contract's `Limits` and
 * `LimitsInput` are built from LIMIT_NAMES (src/contract/families/sandbox.ts).
 */

const MiB = 1024 * 1024;

export const LIMIT_NAMES = ['wall_ms', 'cpu_seconds', 'memory_bytes', 'max_processes', 'max_file_bytes', 'max_output_bytes'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** A run's resource limits as stored; the same fields as the contract's `Limits`. */
export type Limits = Record<LimitName, number>;

/** Defaults applied when neither the session nor the execute request sets a limit. */
export const LIMIT_DEFAULTS = {
  wall_ms: 30_000,
  cpu_seconds: 30,
  memory_bytes: 512 * MiB,
  max_processes: 64,
  max_file_bytes: 64 * MiB,
  max_output_bytes: 1 * MiB,
} as const satisfies Limits;

/** The most any session or execute request may ask for. */
export const LIMIT_CAPS = {
  wall_ms: 600_000,
  cpu_seconds: 600,
  memory_bytes: 4096 * MiB,
  max_processes: 512,
  max_file_bytes: 1024 * MiB,
  max_output_bytes: 16 * MiB,
} as const satisfies Limits;

/** What a workspace session's diff keeps: changes listed, and the changed files' contents stored (per file, and new per run). */
export const WORKSPACE_DIFF_CAPS = { changes: 10_000, fileBytes: 1 * MiB, runBytes: 8 * MiB } as const;
