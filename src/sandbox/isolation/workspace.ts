/**
 * A host project directory that a session's commands see copy-on-write (docs/sandbox.md,
 * "Workspaces"). Before each run of such a session, syncWorkspace brings the session workdir
 * (mounted at /work, the cwd) up to date with the workspace, with overlay semantics:
 *
 *   - what the host changed in the workspace since the last sync is copied in (new files, edits,
 *     deletions), so a command reads the project and the host's latest edits;
 *   - what a command wrote, replaced or deleted in the workdir stays as the command left it (the
 *     sandbox's change wins over a later change of the same path on the host, as an overlay's upper
 *     layer does);
 *   - the workspace is only ever read (lstat, readlink, copyFile from it): nothing is written there.
 *
 * Why a copy and not bubblewrap's overlay: Debian 12's bubblewrap (0.8) has no overlay options
 * (they came in 0.9), and an unprivileged overlay mounted in the sandbox's user namespace cannot
 * copy up a file whose owner is not mapped into it (the project's owner never is under uid
 * isolation), so a command could not even edit the project's files. Copies are made with
 * copy_file_range/reflink where the filesystem offers it (COPYFILE_FICLONE), else byte copies.
 *
 * What was copied is remembered in a manifest beside the workdir (root-owned, outside the
 * sandbox's view): for each path, the workspace entry's identity (size, mtime, ctime, inode) when
 * it was copied, and the copy's identity right after. A copy whose identity changed was changed
 * by a command; a workspace entry whose identity changed was changed by the host.
 */
import { constants as fsc, promises as fsp, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { changeList, describeEntry, entryKind, fileSha256, type LayerChange, type LayerDiff } from './layer';

export interface WorkspaceOwner {
  uid: number;
  gid: number;
}

export interface SyncResult {
  /** Entries copied (or re-copied) from the workspace. */
  copied: number;
  /** Copies removed because the host deleted them from the workspace. */
  removed: number;
  /** Paths left as a command changed them (its change wins). */
  kept: number;
  /** Workspace entries seen (files, directories and symlinks). */
  entries: number;
  /** Entries not copied: sockets, FIFOs, devices. */
  skipped: number;
}

/** A workspace this large is refused rather than walked at every run. */
export const MAX_WORKSPACE_ENTRIES = 200_000;
/** Entries of one directory looked at (and copied) at once. */
const CONCURRENCY = 32;

type Kind = 'f' | 'd' | 'l';
interface Ident {
  size: number;
  mtime: number;
  ctime: number;
  ino: number;
  mode: number;
  link?: string;
}
interface Entry {
  k: Kind;
  /** The workspace entry when it was copied. */
  s: Ident;
  /** The copy right after it was made. */
  d: Ident;
}
interface Manifest {
  v: 1;
  source: string;
  /** Inode of the workdir the copies are in: a workdir removed and made again starts over. */
  workdir_ino: number;
  entries: Record<string, Entry>;
}

export const workspaceManifestPath = (workdir: string) => path.join(path.dirname(workdir), `.${path.basename(workdir)}.workspace.json`);

const kindOf = (st: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): Kind | null =>
  st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : st.isFile() ? 'f' : null;

async function identOf(p: string, st: Awaited<ReturnType<typeof fsp.lstat>>): Promise<Ident> {
  const id: Ident = { size: Number(st.size), mtime: Number(st.mtimeMs), ctime: Number(st.ctimeMs), ino: Number(st.ino), mode: Number(st.mode) & 0o7777 };
  if (st.isSymbolicLink()) id.link = await fsp.readlink(p);
  return id;
}

/** Whether an entry is as it was: directories by kind only (their times change with their contents). */
function same(kind: Kind, a: Ident, b: Ident): boolean {
  if (kind === 'd') return true;
  if (kind === 'l') return a.link === b.link && a.ino === b.ino;
  return a.size === b.size && a.mtime === b.mtime && a.ctime === b.ctime && a.ino === b.ino;
}

const lstatOrNull = (p: string) => fsp.lstat(p).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' || e.code === 'ENOTDIR' ? null : Promise.reject(e)));

async function readManifest(file: string, source: string, workdirIno: number): Promise<Manifest> {
  const fresh: Manifest = { v: 1, source, workdir_ino: workdirIno, entries: {} };
  try {
    const m = JSON.parse(await fsp.readFile(file, 'utf8')) as Manifest;
    if (m.v !== 1 || m.source !== source || m.workdir_ino !== workdirIno || typeof m.entries !== 'object') return fresh;
    return m;
  } catch {
    return fresh;
  }
}

async function writeManifest(file: string, m: Manifest): Promise<void> {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, JSON.stringify(m), { mode: 0o600 });
  await fsp.rename(tmp, file);
}

/**
 * Modes of the copies. With an owner (uid isolation) the copy belongs to the session's home uid
 * and group, and the group gets the owner's bits: a run under a borrowed uid of the session
 * (concurrent runs) has the same access. Others get nothing. Without an owner the copy keeps the
 * workspace's mode (the runtime user owns both).
 */
function modeFor(kind: Kind, srcMode: number, owner: WorkspaceOwner | null): number {
  if (!owner) return srcMode & 0o777;
  const u = srcMode & 0o700;
  return u | (u >> 3) | (kind === 'd' ? 0o2000 : 0);
}

async function own(p: string, kind: Kind, srcMode: number, owner: WorkspaceOwner | null): Promise<void> {
  if (owner) await fsp.lchown(p, owner.uid, owner.gid);
  if (kind !== 'l') await fsp.chmod(p, modeFor(kind, srcMode, owner));
}

const tmpBeside = (p: string) => path.join(path.dirname(p), `.lore-sync-${randomBytes(6).toString('hex')}`);

/** Copies one workspace entry to `dst` (replacing a file or symlink there); returns the copy's identity. */
async function place(src: string, dst: string, kind: Kind, s: Ident, owner: WorkspaceOwner | null): Promise<Ident> {
  if (kind === 'd') {
    await fsp.mkdir(dst).catch((e: NodeJS.ErrnoException) => (e.code === 'EEXIST' ? undefined : Promise.reject(e)));
    await own(dst, 'd', s.mode, owner);
  } else {
    const tmp = tmpBeside(dst);
    try {
      if (kind === 'l') await fsp.symlink(s.link!, tmp);
      else await fsp.copyFile(src, tmp, fsc.COPYFILE_FICLONE);
      await own(tmp, kind, s.mode, owner);
      if (kind === 'f') {
        // The copy keeps the workspace's times: tools that compare times (make, test caches) see the project as it is.
        const t = new Date(s.mtime);
        await fsp.utimes(tmp, t, t);
      }
      await fsp.rename(tmp, dst);
    } catch (err) {
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
  }
  const st = await fsp.lstat(dst);
  return identOf(dst, st);
}

/**
 * Brings `workdir` up to date with the workspace `source` (see the file comment). `owner` is the
 * session's home uid and group under uid isolation, null otherwise. Only `workdir` and the
 * manifest beside it are written.
 */
export async function syncWorkspace(source: string, workdir: string, owner: WorkspaceOwner | null, maxEntries = MAX_WORKSPACE_ENTRIES): Promise<SyncResult> {
  const src = await fsp.realpath(source);
  const rootSt = await fsp.stat(src);
  if (!rootSt.isDirectory()) throw new Error(`workspace ${source} is not a directory`);
  const wst = await fsp.stat(workdir);
  const manifestFile = workspaceManifestPath(workdir);
  const m = await readManifest(manifestFile, src, Number(wst.ino));
  const result: SyncResult = { copied: 0, removed: 0, kept: 0, entries: 0, skipped: 0 };
  const seen = new Set<string>();

  /** One workspace entry against its copy; true when it is a directory to walk into. */
  const settle = async (rel: string): Promise<boolean> => {
    const sp = path.join(src, rel);
    const dp = path.join(workdir, rel);
    const sst = await lstatOrNull(sp);
    if (!sst) return false; // removed while we walked
    const kind = kindOf(sst);
    if (!kind) {
      result.skipped += 1;
      return false;
    }
    if (++result.entries > maxEntries) throw new Error(`workspace ${source} has more than ${maxEntries} entries; a workspace is copied at every run, so name a smaller directory`);
    seen.add(rel);
    const s = await identOf(sp, sst);
    const prev = m.entries[rel];
    const dst = await lstatOrNull(dp);
    const dKind = dst ? kindOf(dst) : null;
    if (prev && prev.k !== kind && dst && dKind === prev.k && same(prev.k, prev.d, await identOf(dp, dst))) {
      // The host replaced a file by a directory (or the like) and the command left the old copy alone.
      await fsp.rm(dp, { recursive: true, force: true });
      m.entries[rel] = { k: kind, s, d: await place(sp, dp, kind, s, owner) };
      result.copied += 1;
    } else if (!prev) {
      if (!dst) {
        m.entries[rel] = { k: kind, s, d: await place(sp, dp, kind, s, owner) };
        result.copied += 1;
      } else if (kind === 'd' && dKind === 'd') {
        // A directory both sides have (artifacts/, or one a command made first): merge into it.
        m.entries[rel] = { k: 'd', s, d: await identOf(dp, dst) };
      } else {
        result.kept += 1; // a command made this path first: its version stays
        return false;
      }
    } else if (!dst || dKind !== prev.k || !same(prev.k, prev.d, await identOf(dp, dst))) {
      result.kept += 1; // a command deleted, replaced or changed the copy: its change stays
      if (!dst || dKind !== 'd') return false; // nor is anything under a deleted directory brought back
    } else if (!same(kind, prev.s, s) || (kind !== 'd' && prev.s.mode !== s.mode)) {
      m.entries[rel] = { k: kind, s, d: await place(sp, dp, kind, s, owner) };
      result.copied += 1;
    }
    return kind === 'd';
  };

  // Directory by directory; a directory's own entry is settled before its children, and the
  // entries of one directory (independent of each other) a batch at a time.
  const stack: string[] = [''];
  while (stack.length > 0) {
    const dirRel = stack.pop()!;
    const rels = (await fsp.readdir(path.join(src, dirRel))).sort().map((name) => (dirRel === '' ? name : `${dirRel}/${name}`));
    for (let i = 0; i < rels.length; i += CONCURRENCY) {
      const batch = rels.slice(i, i + CONCURRENCY);
      const dirs = await Promise.all(batch.map(settle));
      batch.forEach((rel, j) => dirs[j] && stack.push(rel));
    }
  }

  // What the host deleted: the copy goes too, unless a command changed it (deepest paths first).
  const gone = Object.keys(m.entries)
    .filter((rel) => !seen.has(rel))
    .sort((a, b) => b.length - a.length);
  for (const rel of gone) {
    const prev = m.entries[rel]!;
    delete m.entries[rel];
    const dp = path.join(workdir, rel);
    const dst = await lstatOrNull(dp);
    if (!dst) continue;
    const dKind = kindOf(dst);
    if (dKind !== prev.k || !same(prev.k, prev.d, await identOf(dp, dst))) {
      result.kept += 1;
      continue;
    }
    if (dKind === 'd') {
      // Only an empty directory goes: what a command wrote inside it stays.
      const removed = await fsp.rmdir(dp).then(
        () => true,
        () => false,
      );
      if (removed) result.removed += 1;
      else result.kept += 1;
    } else {
      await fsp.unlink(dp);
      result.removed += 1;
    }
  }
  await writeManifest(manifestFile, m);
  return result;
}

/**
 * What the commands changed in a copied workspace (the copy's counterpart of layer.ts's
 * overlayDiff): entries the manifest says a command made, changed or deleted, compared with the
 * workspace as it is now. A file is modified when its content, or its owner's mode bits, differ
 * from the workspace's (the copy's group and other bits are its own), a link when its target does.
 * Read only while no run of the session is going (whenIdle, run.ts); links are never followed.
 */
export async function copyDiff(source: string, workdir: string, o: { exclude?: (rel: string) => boolean; maxChanges?: number } = {}): Promise<LayerDiff> {
  const src = await fsp.realpath(source);
  const wst = await fsp.stat(workdir);
  const m = await readManifest(workspaceManifestPath(workdir), src, Number(wst.ino));
  const { out, push } = changeList(o.maxChanges ?? 10_000);
  const describe = (rel: string, st: Stats, change: LayerChange['change']) => describeEntry(workdir, rel, st, change, (r) => fileSha256(path.join(workdir, r)));
  const seen = new Set<string>();
  /** dirRel: a directory of the copy; srcDir: the workspace has a real directory there. */
  const walk = async (dirRel: string, srcDir: boolean): Promise<void> => {
    const names = (await fsp.readdir(path.join(workdir, dirRel)).catch(() => [] as string[])).sort();
    const rels = names.map((name) => (dirRel === '' ? name : `${dirRel}/${name}`)).filter((rel) => !o.exclude?.(rel) && !path.basename(rel).startsWith('.lore-sync-'));
    /** One entry of the copy; the directory to walk into (and whether the workspace has it as one), if it is one. */
    const settle = async (rel: string): Promise<[string, boolean] | null> => {
      seen.add(rel);
      const st = await lstatOrNull(path.join(workdir, rel));
      if (!st) return null;
      const prev = m.entries[rel];
      if (prev && kindOf(st) === prev.k && same(prev.k, prev.d, await identOf(path.join(workdir, rel), st))) {
        // As copied: not a change (a directory's entries are looked at one by one).
        return st.isDirectory() ? [rel, srcDir] : null;
      }
      const sst = srcDir ? await lstatOrNull(path.join(src, rel)) : null;
      if (!sst) push(await describe(rel, st, 'added'));
      else if (entryKind(sst) !== entryKind(st)) push(await describe(rel, st, 'modified'));
      else if (st.isSymbolicLink()) {
        if ((await fsp.readlink(path.join(workdir, rel)).catch(() => null)) !== (await fsp.readlink(path.join(src, rel)).catch(() => undefined)))
          push(await describe(rel, st, 'modified'));
      } else if (st.isFile()) {
        // The copy's group and other bits are its own (modeFor): only the owner's are the workspace's.
        const differs = st.size !== sst.size || (st.mode & 0o700) !== (sst.mode & 0o700) || (await fileSha256(path.join(workdir, rel))) !== (await fileSha256(path.join(src, rel)));
        if (differs) push(await describe(rel, st, 'modified'));
      }
      return st.isDirectory() ? [rel, sst?.isDirectory() ?? false] : null;
    };
    // The entries of one directory (independent of each other) a batch at a time, as syncWorkspace does.
    for (let i = 0; i < rels.length; i += CONCURRENCY) {
      for (const dir of await Promise.all(rels.slice(i, i + CONCURRENCY).map(settle))) if (dir) await walk(dir[0], dir[1]);
    }
  };
  await walk('', true);
  // What the manifest copied and the commands removed, where the workspace still has it: the
  // topmost path only (below a directory the copy no longer has, the directory's entry covers it).
  for (const rel of Object.keys(m.entries).sort()) {
    const parent = path.dirname(rel);
    if (seen.has(rel) || o.exclude?.(rel) || (parent !== '.' && !seen.has(parent))) continue;
    const sst = await lstatOrNull(path.join(src, rel));
    if (sst) push({ path: rel, change: 'deleted', kind: entryKind(sst), size: null, mode: null, link: null, sha256: null });
  }
  out.changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}
