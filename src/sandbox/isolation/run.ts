/**
 * Runs one argv under isolation and limits, streaming its output.
 *
 * Process chain (all exec, one host pid, spawned detached = own process group, as the run uid):
 *
 *   bubblewrap:  sh -c '<gate> umask 002 && exec "$@"'  →  prlimit <limits> --  →  bwrap --info-fd 8 --args 3 -- <argv>
 *   none:        sh -c '<gate> umask 002 && exec "$@"'  →  prlimit <limits> --  →  env -i <env> -- <argv>
 *
 * sh waits on a gate pipe until the runtime has moved it into the run's memory cgroup (when cgroups
 * are usable, see cgroup.ts), sets the umask (group-writable files, see workdir.ts), closes fds it
 * inherited by accident, and execs. prlimit sets the rlimits and execs. The runtime's environment
 * never reaches any of them: the chain runs with PATH and LANG only, and the command's environment is
 * set by bwrap --clearenv/--setenv (passed through a pipe, so values are not on the host's process
 * list) or by env -i in 'none' mode.
 */
import { promises as fsp } from 'node:fs';
import { execute } from './execute';
import type { HostState } from './host';
import { acquireRunUid, isSessionId, releaseRunUid, untilReaped } from './ids';
import { acquireSlot, type OverlayMount } from './overlay';
import { emptyOutcome, makeReport } from './report';
import { IsolationUnavailableError, resolveLimits, SandboxSpecError, validateSpec } from './spec';
import type { RunHooks, RunOutcome, RunSpec } from './types';
import { clearOwnersDirty, markOwnersDirty, normaliseOwners, ownersDirty, withOwnersLock } from './workdir';

// The parts of a run, for callers that import them from here (index.ts, tests).
export { hostCommand, leakyFds, prlimitArgs } from './command';
export { isShell, IsolationUnavailableError, resolveLimits, SandboxSpecError, type ResolvedLimits } from './spec';

/** Runs under way per workdir: the first on the home uid normalises the workdir's owners. */
const activeRuns = new Map<string, number>();

/**
 * Run one command. Resolves with the outcome once the process tree is gone; rejects only for
 * caller errors (SandboxSpecError, IsolationUnavailableError), spawn failures, or an exception
 * thrown by hooks.onOutput (the tree is killed first).
 */
export async function runCore(host: HostState, spec: RunSpec, hooks: RunHooks): Promise<RunOutcome> {
  validateSpec(spec);
  const limits = resolveLimits(spec.limits);
  const mode = spec.isolation;
  if (!host.tools.prlimit) throw new IsolationUnavailableError('prlimit (util-linux) not found; limits cannot be applied');
  if (mode === 'bubblewrap' && !host.tools.bwrap) {
    throw new IsolationUnavailableError(`bubblewrap is not available: ${host.info.reason ?? 'bwrap not found'}`);
  }
  if (mode === 'none' && !host.tools.env) throw new IsolationUnavailableError('env(1) not found');
  if (spec.workspace !== undefined) {
    if (mode !== 'bubblewrap') throw new SandboxSpecError('a workspace overlay needs isolation bubblewrap');
    if (!host.overlay) throw new IsolationUnavailableError(`a workspace overlay cannot be mounted here: ${host.info.workspace_reason ?? 'the overlay probe failed'}`);
  }

  let workdir: string;
  let wst;
  try {
    workdir = await fsp.realpath(spec.workdir);
    wst = await fsp.stat(workdir);
  } catch {
    throw new SandboxSpecError(`workdir ${spec.workdir} does not exist`);
  }
  if (!wst.isDirectory()) throw new SandboxSpecError(`workdir ${spec.workdir} is not a directory`);

  let gid: number | null = null;
  if (host.uidIsolation) {
    if (!isSessionId(wst.gid)) {
      throw new SandboxSpecError(`workdir ${spec.workdir} was not prepared by prepareWorkdir (its group is not a sandbox session id)`);
    }
    gid = wst.gid;
  }
  const preReport = makeReport(host, spec, null, gid);
  if (hooks.signal?.aborted) return emptyOutcome('cancelled', 'cancelled before start', preReport);

  // A new run waits while the workdir's owners are being normalised (below).
  await withOwnersLock(workdir, async () => undefined);
  let uid: number | null = null;
  if (gid !== null) uid = acquireRunUid(gid);
  activeRuns.set(workdir, (activeRuns.get(workdir) ?? 0) + 1);
  const ctx = { uidClean: true };
  let slot: ReturnType<typeof acquireSlot> | null = null;
  try {
    // What earlier runs left behind on the home uid still counts toward its process limit: allowed
    // for, or waited for when there are many (ids.ts, untilReaped); only those recorded are looked
    // at. A fresh uid of the run range has nothing left behind.
    const leftovers = uid !== null && uid === gid ? await untilReaped(uid) : 0;
    if (uid !== null && gid !== null) {
      if (uid !== gid) {
        await markOwnersDirty(workdir);
      } else if (activeRuns.get(workdir) === 1) {
        // Files written by runs on other uids go back to the home uid, while no other run uses the workdir.
        const g = uid;
        await withOwnersLock(workdir, async () => {
          if (await ownersDirty(workdir)) {
            await normaliseOwners(workdir, g, g);
            await clearOwnersDirty(workdir);
          }
        }).catch(() => undefined);
      }
    }
    const report = makeReport(host, spec, uid, gid);
    let overlay: OverlayMount | null = null;
    if (spec.workspace !== undefined && host.overlay) {
      slot = acquireSlot(workdir);
      overlay = {
        ...host.overlay,
        lower: spec.workspace,
        workdir,
        slot: slot.slot,
        as: uid !== null && gid !== null ? { uid, gid, home: gid } : null,
      };
    }
    return await execute({ host, spec, hooks, limits, workdir, uid, gid, report, ctx, leftovers, overlay });
  } finally {
    slot?.release();
    const left = (activeRuns.get(workdir) ?? 1) - 1;
    if (left === 0) activeRuns.delete(workdir);
    else activeRuns.set(workdir, left);
    if (uid !== null) releaseRunUid(uid, ctx.uidClean);
  }
}

/**
 * Runs fn while no run of the workdir is going and none can start (they wait for the owners
 * lock), or answers null at once when one is going. For reading what runs wrote (layer.ts): a
 * running command could otherwise swap a directory for a symbolic link under the reader.
 */
export async function whenIdle<T>(workdir: string, fn: () => Promise<T>): Promise<T | null> {
  const real = await fsp.realpath(workdir).catch(() => workdir);
  return withOwnersLock(real, async () => ((activeRuns.get(real) ?? 0) > 0 ? null : fn()));
}
