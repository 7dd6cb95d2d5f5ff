/**
 * detectIsolation(): a real probe, run once per process and cached. It runs a trivial command
 * through the full bubblewrap chain (same flags, limits and uid switching as real runs) in a
 * throw-away workdir; bubblewrap counts as available only if that command ran and printed. Then,
 * with the overlay helper configured, a command in a throw-away workspace through the overlay
 * (overlay.ts): workspaces are seen through overlays only if it read the project, its write
 * landed in the workdir and the project stayed as it was.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectMemoryCgroup } from './cgroup';
import { bwrapDetails, findTools, isRoot, type HostState } from './host';
import { removeOverlayLayer } from './overlay';
import { IsolationUnavailableError, runCore } from './run';
import type { IsolationInfo, RunHooks, RunOutcome, RunSpec } from './types';
import { prepareWorkdir } from './workdir';

let cached: Promise<HostState> | null = null;
/** The configured bubblewrap binary (LORE_SANDBOX_BWRAP via configureBwrap); null: system directories. */
let bwrapPath: string | null = null;

/** The overlay helper (overlay.ts, ensureOverlayHelper), or why there is none. */
let overlayHelper: { path: string | null; problem?: string } = { path: null, problem: 'no overlay helper was configured' };
/** Directories workspaces will be named under: the probe mounts each read-only as well (its filesystem must allow the clone). */
let overlayRoots: string[] = [];

/**
 * Sets the workspace overlay's helper binary, or the reason there is none, and the directories
 * workspaces live under (LORE_SANDBOX_WORKSPACE_ROOTS); a change probes again.
 */
export function configureOverlayHelper(helper: { path: string | null; problem?: string | undefined }, roots: readonly string[] = []): void {
  if (helper.path === overlayHelper.path && helper.problem === overlayHelper.problem && roots.join(':') === overlayRoots.join(':')) return;
  overlayHelper = { path: helper.path, ...(helper.problem ? { problem: helper.problem } : {}) };
  overlayRoots = [...roots];
  cached = null;
}

/** Sets the bubblewrap binary the probe and the runner use; a change probes again. */
export function configureBwrap(path: string | null): void {
  if (path === bwrapPath) return;
  bwrapPath = path;
  cached = null;
}

async function probe(): Promise<HostState> {
  const tools = findTools(bwrapPath);
  const uidIsolation = isRoot();
  const reasons: string[] = [];
  const cg = uidIsolation ? detectMemoryCgroup() : { host: null, reason: 'not root' };
  if (!cg.host) reasons.push(`memory limited per process only (RLIMIT_DATA): ${cg.reason}`);
  const memory_limit = cg.host ? 'cgroup' : 'rlimit_data';
  const noOverlay = { workspace_view: 'copy' as const, workspace_reason: 'bubblewrap is not available, and a workspace overlay is mounted for bubblewrap runs only' };
  const state: HostState = {
    info: { kind: 'none', uid_isolation: uidIsolation, memory_limit, ...noOverlay },
    tools,
    features: { disableUserns: false, tmpfsSize: false },
    uidIsolation,
    memoryCgroup: cg.host,
    overlay: null,
  };
  if (tools.prlimit) state.info.prlimit_path = tools.prlimit;
  if (!tools.prlimit) reasons.push('prlimit (util-linux) not found: no run can be limited, runs will be refused');
  if (!uidIsolation) reasons.push('not root: runs share the runtime uid, so the process limit is not enforced');
  if (!tools.bwrap) {
    reasons.unshift(bwrapPath ? `bubblewrap not found at ${bwrapPath} (LORE_SANDBOX_BWRAP)` : 'bubblewrap (bwrap) not found in /usr/bin, /bin, /usr/sbin, /sbin, /usr/local/bin');
    state.info.reason = reasons.join('; ');
    return state;
  }
  const details = await bwrapDetails(tools.bwrap);
  const candidate: HostState = {
    ...state,
    info: {
      kind: 'bubblewrap',
      uid_isolation: uidIsolation,
      memory_limit,
      ...noOverlay,
      bwrap_path: tools.bwrap,
      ...(tools.prlimit ? { prlimit_path: tools.prlimit } : {}),
    },
    features: details.features,
    ...(details.version ? { bwrapVersion: details.version } : {}),
  };
  if (details.version) candidate.info.version = details.version;
  if (!tools.prlimit) {
    state.info.reason = reasons.join('; ');
    return state;
  }
  let tmpRoot: string | null = null;
  try {
    tmpRoot = await fsp.mkdtemp(path.join(os.tmpdir(), 'lore-isolation-probe-'));
    await fsp.chmod(tmpRoot, 0o711);
    const wd = await prepareWorkdir(tmpRoot, 'probe');
    let out = '';
    const spec: RunSpec = {
      argv: ['/bin/sh', '-c', 'echo lore-probe-ok'],
      workdir: wd.hostPath,
      isolation: 'bubblewrap',
      limits: {
        wallMs: 20_000,
        cpuSeconds: 10,
        memoryBytes: 512 * 1024 * 1024,
        maxProcesses: 16,
        maxFileBytes: 1024 * 1024,
        maxOutputBytes: 64 * 1024,
      },
    };
    const hooks: RunHooks = { onOutput: (s, chunk) => (out += s === 'stdout' ? chunk : '') };
    const res: RunOutcome = await runCore(candidate, spec, hooks);
    if (res.status === 'succeeded' && out.trim() === 'lore-probe-ok') {
      if (reasons.length > 0) candidate.info.reason = reasons.join('; ');
      const why = await probeOverlay(candidate, tmpRoot, spec.limits);
      if (why === null) {
        candidate.info.workspace_view = 'overlay';
        delete candidate.info.workspace_reason;
      } else {
        candidate.info.workspace_reason = why;
      }
      return candidate;
    }
    reasons.unshift(`bubblewrap probe failed: ${res.reason ?? res.status}; stderr: ${res.stderr_tail.trim().slice(0, 500)}`);
  } catch (e) {
    reasons.unshift(`bubblewrap probe failed: ${(e as Error).message}`);
  } finally {
    if (tmpRoot) await fsp.rm(tmpRoot, { recursive: true, force: true }).catch(() => undefined);
  }
  state.info.reason = reasons.join('; ');
  return state;
}

/**
 * Mounts a throw-away workspace through the overlay chain and checks what a command saw and where
 * its writes went. null: overlays work here; else why not (workspaces are then copied).
 */
async function probeOverlay(candidate: HostState, tmpRoot: string, limits: RunSpec['limits']): Promise<string | null> {
  if (!overlayHelper.path) return overlayHelper.problem ?? 'no overlay helper';
  if (!candidate.tools.unshare) return 'unshare (util-linux) not found';
  const withOverlay: HostState = { ...candidate, overlay: { helper: overlayHelper.path, unshare: candidate.tools.unshare } };
  const project = path.join(tmpRoot, 'project');
  await fsp.mkdir(project, { mode: 0o700 });
  await fsp.writeFile(path.join(project, 'seen'), 'lower\n', { mode: 0o644 });
  await fsp.writeFile(path.join(project, 'gone'), 'x', { mode: 0o644 });
  const wd = await prepareWorkdir(tmpRoot, 'probe-overlay');
  let out = '';
  try {
    const res = await runCore(
      withOverlay,
      { argv: ['/bin/sh', '-c', 'cat seen && echo upper >> seen && rm gone && echo lore-overlay-ok'], workdir: wd.hostPath, isolation: 'bubblewrap', workspace: project, limits },
      { onOutput: (s, chunk) => (out += chunk) },
    );
    if (res.status !== 'succeeded' || !out.includes('lore-overlay-ok')) return `the overlay probe failed: ${res.reason ?? res.status}; ${out.trim().slice(-500)}`;
    const wrote = await fsp.readFile(path.join(wd.hostPath, 'seen'), 'utf8').catch(() => null);
    const project_ = await fsp.readFile(path.join(project, 'seen'), 'utf8');
    const gone = await fsp.lstat(path.join(project, 'gone')).catch(() => null);
    if (!out.startsWith('lower\n') || wrote !== 'lower\nupper\n' || project_ !== 'lower\n' || !gone) {
      return `the overlay probe saw the wrong files (command read ${JSON.stringify(out.slice(0, 40))}, workdir has ${JSON.stringify(wrote)})`;
    }
    // Each workspace root's filesystem must allow the project's clone (as root an idmapped one,
    // which not every filesystem offers): mounted read-only, nothing written to it.
    for (const root of overlayRoots) {
      const real = await fsp.realpath(root).catch(() => null);
      if (!real) continue;
      const rootWd = await prepareWorkdir(tmpRoot, `probe-root-${overlayRoots.indexOf(root)}`);
      let seen = '';
      const res = await runCore(
        withOverlay,
        { argv: ['/bin/sh', '-c', 'echo lore-root-ok'], workdir: rootWd.hostPath, isolation: 'bubblewrap', workspace: real, limits },
        {
          onOutput: (_s, chunk) => (seen += chunk),
        },
      ).finally(() => removeOverlayLayer(rootWd.hostPath).catch(() => undefined));
      if (res.status !== 'succeeded' || !seen.includes('lore-root-ok'))
        return `a workspace under ${root} cannot be mounted: ${res.reason ?? res.status}; ${seen.trim().slice(-300)}`;
    }
  } catch (e) {
    return `the overlay probe failed: ${(e as Error).message}`;
  } finally {
    await removeOverlayLayer(wd.hostPath).catch(() => undefined);
  }
  candidate.overlay = withOverlay.overlay;
  return null;
}

/** Host state behind detectIsolation (tools, features). Cached; pass refresh to probe again. */
export function hostState(refresh = false): Promise<HostState> {
  if (refresh || !cached) cached = probe();
  return cached;
}

export async function detectIsolation(opts: { refresh?: boolean } = {}): Promise<IsolationInfo> {
  const s = await hostState(opts.refresh ?? false);
  return { ...s.info };
}

/**
 * Run one argv isolated. `spec.isolation` is what the caller wants; asking for 'bubblewrap' on a
 * host where the probe failed throws IsolationUnavailableError (the caller may fall back to 'none'
 * and must then say so in the session record).
 */
export async function runIsolated(spec: RunSpec, hooks: RunHooks): Promise<RunOutcome> {
  const host = await hostState();
  if (spec.isolation === 'bubblewrap' && host.info.kind !== 'bubblewrap') {
    throw new IsolationUnavailableError(`bubblewrap isolation is not available here: ${host.info.reason ?? 'probe failed'}`);
  }
  return runCore(host, spec, hooks);
}
