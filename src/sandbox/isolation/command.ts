/** The host command line of a run: the sh → prlimit → bwrap | env chain (run.ts), its fds and its environment. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildBwrapArgs, SANDBOX_PATH, type SyntheticEtc } from './bwrap';
import type { HostState } from './host';
import { overlayPrefix, type OverlayMount } from './overlay';
import type { ResolvedLimits } from './spec';
import type { RunSpec } from './types';
import { SANDBOX_WORKDIR } from './workdir';

/** Processes of the chain besides the command in bubblewrap mode: bwrap's monitor and its pid-1 reaper. */
const BWRAP_HELPER_PROCESSES = 2;
const UMASK_SCRIPT = 'umask 002 && exec "$@"';
const O_CLOEXEC = 0o2000000;

/**
 * File descriptors of this process, above `keepUpTo`, that lack O_CLOEXEC and would therefore be
 * inherited by the command (bubblewrap does not close unknown fds). Node opens everything with
 * O_CLOEXEC, so these can only come from whoever started the runtime; the wrapper closes them.
 */
export function leakyFds(keepUpTo: number): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return out;
  }
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= keepUpTo) continue;
    try {
      const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1');
      const flags = /^flags:\s+([0-7]+)/m.exec(info)?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {
      /* closed meanwhile (e.g. the readdir handle itself) */
    }
  }
  return out.sort((a, b) => a - b);
}

function sandboxEnv(mode: RunSpec['isolation'], workdir: string, extra: Record<string, string> | undefined): Record<string, string> {
  const base: Record<string, string> =
    mode === 'bubblewrap'
      ? { PATH: SANDBOX_PATH, HOME: SANDBOX_WORKDIR, LANG: 'C.UTF-8', TMPDIR: '/tmp', USER: 'sandbox', LOGNAME: 'sandbox' }
      : { PATH: SANDBOX_PATH, HOME: workdir, LANG: 'C.UTF-8', TMPDIR: path.join(workdir, '.tmp'), USER: 'sandbox', LOGNAME: 'sandbox' };
  return { ...base, ...(extra ?? {}) };
}

/**
 * rlimits set by prlimit(1). Memory uses RLIMIT_DATA (private writable mappings: heap, anonymous
 * mmap), not RLIMIT_AS: RLIMIT_AS also counts address space that runtimes merely reserve, and at
 * 512 MiB node, java and go fail to start on this host. With a memory cgroup the aggregate of the
 * whole tree is limited as well.
 */
export function prlimitArgs(l: ResolvedLimits, mode: RunSpec['isolation'], uid: number | null, leftovers = 0): string[] {
  const a = [`--cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`, `--data=${l.memoryBytes}`, `--fsize=${l.maxFileBytes}`, `--nofile=${l.maxOpenFiles}`, '--core=0'];
  // RLIMIT_NPROC counts every process of the uid: the chain's helpers and, on a home uid, what
  // earlier runs left that init has not reaped yet (untilReaped) are added to the run's own limit.
  if (uid !== null) a.push(`--nproc=${l.maxProcesses + (mode === 'bubblewrap' ? BWRAP_HELPER_PROCESSES : 0) + leftovers}`);
  return a;
}

export const ARGS_FD = 3;
export const ETC_FDS: Record<keyof SyntheticEtc, number> = { passwd: 4, group: 5, hosts: 6, 'nsswitch.conf': 7 };
/**
 * bwrap writes {"child-pid": N} here: the host pid of its pid-1 reaper, which outlives bwrap (the
 * monitor exits as soon as the command's exit status arrives) and is left to the host's init.
 */
export const INFO_FD = 8;

/** fd numbers (in the spawned process) of the pipes we pass: bwrap data, then the cgroup gate. */
function fdLayout(mode: RunSpec['isolation'], gated: boolean): { last: number; gate: number | null } {
  const lastData = mode === 'bubblewrap' ? INFO_FD : 2;
  return gated ? { last: lastData + 1, gate: lastData + 1 } : { last: lastData, gate: null };
}

/**
 * The exact host argv for a run (exported for tests and for documentation). With `overlay`, the
 * chain is started by the overlay helper (overlay.ts), which mounts the workspace first.
 */
export function hostCommand(
  host: HostState,
  spec: RunSpec,
  limits: ResolvedLimits,
  workdir: string,
  uid: number | null,
  gated: boolean,
  leftovers = 0,
  overlay: OverlayMount | null = null,
): { file: string; args: string[]; bwrapArgs: string[] | null; env: Record<string, string>; gateFd: number | null; lastFd: number } {
  const env = sandboxEnv(spec.isolation, workdir, spec.env);
  const { last, gate } = fdLayout(spec.isolation, gated);
  // The first exec closes inherited fds that are not ours. dash only accepts single-digit fds in
  // redirections, so bash is used when a leaked fd is 10 or above.
  const leaked = leakyFds(last);
  const needBash = leaked.some((fd) => fd > 9) && host.tools.bash !== undefined;
  const closable = needBash ? leaked : leaked.filter((fd) => fd <= 9);
  const closes = [...(gate !== null ? [gate] : []), ...closable].map((fd) => ` ${fd}<&-`).join('');
  const script = (gate !== null ? `read _ <&${gate} && ` : '') + UMASK_SCRIPT + closes;
  const shell = needBash ? host.tools.bash! : host.tools.sh;
  const pre = [...(overlay ? overlayPrefix(overlay) : []), shell, '-c', script, 'lore-sandbox', host.tools.prlimit!, ...prlimitArgs(limits, spec.isolation, uid, leftovers), '--'];
  if (spec.isolation === 'bubblewrap') {
    const bwrapArgs = buildBwrapArgs({ workdir, env, tmpBytes: limits.tmpBytes, features: host.features, etcFds: ETC_FDS });
    return {
      file: pre[0]!,
      args: [...pre.slice(1), host.tools.bwrap!, '--info-fd', String(INFO_FD), '--args', String(ARGS_FD), '--', ...spec.argv],
      bwrapArgs,
      env,
      gateFd: gate,
      lastFd: last,
    };
  }
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return {
    file: pre[0]!,
    args: [...pre.slice(1), host.tools.env!, '-i', '--', ...assignments, ...spec.argv],
    bwrapArgs: null,
    env,
    gateFd: gate,
    lastFd: last,
  };
}
