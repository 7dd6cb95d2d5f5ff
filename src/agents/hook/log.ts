import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The hooks' log: <data dir>/logs/hooks.log, one JSON object per line. A hook never writes to the
 * agent's terminal (stderr of a hook is shown to the user or the model), so whatever went wrong
 * — Lore down or slow, an error answer, malformed input — is written here. Kept under 1 MiB:
 * the file is moved to hooks.log.1 when it passes that.
 */

const MAX_BYTES = 1024 * 1024;

export interface HookLog {
  readonly path: string;
  problem(event: string | null, message: string, fields?: Record<string, unknown>): void;
}

export const hookLogPath = (dataDir: string) => join(dataDir, 'logs', 'hooks.log');

export function createHookLog(dataDir: string): HookLog {
  const path = hookLogPath(dataDir);
  return {
    path,
    problem(event, message, fields = {}) {
      try {
        mkdirSync(dirname(path), { recursive: true });
        try {
          if (statSync(path).size > MAX_BYTES) renameSync(path, `${path}.1`);
        } catch {
          // no log yet
        }
        appendFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), pid: process.pid, event, message, ...fields })}\n`, { mode: 0o600 });
      } catch {
        // Nowhere left to report to; the hook still answers.
      }
    },
  };
}
