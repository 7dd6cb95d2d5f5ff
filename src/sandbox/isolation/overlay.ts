/**
 * A workspace seen through a kernel overlay (docs/sandbox.md, "Workspaces"): the session workdir
 * is the overlay's upper layer, a read-only clone of the project its lower layer, and the
 * overlay is mounted over the workdir's own path in a mount namespace made for the run, just
 * before bubblewrap binds that path at /work. Nothing is copied and nothing re-checked: a command
 * reads the project as it is now, its writes land in the workdir, and the project's mount is
 * read-only. The mounts live in the run's namespace only and go with its last process.
 *
 * Debian 12's bubblewrap (0.8) has no overlay options, so the mount is made around it by a small
 * helper of ours (overlay-helper/main.go, built with Go into LORE_BIN_DIR like the Temporal CLI)
 * started through unshare(1):
 *
 *   as root:       unshare --mount --propagation private -- lore-overlay mount --as UID:GID --home N ... -- <chain>
 *   unprivileged:  unshare --user --map-current-user --mount --propagation private --keep-caps -- lore-overlay mount --userxattr ... -- <chain>
 *
 * where <chain> is the run's usual sh → prlimit → bwrap. As root the command runs as a sandbox
 * uid that owns nothing of the project, so the project's clone is idmapped (its owner appears as
 * the run's uid; the helper drops to that uid before the chain starts); unprivileged, the runtime
 * user owns the project and a user namespace of its own is enough. Either way the helper gives up
 * every capability before the exec, and bubblewrap's own namespaces follow as for any run.
 *
 * Per run, the helper needs two empty directories (the lower clone's mount point, the overlay's
 * work directory; a third for the session layer's idmapped clone as root) in the layer directory
 * beside the workdir, `.<workdir>.ovl/`, outside the sandbox's view. Concurrent runs of one
 * session each get their own (a slot), and share the upper layer.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fsp, constants as fsc } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HELPER_DIR = fileURLToPath(new URL('./overlay-helper/', import.meta.url));
const HELPER_SOURCES = ['go.mod', 'main.go'];

/** The layer directory of a workdir: overlay scratch space, beside it and outside the sandbox's view. */
export const overlayLayerDir = (workdir: string) => path.join(path.dirname(workdir), `.${path.basename(workdir)}.ovl`);

/** Hash of the helper's sources: a changed helper gets a new binary name. */
export async function overlayHelperHash(dir = HELPER_DIR): Promise<string> {
  const h = createHash('sha256');
  for (const name of HELPER_SOURCES)
    h.update(name)
      .update('\0')
      .update(await fsp.readFile(path.join(dir, name)))
      .update('\0');
  return h.digest('hex').slice(0, 16);
}

function run(cmd: string, args: string[], cwd: string): Promise<{ code: number | null; out: string; missing: boolean }> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const add = (b: Buffer) => {
      out = (out + b.toString('utf8')).slice(-8000);
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    child.once('error', (e: NodeJS.ErrnoException) => resolve({ code: null, out: e.message, missing: e.code === 'ENOENT' }));
    child.once('close', (code) => resolve({ code, out, missing: false }));
  });
}

/** The helper's binary in binDir if it has been built (for `lore doctor`), else null. */
export async function builtOverlayHelper(binDir: string): Promise<string | null> {
  const target = path.join(binDir, `lore-overlay-${await overlayHelperHash()}`);
  return fsp.access(target, fsc.X_OK).then(
    () => target,
    () => null,
  );
}

const builds = new Map<string, Promise<OverlayHelper>>();

export type OverlayHelper = { path: string; problem?: undefined } | { path: null; problem: string };

/**
 * The helper binary in binDir, built there with `go build` the first time (about 10-30 s with a
 * cold Go cache, no network: it uses the standard library only). A machine without Go gets the
 * reason instead, and workspaces fall back to the copy.
 */
export function ensureOverlayHelper(binDir: string, log: (msg: string) => void = () => undefined): Promise<OverlayHelper> {
  const key = path.resolve(binDir);
  let p = builds.get(key);
  if (!p) {
    p = buildHelper(key, log);
    builds.set(key, p);
  }
  return p;
}

async function buildHelper(binDir: string, log: (msg: string) => void): Promise<OverlayHelper> {
  const hash = await overlayHelperHash();
  const target = path.join(binDir, `lore-overlay-${hash}`);
  try {
    await fsp.access(target, fsc.X_OK);
    return { path: target };
  } catch {
    /* not built yet */
  }
  await fsp.mkdir(binDir, { recursive: true });
  const tmp = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  log(`building the workspace overlay helper (first start only): go build in ${HELPER_DIR}`);
  const built = await run('go', ['build', '-o', tmp, '.'], HELPER_DIR);
  if (built.code !== 0) {
    await fsp.rm(tmp, { force: true });
    return {
      path: null,
      problem: built.missing
        ? 'Go is not installed, so the overlay helper cannot be built (install Go 1.21+ and restart the worker)'
        : `building the overlay helper failed: ${built.out.trim().split('\n').slice(-5).join(' / ')}`,
    };
  }
  // Renamed into place whole: a worker starting beside this one never runs half a binary.
  await fsp.rename(tmp, target);
  return { path: target };
}

/** How one run mounts its workspace (see the file comment). */
export interface OverlayMount {
  helper: string;
  unshare: string;
  /** The workspace (resolved real path). */
  lower: string;
  /** The session workdir: the overlay's upper layer, and where the overlay is mounted. */
  workdir: string;
  /** This run's scratch directories in the layer directory. */
  slot: string;
  /** As root: the run's uid and gid, and the session's home uid (the owner of its files on disk). */
  as: { uid: number; gid: number; home: number } | null;
}

/** The command line that mounts the overlay and then execs `chain` (absolute argv[0]). */
export function overlayPrefix(m: OverlayMount): string[] {
  const common = ['--root', path.dirname(m.workdir), '--session', path.basename(m.workdir), '--slot', m.slot, '--lower', m.lower];
  if (m.as) {
    return [m.unshare, '--mount', '--propagation', 'private', '--', m.helper, 'mount', ...common, '--as', `${m.as.uid}:${m.as.gid}`, '--home', String(m.as.home), '--'];
  }
  return [m.unshare, '--user', '--map-current-user', '--mount', '--propagation', 'private', '--keep-caps', '--', m.helper, 'mount', '--userxattr', ...common, '--'];
}

/** Slots in use per workdir (this process): concurrent runs of a session mount with separate scratch directories. */
const slotsInUse = new Map<string, Set<number>>();

export function acquireSlot(workdir: string): { slot: string; release: () => void } {
  const used = slotsInUse.get(workdir) ?? new Set<number>();
  slotsInUse.set(workdir, used);
  let n = 0;
  while (used.has(n)) n++;
  used.add(n);
  return {
    // The pid keeps two worker processes on one sandbox directory apart.
    slot: `${process.pid}-${n}`,
    release: () => {
      used.delete(n);
      if (used.size === 0) slotsInUse.delete(workdir);
    },
  };
}

/**
 * Removes a workdir's layer directory. The overlay's work directories hold root-made (or, when
 * unprivileged, mode-0 own) directories, so modes are opened up where a removal is refused;
 * symbolic links are removed, never followed.
 */
export async function removeOverlayLayer(workdir: string): Promise<void> {
  const dir = overlayLayerDir(workdir);
  try {
    await fsp.rm(dir, { recursive: true, force: true });
  } catch {
    await openModes(dir);
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

async function openModes(dir: string): Promise<void> {
  const st = await fsp.lstat(dir).catch(() => null);
  if (!st?.isDirectory()) return;
  await fsp.chmod(dir, 0o700).catch(() => undefined);
  for (const name of await fsp.readdir(dir).catch(() => [] as string[])) await openModes(path.join(dir, name));
}

/** The overlay keeps its marks in trusted.* extended attributes as root, user.* unprivileged. */
export async function opaqueDirs(helper: string, upper: string, userxattr: boolean): Promise<Set<string>> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    let err = '';
    const child = spawn(helper, ['opaque', ...(userxattr ? ['--userxattr'] : []), upper], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`lore-overlay opaque failed (${code}): ${err.trim()}`));
      resolve(new Set(Buffer.concat(out).toString('utf8').split('\0').filter(Boolean)));
    });
  });
}
