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

const busy = new Set<number>();
const quarantined = new Set<number>();
let cursor = -1;
let straysReaped = false;

export interface ProcInfo {
  pid: number;
  uids: number[];
  zombie: boolean;
}

/** Every process on the host with its real/effective/saved uids (read from /proc, synchronously: ~ms). */
export function listProcesses(): ProcInfo[] {
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
    let status: string;
    try {
      status = readFileSync(`/proc/${e}/status`, 'latin1');
    } catch {
      continue; // exited meanwhile
    }
    const m = /\nUid:\s+(\d+)\s+(\d+)\s+(\d+)/.exec(status);
    if (!m) continue;
    const state = /\nState:\s+(\S)/.exec(status);
    out.push({
      pid: Number(e),
      uids: [Number(m[1]), Number(m[2]), Number(m[3])],
      zombie: state?.[1] === 'Z' || state?.[1] === 'X',
    });
  }
  return out;
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
 * processes may not). Runs once, before the first uid is handed out.
 */
function reapStrays(): void {
  if (straysReaped) return;
  straysReaped = true;
  for (const p of listProcesses()) {
    if (p.zombie) continue;
    if (p.uids.some((u) => u >= range.min && u <= range.max && !busy.has(u))) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
}

const reaping = new Map<number, Promise<void>>();

/** How long a run waits for its home uid's dead processes to be reaped (see untilReaped). */
const REAP_WAIT_MS = 3000;

/**
 * Resolves once no dead process of `uid` is left (or after REAP_WAIT_MS). Dead processes of a
 * finished run are orphans the host's init reaps, not Lore, and until then they still count toward
 * their uid's process limit (RLIMIT_NPROC). A workdir's runs reuse its home uid (they must: its
 * files are that uid's), so a run started right after one that left many (a fork bomb, a killed
 * tree) could not fork at all (`sh: Cannot fork`). The next run waits for them instead; the run
 * that left them does not, so a cancelled run still ends at once. Callers share one poll per uid.
 */
export function untilReaped(uid: number): Promise<void> {
  const hasZombies = () => listProcesses().some((p) => p.zombie && p.uids.includes(uid));
  if (reaping.has(uid)) return reaping.get(uid)!;
  if (!hasZombies()) return Promise.resolve();
  const done = (async () => {
    const deadline = Date.now() + REAP_WAIT_MS;
    while (hasZombies() && Date.now() < deadline) await sleep(20);
  })().finally(() => reaping.delete(uid));
  reaping.set(uid, done);
  return done;
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

export function runUidBusy(uid: number): boolean {
  return busy.has(uid);
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
 * to kill(-1) issued as the uid itself.
 */
export async function sweepUid(uid: number, gid: number, killPath: string | undefined): Promise<boolean> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const pids = livePidsOfUid(uid);
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
