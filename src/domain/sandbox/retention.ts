import { type Dirent, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Log } from '../../log';
import { ownersMarkerPath, withWorkdirLock } from '../../sandbox/isolation/workdir';
import { workspaceManifestPath } from '../../sandbox/isolation/workspace';
import { forgetLayerHashes, removeOverlayLayer } from '../../sandbox/isolation/index';
import type { Database } from '../../store/database';
import { hasOpenRun, SandboxSessionsOnHost } from '../../store/sandbox/index';
import type { Clock } from '../../model/clock';
import type { SandboxSettings } from './context';

/**
 * Workdir retention (LORE_SANDBOX_WORKDIR_TTL, default 7 days; docs/sandbox.md). Session
 * workdirs live on the worker's host and nothing else removes them, so a busy playbook (one
 * session per run) would fill the disk. The worker removes the workdir of a session that has had
 * no run created for the TTL and has no run queued or running. The session itself stays: its
 * record says when the files went (`workdir_removed_at`), and its next run starts in a fresh,
 * empty workdir. Run records, logs and collected artifacts are in the store and stay too.
 *
 * Only directories named like a session's workdir (`s-<server id>`) whose session this store
 * knows are considered; anything else under the root is left alone.
 */

const SESSION_DIR = /^s-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
/** A workspace overlay's scratch directory beside a session workdir (overlay.ts): it goes with the workdir. */
const LAYER_DIR = /^\.s-[0-9a-f-]{36}\.ovl$/;

/** The first sweep waits a little after the worker starts (its start-up is busy enough). */
const FIRST_SWEEP_MS = 5 * 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;

export interface SweepDeps {
  config: Pick<SandboxSettings, 'sandbox'>;
  db: Database;
  clock: Clock;
  log: Log;
}

export interface SweepResult {
  /** Workdir names removed. */
  removed: string[];
  /** Session workdirs kept: used within the TTL, or a run still open. */
  kept: number;
  /** Directories left alone: not a session workdir of this store. */
  unknown: number;
}

/** One pass over the workdir root. */
export async function sweepWorkdirs(deps: SweepDeps): Promise<SweepResult> {
  const result: SweepResult = { removed: [], kept: 0, unknown: 0 };
  const ttl = deps.config.sandbox.workdirTtlMs;
  if (ttl <= 0) return result;
  const root = deps.config.sandbox.dir;
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw err;
  }
  const sessions = new SandboxSessionsOnHost(deps.db);
  for (const ent of entries) {
    const key = ent.isDirectory() ? SESSION_DIR.exec(ent.name)?.[1] : undefined;
    if (!key) {
      if (ent.isDirectory() && !LAYER_DIR.test(ent.name)) result.unknown += 1;
      continue;
    }
    await withWorkdirLock(ent.name, async () => {
      const session = await sessions.byKey(key);
      if (!session || session.workdir_name !== ent.name) {
        result.unknown += 1;
        return;
      }
      const lastUsed = Date.parse(session.last_run_at ?? session.created_at);
      if (deps.clock.now().getTime() - lastUsed < ttl || (await hasOpenRun(deps.db, key))) {
        result.kept += 1;
        return;
      }
      const dir = path.join(root, ent.name);
      await sessions.markWorkdirRemoved(key, deps.clock.now().toISOString());
      // rm does not follow symbolic links a command left in the workdir: only the links go.
      await fsp.rm(dir, { recursive: true, force: true });
      await fsp.rm(ownersMarkerPath(dir), { force: true });
      // A workspace's layer (the workdir itself, for an overlay) or copies went with it; the overlay's
      // scratch directories and the copy's manifest go too: the next run starts from the project.
      await fsp.rm(workspaceManifestPath(dir), { force: true });
      await removeOverlayLayer(dir);
      forgetLayerHashes(dir);
      result.removed.push(ent.name);
    });
  }
  if (result.removed.length > 0) {
    deps.log.info({ removed: result.removed.length, kept: result.kept }, `sandbox: removed ${result.removed.length} workdir(s) idle for over ${Math.round(ttl / 3_600_000)} h`);
  }
  return result;
}

/** Sweeps a few minutes after start, then every hour, until stopped. */
export function startWorkdirRetention(deps: SweepDeps): { stop(): Promise<void> } {
  if (!deps.config.sandbox.enabled || deps.config.sandbox.workdirTtlMs <= 0) return { stop: async () => {} };
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const sweep = () => {
    if (running || stopped) return;
    running = sweepWorkdirs(deps)
      .catch((err) => deps.log.warn(`sandbox workdir retention failed: ${(err as Error).message}`))
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(sweep, FIRST_SWEEP_MS);
  const every = setInterval(sweep, SWEEP_EVERY_MS);
  first.unref();
  every.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
