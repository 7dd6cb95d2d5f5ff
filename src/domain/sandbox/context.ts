import type { Config } from '../../config';
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

/** What the sandbox routes use. */
export interface SandboxCtx {
  config: Config;
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
export function requireEnabled(config: Config): void {
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
