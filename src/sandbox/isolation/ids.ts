/**
 * Host uid/gid bookkeeping for sandbox runs (only used when we run as root).
 *
 * The id range (default 200000–265535; the worker passes LORE_SANDBOX_ID_MIN / LORE_SANDBOX_ID_MAX
 * from config.ts to configureIdRange) must be reserved for ONE Lore process: nothing else on the
 * host may use these ids, because the runner kills every process owned by a run uid when the run
 * ends, and on first use every process of the range it does not own. The range is split in two halves:
 *
 *  - session ids (lower half): each prepared workdir gets one number N. The workdir is owned by
 *    root:N with mode 2770, and runs of that session execute with gid N. N is also the session's
 *    "home uid": a run uses uid N when no other run is using it, so files keep one owner across
 *    sequential runs (chmod of an earlier run's file works).
 *  - run ids (upper half): when the home uid is busy (concurrent runs in one session), the run gets
 *    a fresh uid from here. RLIMIT_NPROC is counted per uid, so a distinct uid per concurrent run
 *    keeps one run's process limit from starving another's.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface IdRange {
  min: number;
  max: number;
}

// config.ts is the only reader of the environment; callers pass the configured range in.
let range: IdRange = { min: 200000, max: 265535 };

export function configureIdRange(r: IdRange): void {
  if (!Number.isInteger(r.min) || !Number.isInteger(r.max) || r.min < 1000 || r.max - r.min < 16) {
    throw new Error(`invalid sandbox id range ${r.min}-${r.max}`);
  }
  if (r.min === range.min && r.max === range.max) return;
  range = { ...r };
  // Leftovers of a dead predecessor in the new range have not been reaped yet.
  straysReaped = false;
}

export function idRanges(): { session: IdRange; run: IdRange } {
  const mid = range.min + Math.floor((range.max - range.min + 1) / 2);
  return { session: { min: range.min, max: mid - 1 }, run: { min: mid, max: range.max } };
}

export function isSessionId(id: number): boolean {
  const { session } = idRanges();
  return id >= session.min && id <= session.max;
}

/** Where process information comes from: the host's /proc (tests stage their own). */
export interface ProcessSource {
  /** Every process (a scan of /proc: ~1 ms). */
  list(): ProcInfo[];
  /** One process by pid, or null when there is none (one file read). */
  get(pid: number): ProcInfo | null;
}

const hostProcesses: ProcessSource = { list: () => readProcesses(), get: (pid) => readProcess(pid) };
let processes: ProcessSource = hostProcesses;

/**
 * Tests only: replaces the /proc reader behind listProcesses and the per-pid checks (to count
 * reads, or to stage processes that do not exist); null restores it.
 */
export function setProcessSourceForTests(source: ProcessSource | null): void {
  processes = source ?? hostProcesses;
}

const busy = new Set<number>();
const quarantined = new Set<number>();
let cursor = -1;
let straysReaped = false;

/**
 * Per home (session) uid, the processes its runs left behind (pids): what the end-of-run sweep
 * found or killed, the tree the runner killed, a bubblewrap run's pid-1 reaper (ids.ts is told by
 * run.ts), strays killed on first use. Until the host's init reaps them they count toward the
 * uid's process limit; the next run on the uid allows for them, or waits for them (untilReaped).
 */
const leftBehind = new Map<number, Set<number>>();

export interface ProcInfo {
  pid: number;
  uids: number[];
  zombie: boolean;
}

/** Every process on the host with its real/effective/saved uids (read from /proc, synchronously: ~ms). */
export function listProcesses(): ProcInfo[] {
  return processes.list();
}

/** listProcesses' reader: the host's /proc. */
export function readProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    const c = e.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const p = readProcess(Number(e));
    if (p) out.push(p);
  }
  return out;
}

/** One process from the host's /proc (null when it does not exist). */
export function readProcess(pid: number): ProcInfo | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return null; // exited meanwhile
  }
  const m = /\nUid:\s+(\d+)\s+(\d+)\s+(\d+)/.exec(status);
  if (!m) return null;
  const state = /\nState:\s+(\S)/.exec(status);
  return { pid, uids: [Number(m[1]), Number(m[2]), Number(m[3])], zombie: state?.[1] === 'Z' || state?.[1] === 'X' };
}

/**
 * Records processes of `uid` that outlive its run (see leftBehind). Only home uids are recorded:
 * a fresh uid of the run range is not reused soon.
 */
export function noteLeftBehind(uid: number, pids: Iterable<number>): void {
  if (!isSessionId(uid)) return;
  let set = leftBehind.get(uid);
  for (const pid of pids) {
    if (!set) leftBehind.set(uid, (set = new Set()));
    set.add(pid);
  }
}

/** Live (non-zombie) pids that have `uid` as real, effective or saved uid. */
export function livePidsOfUid(uid: number): number[] {
  return listProcesses()
    .filter((p) => !p.zombie && p.uids.includes(uid))
    .map((p) => p.pid);
}

/**
 * Kill every process of the range that is not owned by a run of this process: leftovers of a
 * previous Lore instance that died (bubblewrap sandboxes die with their parent; 'none' mode
 * processes may not). Runs once, before the first uid is handed out; what it finds is recorded
 * like what a run leaves behind (untilReaped).
 */
function reapStrays(): void {
  if (straysReaped) return;
  straysReaped = true;
  for (const p of listProcesses()) {
    const strays = p.uids.filter((u) => u >= range.min && u <= range.max && !busy.has(u));
    if (strays.length === 0) continue;
    // Killed (or already dead) strays are zombies until init reaps them: their uids' next runs allow for them.
    for (const u of strays) noteLeftBehind(u, [p.pid]);
    if (p.zombie) continue;
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

const reaping = new Map<number, Promise<number>>();

/** How long a run waits for its home uid's dead processes to be reaped (see untilReaped). */
const REAP_WAIT_MS = 3000;

/**
 * Processes left behind that a run starts beside without waiting; its process limit is raised by
 * their number instead (see untilReaped). Covers bubblewrap's pid-1 reaper, which every run leaves.
 */
export const REAP_ALLOWANCE = 2;

/**
 * Resolves with the number of processes the previous runs on `uid` left behind that are still
 * there; the caller raises the run's process limit by that number (prlimitArgs). Dead processes of
 * a finished run are orphans the host's init reaps, not Lore, and until then they still count
 * toward their uid's process limit (RLIMIT_NPROC). A workdir's runs reuse its home uid (they must:
 * its files are that uid's), so a run started right after one that left many (a fork bomb, a
 * killed tree) could not fork at all (`sh: Cannot fork`).
 *
 * - Up to REAP_ALLOWANCE of them: no wait. Every bubblewrap run leaves its pid-1 reaper (bwrap's
 *   monitor exits on the command's exit status), and hosts reap at their own pace: about 1-2 s
 *   under this machine's init, never under an init that does not reap (node as pid 1). Waiting for
 *   it cost every run on a workdir up to 2 s. The run's limit is raised by their number, so it gets
 *   its whole limit; if they are reaped while it runs, it may exceed its limit by that many.
 * - More (a fork bomb, a killed tree): the run waits until at most REAP_ALLOWANCE are left, or
 *   REAP_WAIT_MS, and the rest are allowed for. The run that left them does not wait, so a
 *   cancelled run still ends at once. Callers share one poll per uid.
 *
 * Those still there stay recorded for the next run. Only the recorded pids are looked at (one
 * /proc/<pid>/status read each), never the whole of /proc: a uid whose runs left nothing behind
 * costs nothing.
 */
export function untilReaped(uid: number): Promise<number> {
  reapStrays();
  const pending = reaping.get(uid);
  if (pending) return pending;
  const recorded = leftBehind.get(uid);
  if (!recorded) return Promise.resolve(0);
  leftBehind.delete(uid);
  const there = (pid: number) => processes.get(pid)?.uids.includes(uid) === true;
  let left = [...recorded].filter(there);
  if (left.length <= REAP_ALLOWANCE) {
    noteLeftBehind(uid, left);
    return Promise.resolve(left.length);
  }
  const done = (async () => {
    const deadline = Date.now() + REAP_WAIT_MS;
    while (left.length > REAP_ALLOWANCE && Date.now() < deadline) {
      await sleep(20);
      left = left.filter(there);
    }
    noteLeftBehind(uid, left);
    return left.length;
  })().finally(() => reaping.delete(uid));
  reaping.set(uid, done);
  return done;
}

/** Whether the next run on `uid` will look for processes left behind first (and allow for, or wait for, them). */
export function awaitsReap(uid: number): boolean {
  return leftBehind.has(uid) || reaping.has(uid);
}

/**
 * Take a uid for one run: the preferred (home) uid when it is free, otherwise the next free one of
 * the run range (round robin, so a released uid is not reused soon).
 */
export function acquireRunUid(preferred: number | null): number {
  reapStrays();
  if (preferred !== null && !busy.has(preferred) && !quarantined.has(preferred)) {
    busy.add(preferred);
    return preferred;
  }
  const { run } = idRanges();
  const size = run.max - run.min + 1;
  if (cursor < 0) cursor = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    cursor = (cursor + 1) % size;
    const uid = run.min + cursor;
    if (!busy.has(uid) && !quarantined.has(uid)) {
      busy.add(uid);
      return uid;
    }
  }
  throw new Error('no free sandbox uid: every uid of the run range is in use');
}

export function releaseRunUid(uid: number, clean: boolean): void {
  busy.delete(uid);
  if (!clean) quarantined.add(uid);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** kill(-1, SIGKILL) issued as `uid`: atomically signals every process of that uid (fork bombs included). */
function killAllAsUid(uid: number, gid: number, killPath: string): Promise<void> {
  return new Promise((resolve) => {
    try {
      const child = spawn(killPath, ['-s', 'KILL', '--', '-1'], {
        uid,
        gid,
        stdio: 'ignore',
        env: { PATH: '/usr/bin:/bin' },
      });
      child.once('error', () => resolve());
      child.once('exit', () => resolve());
    } catch {
      resolve();
    }
  });
}

/**
 * Make sure no live process of `uid` remains. Returns true when the uid is clean.
 * Root SIGKILLs each pid; if processes keep appearing (fork bomb racing the scan) it falls back
 * to kill(-1) issued as the uid itself. Every process of the uid it finds (live or dead) is
 * recorded for the next run on the uid (untilReaped).
 */
export async function sweepUid(uid: number, gid: number, killPath: string | undefined): Promise<boolean> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const found = listProcesses().filter((p) => p.uids.includes(uid));
    // Anything found here outlived the run's main process: dead (or killed now, dying) processes
    // of the uid that still count toward its process limit (untilReaped).
    noteLeftBehind(
      uid,
      found.map((p) => p.pid),
    );
    const pids = found.filter((p) => !p.zombie).map((p) => p.pid);
    if (pids.length === 0) return true;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    if (attempt >= 1 && killPath) await killAllAsUid(uid, gid, killPath);
    // SIGKILLed tasks take a moment to leave /proc (or to become zombies, which we ignore).
    await sleep(Math.min(5 + attempt * 10, 100));
  }
  return livePidsOfUid(uid).length === 0;
}
