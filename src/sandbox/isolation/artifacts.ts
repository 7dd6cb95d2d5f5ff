/**
 * Reading what a run left in <workdir>/artifacts/ from the host, safely.
 *
 * Everything under the workdir was written by the sandboxed command, so it may contain symlinks to
 * host files (`ln -s /etc/shadow artifacts/x`, or artifacts/ itself replaced by a link), FIFOs that
 * block a reader, or huge files. The runtime reads it as root, so it must never follow a link:
 * entries are lstat'ed, only regular files are listed, files are opened with O_NOFOLLOW|O_NONBLOCK
 * and checked again with fstat, and sizes are capped. Collect after the run has ended (no process
 * of the session should be running, or a concurrent run could swap a directory for a link between
 * the listing and the read).
 */
import { type Dirent, constants as fsc, promises as fsp } from 'node:fs';
import path from 'node:path';

export interface ArtifactEntry {
  /** Path relative to artifacts/, with '/' separators. */
  path: string;
  size: number;
}

export interface ArtifactListing {
  files: ArtifactEntry[];
  /** Entries that were skipped (symlinks, devices, FIFOs, sockets), relative paths. */
  skipped: string[];
  /** True when maxFiles or maxTotalBytes cut the listing short. */
  truncated: boolean;
}

export async function listArtifacts(artifactsPath: string, opts: { maxFiles?: number; maxTotalBytes?: number; maxDepth?: number } = {}): Promise<ArtifactListing> {
  const maxFiles = opts.maxFiles ?? 1000;
  const maxTotal = opts.maxTotalBytes ?? 64 * 1024 * 1024;
  const maxDepth = opts.maxDepth ?? 16;
  const out: ArtifactListing = { files: [], skipped: [], truncated: false };
  const top = await fsp.lstat(artifactsPath).catch(() => null);
  if (!top) return out;
  if (!top.isDirectory()) {
    out.skipped.push('.');
    return out;
  }
  let total = 0;
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const ent of entries) {
      if (out.truncated) return;
      const relPath = rel ? `${rel}/${ent.name}` : ent.name;
      const full = path.join(dir, ent.name);
      const st = await fsp.lstat(full).catch(() => null);
      if (!st) continue;
      if (st.isDirectory()) {
        if (depth < maxDepth) await walk(full, relPath, depth + 1);
        else out.skipped.push(relPath);
      } else if (st.isFile()) {
        if (out.files.length >= maxFiles || total + st.size > maxTotal) {
          out.truncated = true;
          return;
        }
        total += st.size;
        out.files.push({ path: relPath, size: st.size });
      } else {
        out.skipped.push(relPath);
      }
    }
  };
  await walk(artifactsPath, '', 0);
  return out;
}

/**
 * Read one artifact (a path from listArtifacts) without following a symlink in its last component,
 * and only if it is still a regular file. Returns at most maxBytes bytes.
 */
export async function readArtifact(artifactsPath: string, relPath: string, maxBytes = 16 * 1024 * 1024): Promise<Buffer> {
  const full = path.resolve(artifactsPath, relPath);
  if (!full.startsWith(path.resolve(artifactsPath) + path.sep)) throw new Error(`artifact path escapes artifacts/: ${relPath}`);
  // artifacts/ and every directory below it on the way must be real directories, not links
  // planted by the command.
  let cur = path.resolve(artifactsPath);
  if (!(await fsp.lstat(cur)).isDirectory()) throw new Error('artifacts/ is not a directory (replaced by the command?)');
  for (const part of path.relative(cur, path.dirname(full)).split(path.sep).filter(Boolean)) {
    cur = path.join(cur, part);
    const st = await fsp.lstat(cur);
    if (!st.isDirectory()) throw new Error(`artifact path component is not a directory: ${part}`);
  }
  const fh = await fsp.open(full, fsc.O_RDONLY | fsc.O_NOFOLLOW | fsc.O_NONBLOCK);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new Error(`artifact is not a regular file: ${relPath}`);
    const len = Math.min(st.size, maxBytes);
    const buf = Buffer.alloc(len);
    let off = 0;
    while (off < len) {
      const { bytesRead } = await fh.read(buf, off, len - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return buf.subarray(0, off);
  } finally {
    await fh.close();
  }
}
