import { LoreError } from '../../contract/errors';
import type { Engine } from '../../engine/engine';
import type { Log } from '../../log';
import type { Database } from '../../store/database';
import { familyStores } from '../../store/family-stores';
import { SandboxArtifacts, SandboxLogs, SandboxRuns, SandboxSessions } from '../../store/sandbox/index';
import type { Clock } from '../../model/clock';
import type { RunWaiter } from '../runs/wait';
import type { UiLink } from '../temporal-ui';
import type { RunDoc } from '../../model/sandbox/records';
import { loadRunRecord } from '../runs/index';

/**
 * The settings the sandbox family reads (LORE_SANDBOX_*, SANDBOX_ENABLED; docs/configuration.md),
 * handed in by the app (src/app/settings.ts) or the worker; the shape of Config's own sections, so
 * either may hand in its Config whole.
 */
export interface SandboxSettings {
  readonly sandbox: {
    readonly enabled: boolean;
    readonly isolation: 'auto' | 'bubblewrap' | 'none';
    /** null: the first bwrap found in the system directories. */
    readonly bwrapPath: string | null;
    /** Where session workdirs live. */
    readonly dir: string;
    readonly idRange: { readonly min: number; readonly max: number };
    /** A session workdir idle this long is removed; 0 keeps workdirs. */
    readonly workdirTtlMs: number;
    /** Host directories a session may name a workspace under (empty: no workspaces). */
    readonly workspaceRoots: readonly string[];
    readonly workspaceView: 'auto' | 'copy';
  };
  /** The task queue whose worker runs the commands and reports the host's isolation. */
  readonly temporal: { readonly taskQueue: string };
}

/** What the sandbox routes use. */
export interface SandboxCtx {
  /** The sandbox's settings (named `config` where the worker's activities build this context). */
  config: SandboxSettings;
  db: Database;
  engine: Engine;
  clock: Clock;
  log: Log;
  /** Long-polling reads of runs/get (wait_ms); absent where nothing waits (the worker's runner). */
  waiter?: RunWaiter;
  uiLink?: UiLink;
}

export const SANDBOX_WORKFLOW = 'sandboxRunWorkflow';

/** One workflow per run, named by the run's server id (caller run_ids may repeat across scopes). */
export const workflowIdOf = (runKey: string) => `sandbox-run-${runKey}`;

/** The sandbox stores of one tenant+scope. */
export const sandboxStores = familyStores({ sessions: SandboxSessions, runs: SandboxRuns, logs: SandboxLogs, artifacts: SandboxArtifacts });

/** Every sandbox route starts here: the spec says configuration is the first thing to check. */
export function requireEnabled(config: { readonly sandbox: { readonly enabled: boolean } }): void {
  if (!config.sandbox.enabled) {
    throw new LoreError('sandbox_disabled', 'the sandbox is disabled by runtime configuration: SANDBOX_ENABLED is false (set SANDBOX_ENABLED=true to enable it)', {
      setting: 'SANDBOX_ENABLED',
      value: false,
    });
  }
}

export function loadSandboxRun(runs: SandboxRuns, runId: string): Promise<RunDoc> {
  return loadRunRecord(runs, 'sandbox run', runId);
}
