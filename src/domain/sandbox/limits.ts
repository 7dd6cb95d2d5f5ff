import { LIMIT_CAPS, LIMIT_DEFAULTS, LIMIT_NAMES, type Limits } from '../../model/sandbox/limits';
import type { RunLimits } from '../../sandbox/isolation/index';

export type LimitOverrides = Partial<Limits>;

/** Layered limits: built-in defaults, then the session's, then the request's (each already within its cap). */
export function resolveLimits(...layers: (LimitOverrides | undefined)[]): Limits {
  const out: Limits = { ...LIMIT_DEFAULTS };
  for (const layer of layers) {
    if (!layer) continue;
    for (const k of LIMIT_NAMES) {
      const v = layer[k];
      if (typeof v === 'number') out[k] = Math.min(v, LIMIT_CAPS[k]);
    }
  }
  return out;
}

export const limitCaps = (): Limits => ({ ...LIMIT_CAPS });

/** The runner's view of the limits. */
export function toRunnerLimits(l: Limits): RunLimits {
  return {
    wallMs: l.wall_ms,
    cpuSeconds: l.cpu_seconds,
    memoryBytes: l.memory_bytes,
    maxProcesses: l.max_processes,
    maxFileBytes: l.max_file_bytes,
    maxOutputBytes: l.max_output_bytes,
  };
}
