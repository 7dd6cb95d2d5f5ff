import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { listArtifacts, readArtifact } from '../../sandbox/isolation/index';
import type { ArtifactDoc } from '../../model/sandbox/records';

/** Files collected per run, bytes kept per file, and bytes kept per run. Past them: listed, not stored. */
export const ARTIFACT_CAPS = { files: 100, fileBytes: 1024 * 1024, runBytes: 8 * 1024 * 1024 } as const;

/**
 * Snapshot of what a run wrote under artifacts/: the regular files modified since the run started
 * (a session's earlier files are not repeated in every later run's bundle), read with the runner's
 * link-safe reader and stored with the run, so the bundle survives later runs and restarts and
 * the API can serve it from any host.
 */
export async function collectArtifacts(artifactsPath: string, runKey: string, sinceMs: number): Promise<{ docs: ArtifactDoc[]; skipped: string[] }> {
  const listing = await listArtifacts(artifactsPath, { maxFiles: 1000, maxTotalBytes: Number.MAX_SAFE_INTEGER });
  const skipped = [...listing.skipped];
  if (listing.truncated) skipped.push('(more than 1000 files: the rest were not listed)');
  const docs: ArtifactDoc[] = [];
  let stored = 0;
  // Kernel file times are coarse; the command cannot have written anything in the 20 ms before its spawn.
  const since = sinceMs - 20;
  for (const f of listing.files) {
    // lstat never follows the last component; the mtime only selects, the read below is the safe one.
    const st = await fsp.lstat(path.join(artifactsPath, f.path)).catch(() => null);
    if (!st || !st.isFile() || st.mtimeMs < since) continue;
    const id = `${runKey}:${createHash('sha256').update(f.path).digest('hex').slice(0, 32)}`;
    const base = { _id: id, run_key: runKey, path: f.path, size: st.size };
    if (docs.length >= ARTIFACT_CAPS.files) {
      skipped.push(`${f.path} (over ${ARTIFACT_CAPS.files} files)`);
      continue;
    }
    const room = Math.min(ARTIFACT_CAPS.fileBytes, ARTIFACT_CAPS.runBytes - stored);
    if (room <= 0) {
      docs.push({ ...base, content: null, truncated: false, sha256: null, not_stored_reason: `over ${ARTIFACT_CAPS.runBytes} bytes stored for this run` });
      continue;
    }
    try {
      const bytes = await readArtifact(artifactsPath, f.path, room);
      stored += bytes.length;
      docs.push({
        ...base,
        content: bytes,
        truncated: bytes.length < st.size,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        not_stored_reason: null,
      });
    } catch (err) {
      skipped.push(`${f.path} (${(err as Error).message})`);
    }
  }
  return { docs, skipped };
}
