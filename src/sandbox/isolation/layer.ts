/**
 * What a workspace session changed: its overlay's upper layer read against the project (the
 * lower layer), as files added, modified and deleted (docs/sandbox.md, "What the session
 * changed"). The upper layer holds exactly the session's writes:
 *
 *   - an entry the project lacks was added (a directory, and each entry under it);
 *   - a file or link the project has too was copied up: modified, unless its kind, size, mode and
 *     modification time are still the project's (a copy-up without a change, e.g. a file opened
 *     for writing and left alone: copy-up keeps the times);
 *   - a whiteout (a character device 0:0) deleted the project's entry of that name;
 *   - an opaque directory (a directory removed and made again) hides every entry of the project's
 *     directory that it does not have itself: each of those was deleted.
 *
 * The upper layer was written by sandboxed commands: it is read with lstat and never through a
 * symbolic link, and only while no run of the session is going (whenIdle, run.ts), so nothing can
 * swap a directory for a link under the walk. The project is looked at only under directories
 * lstat found to be directories, and only its metadata: no byte of it is read here.
 */
import { createHash } from 'node:crypto';
import { constants as fsc, promises as fsp, type Stats } from 'node:fs';
import path from 'node:path';
import type { WorkspaceChange, WorkspaceEntryKind } from '../../model/sandbox/records';

export type EntryKind = WorkspaceEntryKind;

export interface LayerChange {
  /** Relative to the workspace root, '/'-separated. */
  path: string;
  change: WorkspaceChange;
  /** The entry as it is now (for a deletion: what was deleted). */
  kind: EntryKind;
  /** Files: size now. */
  size: number | null;
  /** Permission bits now (not for deletions and links). */
  mode: number | null;
  /** Links: the target now. */
  link: string | null;
  /** Files: SHA-256 of the content now. */
  sha256: string | null;
}

export interface LayerDiff {
  changes: LayerChange[];
  /** More than maxChanges: the rest were not listed. */
  truncated: boolean;
}

export const entryKind = (st: Stats): EntryKind => (st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'other');
const isWhiteout = (st: Stats) => st.isCharacterDevice() && st.rdev === 0;
const lstatOrNull = (p: string) => fsp.lstat(p).catch(() => null);

/** SHA-256 of files in upper layers, by identity, so a file is hashed again only when it changed. */
const hashCache = new Map<string, Map<string, { key: string; sha: string }>>();

export function forgetLayerHashes(upper: string): void {
  hashCache.delete(upper);
}

/** Opens a regular file without following a final symbolic link (nor blocking on a FIFO); null if it is not one. */
async function openRegular(file: string) {
  const fh = await fsp.open(file, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK).catch(() => null);
  if (fh && !(await fh.stat()).isFile()) {
    await fh.close();
    return null;
  }
  return fh;
}

/** Reads the first maxBytes of a regular file of the layer; null if it is not one any more. */
export async function readLayerFile(file: string, maxBytes: number): Promise<Buffer | null> {
  const fh = await openRegular(file);
  if (!fh) return null;
  try {
    const buf = Buffer.alloc(Math.min((await fh.stat()).size, maxBytes));
    let off = 0;
    while (off < buf.length) {
      const { bytesRead } = await fh.read(buf, off, buf.length - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return buf.subarray(0, off);
  } finally {
    await fh.close();
  }
}

/** SHA-256 of a regular file; null if it is not one. */
export async function fileSha256(file: string): Promise<string | null> {
  const fh = await openRegular(file);
  if (!fh) return null;
  try {
    const h = createHash('sha256');
    const buf = Buffer.alloc(256 * 1024);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      h.update(buf.subarray(0, bytesRead));
    }
    return h.digest('hex');
  } finally {
    await fh.close();
  }
}

/** A change list capped at max entries (truncated beyond), shared by both views' diffs. */
export function changeList(max: number): { out: LayerDiff; push: (c: LayerChange) => void } {
  const out: LayerDiff = { changes: [], truncated: false };
  return {
    out,
    push: (c) => {
      if (out.changes.length >= max) out.truncated = true;
      else out.changes.push(c);
    },
  };
}

/** An entry of `dir` (the upper layer, or the copy) as a change; files with their SHA-256 from `sha`. */
export async function describeEntry(
  dir: string,
  rel: string,
  st: Stats,
  change: LayerChange['change'],
  sha: (rel: string, st: Stats) => Promise<string | null>,
): Promise<LayerChange> {
  const kind = entryKind(st);
  return {
    path: rel,
    change,
    kind,
    size: kind === 'file' ? st.size : null,
    mode: kind === 'symlink' ? null : st.mode & 0o7777,
    link: kind === 'symlink' ? await fsp.readlink(path.join(dir, rel)).catch(() => null) : null,
    sha256: kind === 'file' ? await sha(rel, st) : null,
  };
}

async function sha256Of(upper: string, rel: string, st: Stats): Promise<string | null> {
  const cache = hashCache.get(upper) ?? new Map();
  hashCache.set(upper, cache);
  const key = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  const hit = cache.get(rel);
  if (hit?.key === key) return hit.sha;
  const sha = await fileSha256(path.join(upper, rel));
  if (sha !== null) cache.set(rel, { key, sha });
  return sha;
}

export interface OverlayDiffOptions {
  upper: string;
  lower: string;
  /** Directories of the upper layer marked opaque (opaqueDirs in overlay.ts). */
  opaque: Set<string>;
  /** Upper entries (and what is below them) to leave out, e.g. the run bundle's artifacts/. */
  exclude?: (rel: string) => boolean;
  maxChanges?: number;
}

/** The changes the upper layer records against the lower, in path order (see the file comment). */
export async function overlayDiff(o: OverlayDiffOptions): Promise<LayerDiff> {
  const { out, push } = changeList(o.maxChanges ?? 10_000);
  const describe = (rel: string, st: Stats, change: LayerChange['change']) => describeEntry(o.upper, rel, st, change, (r, s) => sha256Of(o.upper, r, s));
  const deleted = (rel: string, lst: Stats): LayerChange => ({ path: rel, change: 'deleted', kind: entryKind(lst), size: null, mode: null, link: null, sha256: null });

  /** dirRel: a directory of the upper layer; lowerDir: its counterpart in the project is a real directory. */
  const walk = async (dirRel: string, lowerDir: boolean): Promise<void> => {
    if (out.truncated) return;
    const names = (await fsp.readdir(path.join(o.upper, dirRel)).catch(() => [] as string[])).sort();
    const here = new Set(names);
    if (lowerDir && o.opaque.has(dirRel)) {
      // Everything of the project's directory that the opaque one does not have again is gone.
      const lowerNames = (await fsp.readdir(path.join(o.lower, dirRel)).catch(() => [] as string[])).sort();
      for (const name of lowerNames) {
        const rel = dirRel === '' ? name : `${dirRel}/${name}`;
        if (here.has(name) || o.exclude?.(rel)) continue;
        const lst = await lstatOrNull(path.join(o.lower, rel));
        if (lst) push(deleted(rel, lst));
      }
      lowerDir = false;
    }
    for (const name of names) {
      const rel = dirRel === '' ? name : `${dirRel}/${name}`;
      if (o.exclude?.(rel)) continue;
      const st = await lstatOrNull(path.join(o.upper, rel));
      if (!st) continue;
      const lst = lowerDir ? await lstatOrNull(path.join(o.lower, rel)) : null;
      if (isWhiteout(st)) {
        if (lst) push(deleted(rel, lst));
        continue;
      }
      if (st.isDirectory()) {
        const lowerIsDir = lst?.isDirectory() ?? false;
        if (!lst) push(await describe(rel, st, 'added'));
        else if (!lowerIsDir || (lst.mode & 0o7777) !== (st.mode & 0o7777)) push(await describe(rel, st, 'modified'));
        await walk(rel, lowerIsDir);
        continue;
      }
      if (!lst) {
        push(await describe(rel, st, 'added'));
        continue;
      }
      const kind = entryKind(st);
      let same = kind === entryKind(lst);
      if (same && kind === 'symlink') {
        same = (await fsp.readlink(path.join(o.upper, rel)).catch(() => null)) === (await fsp.readlink(path.join(o.lower, rel)).catch(() => undefined));
      } else if (same) {
        same = st.size === lst.size && (st.mode & 0o7777) === (lst.mode & 0o7777) && st.mtimeMs === lst.mtimeMs;
      }
      if (!same) push(await describe(rel, st, 'modified'));
    }
  };
  await walk('', (await lstatOrNull(o.lower))?.isDirectory() ?? false);
  return out;
}
