/**
 * Private per-session workdirs on the host.
 *
 * Layout under the root the caller gives (e.g. <data dir>/sandbox):
 *   <root>/                     root-owned, 0711 (sandbox uids may traverse, not list)
 *   <root>/<name>/              root:N 2770 (N = session id, see ids.ts); mounted at /work
 *   <root>/<name>/artifacts/    root:N 2770; files the command writes here form the artifact bundle
 *   <root>/.<name>.owners       marker: a run with a borrowed uid wrote here; owners to normalise
 *
 * The workdir itself is owned by root so that the command cannot chmod it open; the setgid bit makes
 * every file created inside belong to group N, and runs use umask 002, so later runs of the same
 * session (possibly under another uid) can still write them.
 *
 * Without root (no uid isolation) the workdir is a plain 0700 directory of the current user.
 */
import { createHash, randomInt } from 'node:crypto';
import { type Dirent, type Stats, promises as fsp, constants as fsc } from 'node:fs';
import path from 'node:path';
import { idRanges, isSessionId } from './ids';

export const SANDBOX_WORKDIR = '/work';
export const ARTIFACTS_DIR = 'artifacts';

export interface PreparedWorkdir {
  /** Absolute host path of the workdir. */
  hostPath: string;
  /** Absolute host path of artifacts/ inside it. */
  artifactsPath: string;
  /** Path of the workdir inside a bubblewrap sandbox. */
  sandboxPath: string;
  /** Session id N: group of the workdir and home uid of its runs. Null without uid isolation. */
  sessionId: number | null;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Directory name for a session id: the id itself when it is a safe path segment, else a hash. */
export function workdirName(id: string): string {
  if (typeof id !== 'string' || id.length === 0) throw new Error('workdir id must be a non-empty string');
  if (SAFE_NAME.test(id) && !id.endsWith('.owners')) return id;
  return 'h-' + createHash('sha256').update(id).digest('hex').slice(0, 40);
}

export function ownersMarkerPath(workdir: string): string {
  return path.join(path.dirname(workdir), '.' + path.basename(workdir) + '.owners');
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Every ancestor of `dir` must be traversable by an unrelated uid (o+x), or bwrap cannot bind it. */
async function assertTraversable(dir: string): Promise<void> {
  let cur = path.resolve(dir);
  const problems: string[] = [];
  for (;;) {
    const st = await fsp.stat(cur);
    if ((st.mode & 0o001) === 0) problems.push(`${cur} (mode ${(st.mode & 0o7777).toString(8)})`);
    const parent = path.dirname(cur);
    if (parent === cur) break;
    cur = parent;
  }
  if (problems.length > 0) {
    throw new Error(
      `sandbox workdir root ${dir} is not reachable by sandbox uids; these directories lack the ` +
        `other-execute (o+x) bit: ${problems.join(', ')}. Choose a root under a traversable path ` +
        `or chmod o+x those directories (traverse only, no listing).`,
    );
  }
}

const locks = new Map<string, Promise<unknown>>();
/** Runs fn after every earlier holder of `key` (in this process) has finished. */
function withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(key) ?? Promise.resolve();
  const next = prev.then(fn, fn);
  const settled = next.catch(() => undefined);
  locks.set(key, settled);
  void settled.then(() => {
    if (locks.get(key) === settled) locks.delete(key);
  });
  return next;
}

/**
 * Runs fn while no other holder of the workdir named `name` (in this process) runs: workdir
 * retention's check and removal, and a run's preparation of the same workdir, never interleave.
 * (prepareWorkdir itself locks the root, a different key.)
 */
export function withWorkdirLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return withLock(`workdir:${name}`, fn);
}

/**
 * Runs fn while no other holder of the workdir at host path `workdir` normalises its owners: a
 * run's owner walk (run.ts) and the start of another run on the same workdir never interleave.
 */
export function withOwnersLock<T>(workdir: string, fn: () => Promise<T>): Promise<T> {
  return withLock(`owners:${workdir}`, fn);
}

async function pickSessionId(root: string): Promise<number> {
  const used = new Set<number>();
  for (const ent of await fsp.readdir(root, { withFileTypes: true })) {
    if (!ent.isDirectory()) continue;
    try {
      used.add((await fsp.lstat(path.join(root, ent.name))).gid);
    } catch {
      /* removed meanwhile */
    }
  }
  const { session } = idRanges();
  for (let i = 0; i < 64; i++) {
    const n = randomInt(session.min, session.max + 1);
    if (!used.has(n)) return n;
  }
  for (let n = session.min; n <= session.max; n++) if (!used.has(n)) return n;
  throw new Error(`no free sandbox session id under ${root}`);
}

async function ensureDir(p: string, mode: number, uid: number, gid: number): Promise<void> {
  try {
    await fsp.mkdir(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = await fsp.lstat(p);
  if (!st.isDirectory()) throw new Error(`${p} exists and is not a directory`);
  if (st.uid !== uid || st.gid !== gid) await fsp.lchown(p, uid, gid);
  if ((st.mode & 0o7777) !== mode) await fsp.chmod(p, mode);
}

/**
 * Create (or reuse) the private workdir of session `id` under `root`. Idempotent: a second call
 * returns the same directory and session id. Contents are left alone.
 */
export async function prepareWorkdir(root: string, id: string): Promise<PreparedWorkdir> {
  const name = workdirName(id);
  const absRoot = path.resolve(root);
  const uidIsolation = isRoot();
  await fsp.mkdir(absRoot, { recursive: true, mode: uidIsolation ? 0o711 : 0o700 });
  const hostPath = path.join(absRoot, name);
  const artifactsPath = path.join(hostPath, ARTIFACTS_DIR);

  if (!uidIsolation) {
    await fsp.mkdir(hostPath, { recursive: true, mode: 0o700 });
    await fsp.mkdir(artifactsPath, { recursive: true, mode: 0o700 });
    return { hostPath, artifactsPath, sandboxPath: SANDBOX_WORKDIR, sessionId: null };
  }

  await assertTraversable(absRoot);
  return withLock(absRoot, async () => {
    let sessionId: number;
    let adopted = false;
    const existing = await fsp.lstat(hostPath).catch(() => null);
    if (existing) {
      if (!existing.isDirectory()) throw new Error(`${hostPath} exists and is not a directory`);
      adopted = !isSessionId(existing.gid);
      sessionId = adopted ? await pickSessionId(absRoot) : existing.gid;
    } else {
      sessionId = await pickSessionId(absRoot);
    }
    await ensureDir(hostPath, 0o2770, 0, sessionId);
    await ensureDir(artifactsPath, 0o2770, 0, sessionId);
    // A directory made some other way: hand its contents to the session before the next run.
    if (adopted) await markOwnersDirty(hostPath);
    return { hostPath, artifactsPath, sandboxPath: SANDBOX_WORKDIR, sessionId };
  });
}

/**
 * Give every entry of a quiescent workdir back to the session's home uid (after runs with a
 * borrowed uid). Only called when no run of this workdir is active and all run uids have been
 * swept, so nothing can race the walk; symlinks are never followed (lstat + lchown).
 */
export async function normaliseOwners(workdir: string, uid: number, gid: number, maxEntries = 200_000): Promise<number> {
  let changed = 0;
  let seen = 0;
  const stack = [workdir];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const ent of entries) {
      if (++seen > maxEntries) return changed;
      const p = path.join(dir, ent.name);
      let st: Stats;
      try {
        st = await fsp.lstat(p);
      } catch {
        continue;
      }
      if (st.uid !== uid || st.gid !== gid) {
        // Keep the workdir's own root-owned subdirectories (artifacts/) as they are.
        if (!(st.uid === 0 && st.gid === gid && st.isDirectory())) {
          await fsp.lchown(p, uid, gid).catch(() => undefined);
          changed++;
        }
      }
      if (st.isDirectory()) stack.push(p);
    }
  }
  return changed;
}

export async function markOwnersDirty(workdir: string): Promise<void> {
  await fsp.writeFile(ownersMarkerPath(workdir), '', { mode: 0o600 }).catch(() => undefined);
}

export async function ownersDirty(workdir: string): Promise<boolean> {
  try {
    await fsp.access(ownersMarkerPath(workdir), fsc.F_OK);
    return true;
  } catch {
    return false;
  }
}

export async function clearOwnersDirty(workdir: string): Promise<void> {
  await fsp.rm(ownersMarkerPath(workdir), { force: true });
}
