/**
 * One run's process, from a prepared workdir to its outcome, in three steps: preparation (the
 * 'none' mode's tmp dir, the memory cgroup, the host command), spawn (the chain started detached,
 * moved into the cgroup, fed its bwrap arguments, watched by the wall-time timer, the caller's
 * abort signal and the output limit) and settlement (wait for the exit, sweep what is left of the
 * run's uid, remove the cgroup, interpret the exit). runCore (run.ts) checks the spec and the
 * workdir and holds the run's uid around it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { syntheticEtc, type SyntheticEtc } from './bwrap';
import { RunCgroup } from './cgroup';
import { ARGS_FD, ETC_FDS, hostCommand, INFO_FD } from './command';
import { interpretExit, type EndedBy } from './exit';
import type { HostState } from './host';
import { listProcesses, noteLeftBehind, sweepUid } from './ids';
import { OutputCollector } from './output';
import type { OverlayMount } from './overlay';
import { MEMORY_RLIMIT_NOTE } from './report';
import type { ResolvedLimits } from './spec';
import type { RunHooks, RunIsolationReport, RunOutcome, RunSpec } from './types';

const CLOSE_GRACE_MS = 2000;

export interface ExecuteOptions {
  host: HostState;
  spec: RunSpec;
  hooks: RunHooks;
  limits: ResolvedLimits;
  /** The workdir's real path. */
  workdir: string;
  /** The run's uid and gid (null without uid isolation). */
  uid: number | null;
  gid: number | null;
  /** The outcome's isolation report; a memory cgroup that cannot be used makes it say so. */
  report: RunIsolationReport;
  /** Set to false when the uid may still have processes of this run (runCore releases it as not clean). */
  ctx: { uidClean: boolean };
  /** Processes earlier runs left on the uid, allowed for in its process limit (ids.ts, untilReaped). */
  leftovers: number;
  /** The workspace overlay to mount before the chain starts (overlay.ts), or null. */
  overlay: OverlayMount | null;
}

interface Prepared {
  cg: RunCgroup | null;
  cmd: ReturnType<typeof hostCommand>;
}

/** The spawned chain and what watches it; the kill state changes while it runs. */
interface Running {
  child: ChildProcess;
  pid: number | undefined;
  started: number;
  spawnError: Promise<never>;
  exited: Promise<{ code: number | null; sig: NodeJS.Signals | null }>;
  closed: Promise<void>;
  info: Readable | null | undefined;
  bwrapInfo: string;
  endedBy: EndedBy;
  hookError: unknown;
  hasExited: boolean;
  processesAtKill: number | null;
  collector: OutputCollector;
  /** The wall-time timer (set once everything else watches the chain). */
  timer?: NodeJS.Timeout;
  onAbort: () => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
let cgroupCounter = 0;

export async function execute(o: ExecuteOptions): Promise<RunOutcome> {
  const prepared = await prepare(o);
  const running = await spawnChain(o, prepared);
  return settle(o, prepared, running);
}

function weaken(report: RunIsolationReport, why: string): void {
  report.memory_limit = 'rlimit_data';
  report.weaker = [report.weaker, `${why}; ${MEMORY_RLIMIT_NOTE}`].filter(Boolean).join(' ');
}

async function prepare(o: ExecuteOptions): Promise<Prepared> {
  const { host, spec, limits, workdir, uid, gid } = o;
  if (spec.isolation === 'none') {
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
      weaken(o.report, `memory cgroup could not be created (${(e as Error).message})`);
    }
  }
  return { cg, cmd: hostCommand(host, spec, limits, workdir, uid, cg !== null, o.leftovers, o.overlay) };
}

function writeFd(child: ChildProcess, fd: number, data: string | Buffer): void {
  const s = child.stdio[fd] as Writable | null | undefined;
  if (!s) return;
  s.on('error', () => undefined); // the child may die before reading (reported through its exit)
  s.end(data);
}

async function spawnChain(o: ExecuteOptions, { cg, cmd }: Prepared): Promise<Running> {
  const { spec, hooks, limits, workdir, uid, gid } = o;
  const mode = spec.isolation;
  const stdio: ('ignore' | 'pipe')[] = ['ignore', ...Array<'pipe'>(cmd.lastFd).fill('pipe')];
  const started = performance.now();
  let child: ChildProcess;
  try {
    child = spawn(cmd.file, cmd.args, {
      stdio,
      detached: true, // own process group: the whole chain can be killed at once
      cwd: mode === 'none' ? workdir : '/',
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
      // The overlay helper mounts as root, then becomes the run's uid itself (overlay.ts).
      ...(uid !== null && gid !== null && !o.overlay ? { uid, gid } : {}),
    });
  } catch (e) {
    await cg?.remove();
    throw e;
  }

  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => undefined);
  const exited = new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, sig) => resolve({ code, sig })));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const pid = child.pid;

  // Into the memory cgroup before anything runs, then open the gate.
  if (cg && cmd.gateFd !== null && pid !== undefined) {
    try {
      cg.add(pid);
    } catch (e) {
      weaken(o.report, `could not join the memory cgroup (${(e as Error).message})`);
    }
    writeFd(child, cmd.gateFd, 'go\n');
  }
  const info = mode === 'bubblewrap' ? ((child.stdio as readonly unknown[])[INFO_FD] as Readable | null | undefined) : null;
  const r: Running = {
    child,
    pid,
    started,
    spawnError,
    exited,
    closed,
    info,
    bwrapInfo: '',
    endedBy: null,
    hookError: null,
    hasExited: false,
    processesAtKill: null,
    collector: new OutputCollector(
      limits.maxOutputBytes,
      (stream, chunk, seq) => {
        if (r.hookError !== null) return;
        try {
          hooks.onOutput(stream, chunk, seq);
        } catch (e) {
          r.hookError = e;
          killTree(o, cg, r, 'hook_error');
        }
      },
      () => killTree(o, cg, r, 'output'),
    ),
    onAbort: () => killTree(o, cg, r, 'cancel'),
  };
  if (mode === 'bubblewrap') {
    info?.on('data', (b: Buffer) => {
      if (r.bwrapInfo.length < 4096) r.bwrapInfo += b.toString('latin1');
    });
    info?.on('error', () => undefined);
    writeFd(child, ARGS_FD, cmd.bwrapArgs!.join('\0') + '\0');
    const etc = syntheticEtc(uid ?? process.getuid?.() ?? 0, gid ?? process.getgid?.() ?? 0);
    for (const [name, fd] of Object.entries(ETC_FDS)) writeFd(child, fd, etc[name as keyof SyntheticEtc]);
  }

  child.stdout?.on('data', (b: Buffer) => r.collector.push('stdout', b));
  child.stderr?.on('data', (b: Buffer) => r.collector.push('stderr', b));
  child.stdout?.on('error', () => undefined);
  child.stderr?.on('error', () => undefined);

  r.timer = setTimeout(() => killTree(o, cg, r, 'timeout'), limits.wallMs);
  hooks.signal?.addEventListener('abort', r.onAbort, { once: true });
  if (hooks.signal?.aborted) r.onAbort();
  if (pid !== undefined && hooks.onStart) {
    try {
      hooks.onStart(pid);
    } catch (e) {
      r.hookError = e;
      killTree(o, cg, r, 'hook_error');
    }
  }
  return r;
}

/** Ends the run early (timeout, cancel, output limit, a hook's exception): every process of it is killed. */
function killTree(o: ExecuteOptions, cg: RunCgroup | null, r: Running, why: Exclude<EndedBy, null>): void {
  const { host, uid, gid } = o;
  if (r.endedBy !== null || r.hasExited) return;
  r.endedBy = why;
  if (uid !== null) {
    const mine = listProcesses().filter((p) => p.uids.includes(uid));
    r.processesAtKill = mine.filter((p) => !p.zombie).length;
    // They die, and are reaped, after the run has ended (and its dead but unreaped ones with them):
    // the next run on the uid allows for them, or waits for them (untilReaped).
    noteLeftBehind(
      uid,
      mine.map((p) => p.pid),
    );
  }
  if (r.pid !== undefined) {
    try {
      process.kill(-r.pid, 'SIGKILL'); // the chain's process group: bwrap (its sandbox dies with it) or the command
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
}

async function settle(o: ExecuteOptions, { cg }: Prepared, r: Running): Promise<RunOutcome> {
  const { host, spec, hooks, limits, uid, gid, ctx } = o;
  const mode = spec.isolation;
  let exit: { code: number | null; sig: NodeJS.Signals | null };
  let oomKills = 0;
  try {
    try {
      exit = await Promise.race([r.exited, r.spawnError]);
    } catch (e) {
      if (uid !== null && gid !== null) ctx.uidClean = await sweepUid(uid, gid, host.tools.kill);
      throw e;
    }
    r.hasExited = true;
    // The run ends when its main process ends: nothing it started may outlive it.
    // bubblewrap, natural end: bwrap exits as soon as its pid-1 reaper reports the command's exit
    // status; the reaper then dies with it (--die-with-parent), and the kernel kills every process
    // of a pid namespace when its init dies, so no process of the run survives and the /proc scan
    // (~3 ms) is skipped. They may still be dying for a moment, and the reaper is left to the host's
    // init: its pid (--info-fd) is recorded and the next run on the uid allows for it. After our own
    // kill (the sandbox dies asynchronously) and in 'none' mode, every process of the run uid is
    // found and killed.
    const pidNamespaceGone = mode === 'bubblewrap' && r.endedBy === null && exit.sig === null;
    if (uid !== null && gid !== null && !pidNamespaceGone) {
      ctx.uidClean = await sweepUid(uid, gid, host.tools.kill);
    } else if (r.pid !== undefined && uid === null) {
      try {
        process.kill(-r.pid, 'SIGKILL');
      } catch {
        /* group already empty */
      }
    }
    const closedInTime = await Promise.race([r.closed.then(() => true), sleep(CLOSE_GRACE_MS).then(() => false)]);
    if (!closedInTime) {
      // Only possible without uid isolation and cgroup: a process that left the group holds the pipes.
      r.child.stdout?.destroy();
      r.child.stderr?.destroy();
      r.info?.destroy();
    }
    // bwrap's pid-1 reaper is left to the host's init, killed or not: the next run on the uid allows for it.
    const reaper = /"child-pid":\s*(\d+)/.exec(r.bwrapInfo);
    if (reaper && uid !== null) noteLeftBehind(uid, [Number(reaper[1])]);
  } finally {
    clearTimeout(r.timer);
    hooks.signal?.removeEventListener('abort', r.onAbort);
    if (cg) {
      oomKills = cg.oomKills();
      if (!(await cg.remove())) ctx.uidClean = false;
    }
  }
  const duration_ms = Math.round(performance.now() - r.started);
  if (r.hookError !== null) throw r.hookError;

  const tails = r.collector.finish();
  const outcome: RunOutcome = {
    status: 'failed',
    exit_code: null,
    signal: null,
    duration_ms,
    stdout_tail: tails.stdout_tail,
    stderr_tail: tails.stderr_tail,
    output_bytes: r.collector.outputBytes,
    dropped_bytes: r.collector.droppedBytes,
    truncated: r.collector.truncated,
    isolation: o.report,
  };
  interpretExit(outcome, exit, mode, limits, r.endedBy, r.processesAtKill, oomKills);
  return outcome;
}
