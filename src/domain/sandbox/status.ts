import { LoreError } from '../../contract/errors';
import type { Database } from '../../store/database';
import { SandboxHosts, type SandboxHostReport } from '../../store/sandbox/index';
import type { SessionIsolation, SessionWorkspace } from '../../model/sandbox/records';
import type { SandboxSettings } from './context';

/** What GET /health says of the sandbox. */
export interface SandboxStatus {
  enabled: boolean;
  /** Commands can run: isolated, or unisolated by the operator's explicit choice. null: no worker has said yet. */
  available: boolean | null;
  isolation: string;
  detail?: string;
  /** How a workspace session's commands see the project: through an overlay, a copy, or not at all (no roots). */
  workspaces?: { view: 'overlay' | 'copy' | 'off'; detail?: string };
}

/**
 * The API's view of sandbox isolation: what the worker of this task queue reported (see host.ts).
 * The API never probes itself, so it never touches the worker's uid range.
 */
export function sandboxStatusReader(config: SandboxSettings, db: Database): () => Promise<SandboxStatus> {
  const hosts = new SandboxHosts(db);
  return async () => {
    if (!config.sandbox.enabled) {
      return { enabled: false, available: false, isolation: 'disabled', detail: 'SANDBOX_ENABLED is false: every sandbox route answers sandbox_disabled' };
    }
    const r = await hosts.get(config.temporal.taskQueue);
    if (!r) {
      return { enabled: true, available: null, isolation: 'unknown', detail: `no worker has reported sandbox isolation for task queue '${config.temporal.taskQueue}' yet` };
    }
    return {
      enabled: true,
      available: r.enabled && r.in_force !== 'unavailable',
      isolation: r.in_force,
      ...(r.detail ? { detail: r.detail } : {}),
      workspaces: workspacesStatus(config, r),
    };
  };
}

function workspacesStatus(config: SandboxSettings, r: SandboxHostReport): NonNullable<SandboxStatus['workspaces']> {
  if (config.sandbox.workspaceRoots.length === 0) return { view: 'off', detail: 'no workspace may be named: LORE_SANDBOX_WORKSPACE_ROOTS is unset' };
  const view = r.workspace_view ?? 'copy';
  const detail = view === 'copy' ? (r.workspace_detail ?? 'the worker predates workspace overlays') : null;
  return { view, ...(detail ? { detail: `copied before each run: ${detail}` } : {}) };
}

/**
 * A new session's workspace as its commands will see it: through the worker's overlay, or a copy
 * (with the worker's reason). The view stays the session's: a workdir holds either an overlay's
 * upper layer or a full copy, never one then the other.
 */
export function workspaceFromReport(r: SandboxHostReport, kind: SessionIsolation['kind'], path: string): SessionWorkspace {
  const view = kind === 'bubblewrap' && r.workspace_view === 'overlay' ? 'overlay' : 'copy';
  return { path, view, view_detail: view === 'overlay' ? null : (r.workspace_detail ?? 'the worker predates workspace overlays') };
}

const FILESYSTEM = {
  bubblewrap: 'read-only system (/usr, /bin, /lib, a minimal /etc); private /tmp; writable /work (the session workdir) only; no host data',
  none: 'the host filesystem as the runtime user sees it; cwd is the session workdir',
};

/** The session record's isolation, from a worker report (the report must say bubblewrap or none). */
export function isolationFromReport(r: SandboxHostReport): SessionIsolation {
  const kind = r.in_force === 'bubblewrap' ? 'bubblewrap' : 'none';
  const weaker: string[] = [];
  if (kind === 'none') weaker.push('no namespaces: the command can see the host filesystem, network and processes; only limits, environment scrubbing and tree kill apply');
  if (!r.uid_isolation) weaker.push('not root: runs share the runtime uid, so the process limit is not enforced');
  if (r.memory_limit === 'rlimit_data') weaker.push('memory is limited per process (RLIMIT_DATA), not for the whole run');
  if (r.sandbox_dir_problem) weaker.push(r.sandbox_dir_problem);
  return {
    kind,
    version: kind === 'bubblewrap' ? r.bubblewrap_version : null,
    network: kind === 'bubblewrap' ? 'none' : 'host',
    filesystem: FILESYSTEM[kind],
    uid_isolation: r.uid_isolation,
    memory_limit: r.memory_limit,
    weaker: weaker.length > 0 ? weaker.join('; ') : null,
  };
}

/**
 * Refuses a command while the worker reports that isolation is unavailable (LORE_SANDBOX_ISOLATION
 * auto or bubblewrap without working bubblewrap): sessions made earlier must not run unisolated
 * either. No report yet is not a refusal here: the run waits in the queue for a worker, whose
 * activity checks again.
 */
export async function assertSandboxRunnable(config: SandboxSettings, db: Database): Promise<void> {
  const r = await new SandboxHosts(db).get(config.temporal.taskQueue);
  if (r && r.enabled && r.in_force === 'unavailable') {
    throw new LoreError('sandbox_disabled', r.detail ?? 'sandbox isolation is unavailable on the worker', {
      setting: 'LORE_SANDBOX_ISOLATION',
      value: r.setting,
      detail: r.detail,
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The worker report sessions are created from. A worker that is just starting gets a few seconds
 * to report; none at all is `overloaded` (retryable), an unusable setting is `sandbox_disabled`.
 */
export async function awaitHostReport(config: SandboxSettings, db: Database, waitMs = 10_000): Promise<SandboxHostReport> {
  const hosts = new SandboxHosts(db);
  // Wall time, not the injected clock: a real wait for the worker to report.
  const deadline = Date.now() + waitMs;
  for (;;) {
    const r = await hosts.get(config.temporal.taskQueue);
    if (r && r.enabled && r.in_force !== 'unavailable') return r;
    if (r && r.in_force === 'unavailable' && r.enabled) {
      throw new LoreError('sandbox_disabled', r.detail ?? 'sandbox isolation is unavailable on the worker', {
        setting: 'LORE_SANDBOX_ISOLATION',
        value: r.setting,
        detail: r.detail,
      });
    }
    if (Date.now() >= deadline) {
      const why = r && !r.enabled ? 'the worker runs with SANDBOX_ENABLED=false' : 'no worker has reported its sandbox isolation';
      throw new LoreError('overloaded', `${why} for task queue '${config.temporal.taskQueue}'; start a worker with the sandbox enabled (lore start --role worker)`, {
        task_queue: config.temporal.taskQueue,
        retry_after_s: 5,
      });
    }
    await sleep(200);
  }
}
