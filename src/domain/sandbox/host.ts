import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Log } from '../../log';
import {
  configureBwrap,
  configureIdRange,
  configureOverlayHelper,
  detectIsolation,
  ensureOverlayHelper,
  type IsolationInfo,
  type OverlayHelper,
} from '../../sandbox/isolation/index';
import type { Database } from '../../store/database';
import { SandboxHosts, type SandboxHostReport } from '../../store/sandbox/index';
import type { SandboxSettings } from './context';

/** What the worker's sandbox set-up reads: the sandbox's settings, and where Lore's own helper binaries are (the overlay helper). */
export type HostSettings = SandboxSettings & { readonly binDir: string };

/**
 * The worker's side of sandbox set-up: claim the configured uid range, probe isolation once, check
 * the workdir root, and publish what was found for the task queue (the API reads it). Only the
 * worker process runs this: the runner kills stray processes of its uid range on first use, so two
 * processes must never share a range (LORE_SANDBOX_ID_MIN/MAX, docs/configuration.md).
 */
export interface SandboxHost {
  report: SandboxHostReport;
  info: IsolationInfo | null;
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Sandbox uids must traverse every ancestor of the workdir root (bubblewrap binds it as that uid). */
async function workdirRootProblem(dir: string): Promise<string | null> {
  try {
    await fsp.mkdir(dir, { recursive: true, mode: isRoot() ? 0o711 : 0o700 });
  } catch (err) {
    return `cannot create ${dir}: ${(err as Error).message}`;
  }
  if (!isRoot()) return null;
  const closed: string[] = [];
  for (let cur = path.resolve(dir); ; cur = path.dirname(cur)) {
    const st = await fsp.stat(cur);
    if ((st.mode & 0o001) === 0) closed.push(cur);
    if (path.dirname(cur) === cur) break;
  }
  if (closed.length === 0) return null;
  return (
    `sandbox uids cannot reach the workdir root ${dir}: ${closed.join(', ')} lack the o+x (traverse) bit. ` +
    'Set LORE_SANDBOX_DIR to a directory under a traversable path (e.g. /var/lib/lore-sandbox), or chmod o+x those directories.'
  );
}

/**
 * Why the sandbox refuses to run, and the two ways out. Shown by sandbox routes (sandbox_disabled),
 * GET /health and the worker's one warning line (which `lore start` prints); `lore doctor` says the
 * same in its own words.
 */
export function isolationUnavailable(setting: 'auto' | 'bubblewrap' | 'none', reason: string): string {
  return (
    `sandbox isolation is unavailable (LORE_SANDBOX_ISOLATION=${setting}): ${reason}. ` +
    'Commands are refused rather than run with the host network and filesystem. Fix: install bubblewrap ' +
    '(Debian/Ubuntu: apt-get install bubblewrap) so they run isolated, or set LORE_SANDBOX_ISOLATION=none to accept running them without isolation'
  );
}

/**
 * The overlay helper workspaces are mounted with (built once into LORE_BIN_DIR), or why there is
 * none: no workspace may be named here, the operator chose copies, or it cannot be built.
 */
async function overlayHelperFor(config: HostSettings, log: Log): Promise<OverlayHelper> {
  const sb = config.sandbox;
  if (sb.workspaceRoots.length === 0) return { path: null, problem: 'no workspace may be named on this worker (LORE_SANDBOX_WORKSPACE_ROOTS is unset)' };
  if (sb.workspaceView === 'copy') return { path: null, problem: 'LORE_SANDBOX_WORKSPACE_VIEW=copy' };
  return ensureOverlayHelper(config.binDir, (msg) => log.info(msg));
}

export async function startSandboxHost(deps: { config: HostSettings; db: Database; log: Log }): Promise<SandboxHost> {
  const { config, log } = deps;
  const sb = config.sandbox;
  const base = {
    _id: config.temporal.taskQueue,
    enabled: sb.enabled,
    setting: sb.isolation,
    sandbox_dir: sb.dir,
    hostname: os.hostname(),
    pid: process.pid,
  };
  let report: SandboxHostReport;
  let info: IsolationInfo | null = null;
  if (!sb.enabled) {
    // Nothing runs, so nothing is probed (the probe would claim the uid range).
    report = {
      ...base,
      in_force: 'unavailable',
      bubblewrap_version: null,
      uid_isolation: false,
      memory_limit: 'rlimit_data',
      detail: 'SANDBOX_ENABLED is false on the worker',
      workspace_view: 'copy',
      workspace_detail: 'SANDBOX_ENABLED is false on the worker',
      sandbox_dir_problem: null,
      reported_at: new Date().toISOString(),
    };
  } else {
    configureIdRange(sb.idRange);
    configureBwrap(sb.bwrapPath);
    configureOverlayHelper(await overlayHelperFor(config, log), sb.workspaceRoots);
    info = await detectIsolation();
    const dirProblem = await workdirRootProblem(sb.dir);
    // auto and bubblewrap both mean "isolated or refuse": running a command with the host's network
    // and filesystem is only ever the operator's explicit choice (LORE_SANDBOX_ISOLATION=none).
    const inForce = sb.isolation === 'none' ? 'none' : info.kind === 'bubblewrap' ? 'bubblewrap' : 'unavailable';
    const notes: string[] = [];
    if (inForce === 'unavailable') notes.push(isolationUnavailable(sb.isolation, info.reason ?? 'the bubblewrap probe failed'));
    else if (info.reason) notes.push(info.reason);
    if (dirProblem) notes.push(dirProblem);
    // Workspaces: through an overlay where the probe mounted one (bubblewrap runs only), else copied.
    const view = inForce === 'bubblewrap' && info.workspace_view === 'overlay' ? 'overlay' : 'copy';
    const viewDetail =
      view === 'overlay'
        ? null
        : inForce === 'none'
          ? 'LORE_SANDBOX_ISOLATION=none: a workspace is copied (an overlay is mounted for bubblewrap runs only)'
          : (info.workspace_reason ?? 'no overlay could be mounted');
    report = {
      ...base,
      in_force: inForce,
      bubblewrap_version: info.version ?? null,
      uid_isolation: info.uid_isolation,
      memory_limit: info.memory_limit,
      detail: notes.length > 0 ? notes.join('; ') : null,
      workspace_view: view,
      workspace_detail: viewDetail,
      sandbox_dir_problem: dirProblem,
      reported_at: new Date().toISOString(),
    };
    // The one line `lore start` shows about it (the worker child's log goes to the terminal).
    if (inForce === 'unavailable') log.warn(notes[0]!);
    if (dirProblem) log.warn(dirProblem);
    if (view === 'copy' && sb.workspaceRoots.length > 0 && inForce !== 'unavailable') log.info(`sandbox: workspaces are copied before each run, not mounted: ${viewDetail}`);
    log.debug({ isolation: inForce, range: sb.idRange }, 'sandbox host ready');
  }
  await new SandboxHosts(deps.db).put(report);
  return { report, info };
}
