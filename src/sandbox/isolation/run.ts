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
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fsp, readdirSync, readFileSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { buildBwrapArgs, SANDBOX_PATH, syntheticEtc, type SyntheticEtc } from './bwrap';
import { RunCgroup } from './cgroup';
import type { HostState } from './host';
import { acquireRunUid, isSessionId, listProcesses, noteLeftBehind, releaseRunUid, sweepUid, untilReaped } from './ids';
import { OutputCollector } from './output';
import type { LimitName, RunHooks, RunIsolationReport, RunLimits, RunOutcome, RunSpec, RunStatus } from './types';
import { clearOwnersDirty, markOwnersDirty, normaliseOwners, ownersDirty, SANDBOX_WORKDIR } from './workdir';


/** The caller asked for something the runner refuses (bad argv, bad limits, shell when not allowed, ...). */
export class SandboxSpecError extends Error {
  override name = 'SandboxSpecError';
}

/** The requested isolation cannot be provided on this host. */
export class IsolationUnavailableError extends Error {
  override name = 'IsolationUnavailableError';
}

const SHELLS = new Set([
  'sh', 'bash', 'dash', 'zsh', 'ksh', 'ksh93', 'mksh', 'pdksh', 'lksh', 'oksh', 'loksh', 'yash', 'posh',
  'ash', 'rbash', 'csh', 'tcsh', 'fish', 'busybox', 'toybox', 'pwsh', 'powershell', 'nu', 'elvish', 'xonsh', 'rc', 'es',
]);

/** True when argv[0] names a shell (by basename, ignoring a version suffix such as bash5.2 or python-like -5). */
export function isShell(argv0: string): boolean {
  const base = (argv0.split('/').pop() ?? argv0).toLowerCase();
  if (SHELLS.has(base)) return true;
  return SHELLS.has(base.replace(/[-.]?\d+(\.\d+)*$/, ''));
}

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
const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_OPEN_FILES = 1024;
const DEFAULT_TMP_CAP = 256 * 1024 * 1024;
const CLOSE_GRACE_MS = 2000;

const NONE_WEAKER =
  "isolation 'none': no namespaces. The command sees the host filesystem (reads anything its uid may " +
  'read, writes anywhere world-writable such as /tmp), the network and other processes. Only rlimits, ' +
  'environment scrubbing, the workdir as cwd and process-tree kill apply.';

function checkPositive(name: string, v: unknown, integer: boolean): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new SandboxSpecError(`limits.${name} must be a positive ${integer ? 'integer' : 'number'}`);
  }
  return v;
}

export interface ResolvedLimits extends Required<RunLimits> {}

export function resolveLimits(l: RunLimits): ResolvedLimits {
  if (!l || typeof l !== 'object') throw new SandboxSpecError('limits are required');
  const memoryBytes = checkPositive('memoryBytes', l.memoryBytes, true);
  return {
    wallMs: checkPositive('wallMs', l.wallMs, false),
    cpuSeconds: checkPositive('cpuSeconds', l.cpuSeconds, true),
    memoryBytes,
    maxProcesses: checkPositive('maxProcesses', l.maxProcesses, true),
    maxFileBytes: checkPositive('maxFileBytes', l.maxFileBytes, true),
    maxOutputBytes: checkPositive('maxOutputBytes', l.maxOutputBytes, true),
    maxOpenFiles: l.maxOpenFiles === undefined ? DEFAULT_OPEN_FILES : checkPositive('maxOpenFiles', l.maxOpenFiles, true),
    tmpBytes:
      l.tmpBytes === undefined ? Math.min(memoryBytes, DEFAULT_TMP_CAP) : checkPositive('tmpBytes', l.tmpBytes, true),
  };
}

function validateSpec(spec: RunSpec): void {
  if (!Array.isArray(spec.argv) || spec.argv.length === 0) throw new SandboxSpecError('argv must be a non-empty array');
  for (const a of spec.argv) {
    if (typeof a !== 'string') throw new SandboxSpecError('argv entries must be strings');
    if (a.includes('\0')) throw new SandboxSpecError('argv entries must not contain NUL');
  }
  if (spec.argv[0] === '') throw new SandboxSpecError('argv[0] must not be empty');
  if (spec.shell === false && isShell(spec.argv[0]!)) {
    throw new SandboxSpecError(`argv[0] '${spec.argv[0]}' is a shell and shells are not allowed for this run`);
  }
  if (spec.isolation !== 'bubblewrap' && spec.isolation !== 'none') {
    throw new SandboxSpecError(`isolation must be 'bubblewrap' or 'none'`);
  }
  if (spec.isolation === 'none' && spec.argv[0]!.includes('=')) {
    // env(1) would take it for an assignment.
    throw new SandboxSpecError("argv[0] must not contain '=' in isolation 'none'");
  }
  if (typeof spec.workdir !== 'string' || !path.isAbsolute(spec.workdir)) {
    throw new SandboxSpecError('workdir must be an absolute host path');
  }
  for (const [k, v] of Object.entries(spec.env ?? {})) {
    if (!ENV_KEY.test(k)) throw new SandboxSpecError(`env name '${k}' is not a valid variable name`);
    if (typeof v !== 'string' || v.includes('\0')) throw new SandboxSpecError(`env ${k} must be a string without NUL`);
  }
}

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(osConstants.signals).map(([name, num]) => [num as number, name]),
);

/** Per-workdir state: active runs, and a gate that holds new runs while owners are normalised. */
interface WorkdirState {
  active: number;
  gate: Promise<void>;
}
const workdirs = new Map<string, WorkdirState>();

const MEMORY_RLIMIT_NOTE =
  'memory is limited per process only (RLIMIT_DATA): shared anonymous mappings are not counted, and ' +
  'each process of the run may use the full limit.';

function makeReport(host: HostState, spec: RunSpec, uid: number | null, gid: number | null): RunIsolationReport {
  const r: RunIsolationReport = {
    kind: spec.isolation,
    uid_isolation: host.uidIsolation,
    uid,
    gid,
    memory_limit: host.memoryCgroup ? 'cgroup' : 'rlimit_data',
    enforced: {
      wall_time: true,
      cpu_time: true,
      memory: true,
      processes: host.uidIsolation,
      file_size: true,
      output_bytes: true,
    },
  };
  if (spec.isolation === 'bubblewrap' && host.bwrapVersion) r.version = host.bwrapVersion;
  const notes: string[] = [];
  if (spec.isolation === 'none') notes.push(NONE_WEAKER);
  if (!host.uidIsolation) {
    notes.push(
      'not running as root: the command runs as the runtime user, so the process limit is not enforced ' +
        '(RLIMIT_NPROC would count every process of that user) and stray processes cannot be swept by uid.',
    );
  }
  if (!host.memoryCgroup) notes.push(MEMORY_RLIMIT_NOTE);
  if (notes.length > 0) r.weaker = notes.join(' ');
  return r;
}

function emptyOutcome(status: RunStatus, reason: string, isolation: RunIsolationReport): RunOutcome {
  return {
    status,
    exit_code: null,
    signal: null,
    duration_ms: 0,
    stdout_tail: '',
    stderr_tail: '',
    output_bytes: 0,
    dropped_bytes: 0,
    truncated: false,
    reason,
    isolation,
  };
}

const MEMORY_PATTERN =
  /MemoryError|Out of memory|out of memory|Cannot allocate memory|std::bad_alloc|allocation (of \d+ bytes )?failed|failed to allocate|mmap\(\) failed|JavaScript heap|insufficient memory/;
const FORK_PATTERN =
  /Cannot fork|can't fork|fork: (retry|Resource temporarily unavailable)|BlockingIOError: \[Errno 11\]/i;
const FSIZE_PATTERN = /File too large|File size limit exceeded/;

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

  let state = workdirs.get(workdir);
  if (!state) {
    state = { active: 0, gate: Promise.resolve() };
    workdirs.set(workdir, state);
  }
  for (;;) {
    const g = state.gate;
    await g;
    if (state.gate === g) break;
  }
  let uid: number | null = null;
  if (gid !== null) uid = acquireRunUid(gid);
  state.active++;
  const ctx = { uidClean: true };
  try {
    // What earlier runs left behind on the home uid still counts toward its process limit: allowed
    // for, or waited for when there are many (ids.ts, untilReaped); only those recorded are looked
    // at. A fresh uid of the run range has nothing left behind.
    const leftovers = uid !== null && uid === gid ? await untilReaped(uid) : 0;
    if (uid !== null && gid !== null) {
      if (uid !== gid) {
        await markOwnersDirty(workdir);
      } else if (state.active === 1) {
        const g = uid;
        const walk = (async () => {
          if (await ownersDirty(workdir)) {
            await normaliseOwners(workdir, g, g);
            await clearOwnersDirty(workdir);
          }
        })();
        state.gate = walk.catch(() => undefined);
        await state.gate;
      }
    }
    const report = makeReport(host, spec, uid, gid);
    return await execute(host, spec, hooks, limits, workdir, uid, gid, report, ctx, leftovers);
  } finally {
    state.active--;
    if (state.active === 0) workdirs.delete(workdir);
    if (uid !== null) releaseRunUid(uid, ctx.uidClean);
  }
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
  const a = [
    `--cpu=${l.cpuSeconds}:${l.cpuSeconds + 1}`,
    `--data=${l.memoryBytes}`,
    `--fsize=${l.maxFileBytes}`,
    `--nofile=${l.maxOpenFiles}`,
    '--core=0',
  ];
  // RLIMIT_NPROC counts every process of the uid: the chain's helpers and, on a home uid, what
  // earlier runs left that init has not reaped yet (untilReaped) are added to the run's own limit.
  if (uid !== null) a.push(`--nproc=${l.maxProcesses + (mode === 'bubblewrap' ? BWRAP_HELPER_PROCESSES : 0) + leftovers}`);
  return a;
}

const ARGS_FD = 3;
const ETC_FDS: Record<keyof SyntheticEtc, number> = { passwd: 4, group: 5, hosts: 6, 'nsswitch.conf': 7 };
/**
 * bwrap writes {"child-pid": N} here: the host pid of its pid-1 reaper, which outlives bwrap (the
 * monitor exits as soon as the command's exit status arrives) and is left to the host's init.
 */
const INFO_FD = 8;

/** fd numbers (in the spawned process) of the pipes we pass: bwrap data, then the cgroup gate. */
function fdLayout(mode: RunSpec['isolation'], gated: boolean): { last: number; gate: number | null } {
  const lastData = mode === 'bubblewrap' ? INFO_FD : 2;
  return gated ? { last: lastData + 1, gate: lastData + 1 } : { last: lastData, gate: null };
}

/** The exact host argv for a run (exported for tests and for documentation). */
export function hostCommand(
  host: HostState,
  spec: RunSpec,
  limits: ResolvedLimits,
  workdir: string,
  uid: number | null,
  gated: boolean,
  leftovers = 0,
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
  const pre = [shell, '-c', script, 'lore-sandbox', host.tools.prlimit!, ...prlimitArgs(limits, spec.isolation, uid, leftovers), '--'];
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

function writeFd(child: ChildProcess, fd: number, data: string | Buffer): void {
  const s = child.stdio[fd] as Writable | null | undefined;
  if (!s) return;
  s.on('error', () => undefined); // the child may die before reading (reported through its exit)
  s.end(data);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
let cgroupCounter = 0;

type EndedBy = null | 'timeout' | 'cancel' | 'output' | 'hook_error';

async function execute(
  host: HostState,
  spec: RunSpec,
  hooks: RunHooks,
  limits: ResolvedLimits,
  workdir: string,
  uid: number | null,
  gid: number | null,
  report: RunIsolationReport,
  ctx: { uidClean: boolean },
  leftovers: number,
): Promise<RunOutcome> {
  const mode = spec.isolation;
  if (mode === 'none') {
    const tmp = path.join(workdir, '.tmp');
    await fsp.mkdir(tmp, { recursive: true });
    if (gid !== null) {
      await fsp.lchown(tmp, gid, gid).catch(() => undefined);
      await fsp.chmod(tmp, 0o2770).catch(() => undefined);
    }
  }

  let cg: RunCgroup | null = null;
  if (host.memoryCgroup) {
    try {
      cg = RunCgroup.create(host.memoryCgroup, `run-${process.pid}-${++cgroupCounter}`, limits.memoryBytes);
    } catch (e) {
      report.memory_limit = 'rlimit_data';
      report.weaker = [report.weaker, `memory cgroup could not be created (${(e as Error).message}); ${MEMORY_RLIMIT_NOTE}`]
        .filter(Boolean)
        .join(' ');
    }
  }

  const cmd = hostCommand(host, spec, limits, workdir, uid, cg !== null, leftovers);
  const stdio: ('ignore' | 'pipe')[] = ['ignore', ...Array<'pipe'>(cmd.lastFd).fill('pipe')];
  const started = performance.now();
  let child: ChildProcess;
  try {
    child = spawn(cmd.file, cmd.args, {
      stdio,
      detached: true, // own process group: the whole chain can be killed at once
      cwd: mode === 'none' ? workdir : '/',
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
      ...(uid !== null && gid !== null ? { uid, gid } : {}),
    });
  } catch (e) {
    await cg?.remove();
    throw e;
  }

  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => undefined);
  const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, sig })),
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const pid = child.pid;

  // Into the memory cgroup before anything runs, then open the gate.
  if (cg && cmd.gateFd !== null && pid !== undefined) {
    try {
      cg.add(pid);
    } catch (e) {
      report.memory_limit = 'rlimit_data';
      report.weaker = [report.weaker, `could not join the memory cgroup (${(e as Error).message}); ${MEMORY_RLIMIT_NOTE}`]
        .filter(Boolean)
        .join(' ');
    }
    writeFd(child, cmd.gateFd, 'go\n');
  }
  let bwrapInfo = '';
  const info = mode === 'bubblewrap' ? ((child.stdio as readonly unknown[])[INFO_FD] as Readable | null | undefined) : null;
  if (mode === 'bubblewrap') {
    info?.on('data', (b: Buffer) => {
      if (bwrapInfo.length < 4096) bwrapInfo += b.toString('latin1');
    });
    info?.on('error', () => undefined);
    writeFd(child, ARGS_FD, cmd.bwrapArgs!.join('\0') + '\0');
    const etc = syntheticEtc(uid ?? process.getuid?.() ?? 0, gid ?? process.getgid?.() ?? 0);
    for (const [name, fd] of Object.entries(ETC_FDS)) writeFd(child, fd, etc[name as keyof SyntheticEtc]);
  }

  let endedBy: EndedBy = null;
  let hookError: unknown = null;
  let hasExited = false;
  let processesAtKill: number | null = null;

  const killTree = (why: Exclude<EndedBy, null>) => {
    if (endedBy !== null || hasExited) return;
    endedBy = why;
    if (uid !== null) {
      const mine = listProcesses().filter((p) => p.uids.includes(uid));
      processesAtKill = mine.filter((p) => !p.zombie).length;
      // They die, and are reaped, after the run has ended (and its dead but unreaped ones with them):
      // the next run on the uid allows for them, or waits for them (untilReaped).
      noteLeftBehind(uid, mine.map((p) => p.pid));
    }
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL'); // the chain's process group: bwrap (its sandbox dies with it) or the command
      } catch {
        /* already gone */
      }
    }
    // Processes that left the group (setsid, double fork) are found through the cgroup and the uid.
    for (const p of cg?.pids() ?? []) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (uid !== null && gid !== null) void sweepUid(uid, gid, host.tools.kill);
  };

  const collector = new OutputCollector(
    limits.maxOutputBytes,
    (stream, chunk, seq) => {
      if (hookError !== null) return;
      try {
        hooks.onOutput(stream, chunk, seq);
      } catch (e) {
        hookError = e;
        killTree('hook_error');
      }
    },
    () => killTree('output'),
  );
  child.stdout?.on('data', (b: Buffer) => collector.push('stdout', b));
  child.stderr?.on('data', (b: Buffer) => collector.push('stderr', b));
  child.stdout?.on('error', () => undefined);
  child.stderr?.on('error', () => undefined);

  const timer = setTimeout(() => killTree('timeout'), limits.wallMs);
  const onAbort = () => killTree('cancel');
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  if (hooks.signal?.aborted) onAbort();
  if (pid !== undefined && hooks.onStart) {
    try {
      hooks.onStart(pid);
    } catch (e) {
      hookError = e;
      killTree('hook_error');
    }
  }

  let exit: { code: number | null; sig: NodeJS.Signals | null };
  let oomKills = 0;
  try {
    try {
      exit = await Promise.race([exited, spawnError]);
    } catch (e) {
      if (uid !== null && gid !== null) ctx.uidClean = await sweepUid(uid, gid, host.tools.kill);
      throw e;
    }
    hasExited = true;
    // The run ends when its main process ends: nothing it started may outlive it.
    // bubblewrap, natural end: bwrap exits as soon as its pid-1 reaper reports the command's exit
    // status; the reaper then dies with it (--die-with-parent), and the kernel kills every process
    // of a pid namespace when its init dies, so no process of the run survives and the /proc scan
    // (~3 ms) is skipped. They may still be dying for a moment, and the reaper is left to the host's
    // init: its pid (--info-fd) is recorded and the next run on the uid allows for it. After our own
    // kill (the sandbox dies asynchronously) and in 'none' mode, every process of the run uid is
    // found and killed.
    const pidNamespaceGone = mode === 'bubblewrap' && endedBy === null && exit.sig === null;
    if (uid !== null && gid !== null && !pidNamespaceGone) {
      ctx.uidClean = await sweepUid(uid, gid, host.tools.kill);
    } else if (pid !== undefined && uid === null) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* group already empty */
      }
    }
    const closedInTime = await Promise.race([closed.then(() => true), sleep(CLOSE_GRACE_MS).then(() => false)]);
    if (!closedInTime) {
      // Only possible without uid isolation and cgroup: a process that left the group holds the pipes.
      child.stdout?.destroy();
      child.stderr?.destroy();
      info?.destroy();
    }
    // bwrap's pid-1 reaper is left to the host's init, killed or not: the next run on the uid allows for it.
    const reaper = /"child-pid":\s*(\d+)/.exec(bwrapInfo);
    if (reaper && uid !== null) noteLeftBehind(uid, [Number(reaper[1])]);
  } finally {
    clearTimeout(timer);
    hooks.signal?.removeEventListener('abort', onAbort);
    if (cg) {
      oomKills = cg.oomKills();
      if (!(await cg.remove())) ctx.uidClean = false;
    }
  }
  const duration_ms = Math.round(performance.now() - started);
  if (hookError !== null) throw hookError;

  const tails = collector.finish();
  const outcome: RunOutcome = {
    status: 'failed',
    exit_code: null,
    signal: null,
    duration_ms,
    stdout_tail: tails.stdout_tail,
    stderr_tail: tails.stderr_tail,
    output_bytes: collector.outputBytes,
    dropped_bytes: collector.droppedBytes,
    truncated: collector.truncated,
    isolation: report,
  };
  interpretExit(outcome, exit, mode, limits, endedBy, processesAtKill, oomKills);
  return outcome;
}

function interpretExit(
  o: RunOutcome,
  exit: { code: number | null; sig: NodeJS.Signals | null },
  mode: RunSpec['isolation'],
  limits: ResolvedLimits,
  endedBy: EndedBy,
  processesAtKill: number | null,
  oomKills: number,
): void {
  let code = exit.code;
  let sig: string | null = exit.sig;
  let inferred = false;
  // bwrap reports a command killed by signal N as exit status 128+N.
  if (mode === 'bubblewrap' && sig === null && code !== null && code > 128 && SIGNAL_NAMES.has(code - 128)) {
    sig = SIGNAL_NAMES.get(code - 128)!;
    code = null;
    inferred = true;
  }
  o.exit_code = code;
  o.signal = sig;
  const saturated =
    processesAtKill !== null && processesAtKill >= limits.maxProcesses
      ? ` The process limit was saturated (${processesAtKill} processes of the run uid at kill time).`
      : '';
  const oomNote =
    oomKills > 0
      ? ` The kernel OOM killer ended ${oomKills} process(es) of the run at the memory limit of ${limits.memoryBytes} bytes (whole process tree).`
      : '';

  if (endedBy === 'cancel') {
    o.status = 'cancelled';
    o.reason = 'cancelled by the caller; process tree killed';
    return;
  }
  if (endedBy === 'timeout') {
    o.status = 'timed_out';
    o.limit_hit = 'wall_time';
    o.reason = `exceeded the wall time limit of ${limits.wallMs} ms; process tree killed.${saturated}${oomNote}`;
    return;
  }
  if (endedBy === 'output') {
    o.status = 'failed';
    o.limit_hit = 'output_bytes';
    o.reason = `output exceeded ${limits.maxOutputBytes} bytes; output truncated and process tree killed.${oomNote}`;
    return;
  }
  const truncatedNote = o.truncated ? ` Output was truncated at ${limits.maxOutputBytes} bytes.` : '';
  if (code === 0 && sig === null) {
    // The command's own verdict stands, but say what the limits did to it.
    o.status = 'succeeded';
    if (oomKills > 0) {
      o.limit_hit = 'memory';
      o.reason = `exited with code 0.${oomNote}${truncatedNote}`;
    } else if (o.truncated) {
      o.limit_hit = 'output_bytes';
      o.reason = `exited with code 0.${truncatedNote}`;
    }
    return;
  }
  o.status = 'failed';
  const stderr = o.stderr_tail;
  const how =
    sig !== null
      ? `killed by ${sig}${inferred ? ` (bubblewrap exit status ${exit.code} = 128+${exit.code! - 128})` : ''}`
      : `exited with code ${code}`;
  if (oomKills > 0) {
    o.limit_hit = 'memory';
    o.reason = `${how}.${oomNote}${truncatedNote}`;
    return;
  }
  let hit: LimitName | undefined;
  if (sig === 'SIGXCPU') hit = 'cpu_time';
  else if (sig === 'SIGXFSZ') hit = 'file_size';
  else if (sig === 'SIGKILL' && o.duration_ms >= limits.cpuSeconds * 1000) hit = 'cpu_time'; // hard RLIMIT_CPU
  else if (MEMORY_PATTERN.test(stderr)) hit = 'memory';
  else if (FSIZE_PATTERN.test(stderr)) hit = 'file_size';
  else if (FORK_PATTERN.test(stderr)) hit = 'processes';
  else if (o.truncated) hit = 'output_bytes';
  if (hit) o.limit_hit = hit;

  const notFound = mode === 'bubblewrap' && code === 1 ? /^bwrap: execvp (.*): (No such file or directory|Permission denied)$/m.exec(stderr) : null;
  if (notFound) {
    o.exit_code = notFound[2] === 'Permission denied' ? 126 : 127;
    o.reason = `${notFound[2] === 'Permission denied' ? 'command not executable' : 'command not found'}: ${notFound[1]}`;
    return;
  }
  if (mode === 'bubblewrap' && code === 1 && /^bwrap: /m.test(stderr) && o.output_bytes < 4096) {
    const line = /^bwrap: .*$/m.exec(stderr)![0];
    o.reason = `sandbox setup failed: ${line}`;
    return;
  }
  const limitText: Record<LimitName, string> = {
    cpu_time: `CPU time limit of ${limits.cpuSeconds} s`,
    file_size: `file size limit of ${limits.maxFileBytes} bytes`,
    memory: `memory limit of ${limits.memoryBytes} bytes (allocation failed)`,
    processes: `process limit of ${limits.maxProcesses}`,
    wall_time: `wall time limit of ${limits.wallMs} ms`,
    output_bytes: `output limit of ${limits.maxOutputBytes} bytes`,
  };
  o.reason = (hit ? `${how}: hit the ${limitText[hit]}` : how) + (hit !== 'output_bytes' ? truncatedNote : '');
}
