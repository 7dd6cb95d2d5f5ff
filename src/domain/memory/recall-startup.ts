import { join } from 'node:path';
import type { Log } from '../../log';
import { INDEX_PROJECTION } from '../../store/memory/change-feed';
import type { NodeStore, SeqRef } from '../../store/memory/nodes';
import { storeIdentity } from '../../store/memory/store-identity';
import type { Database } from '../../store/database';
import type { Readiness } from '../family-module';
import type { CatchUp } from './catch-up';
import type { EmbeddingQueue } from './embedding-queue';
import { embeddingText, indexFields, textKeyOf, type RecallIndex } from './recall-index';
import { RecallSnapshots } from './recall-snapshot';

/**
 * When the recall index is written to a snapshot (recall-snapshot.ts): once this many changes are
 * not in one, or SNAPSHOT_MAX_AGE_MS after the first change that is not; never more often than
 * SNAPSHOT_DUTY times the time the last round held the event loop (a round writes each changed
 * partition synchronously), and at a clean stop. After a kill -9 a start catches up at most about
 * SNAPSHOT_CHANGES changes (or SNAPSHOT_MAX_AGE_MS of writes) from the store.
 */
export const SNAPSHOT_CHANGES = 20_000;
export const SNAPSHOT_MAX_AGE_MS = 5 * 60_000;
const SNAPSHOT_CHECK_MS = 5_000;
const SNAPSHOT_DUTY = 50;

export interface RecallStartup {
  /** GET /health `indexes.recall`: building while it catches up after a snapshot. */
  readiness(): Readiness;
  /** Stops the snapshot timer and writes a last snapshot of what changed (after a last catch-up pass). */
  stop(): Promise<void>;
}

/**
 * The recall index at start (docs/memory.md, "Start-up" and "Snapshots"): its snapshot loaded and
 * the store's changes since caught up in the background, or, without a usable snapshot, a build
 * from every node before this returns (then a snapshot of it). Then snapshots as changes accrue.
 */
export async function startRecallIndex(deps: {
  /** Whether snapshots are kept (LORE_INDEX_SNAPSHOTS), under `<dataDir>/index/recall/`. */
  settings: { readonly indexSnapshots: boolean; readonly dataDir: string };
  db: Database;
  store: NodeStore;
  index: RecallIndex;
  catchUp: CatchUp<SeqRef>;
  /** The embedding queue (null: no encoder), and the model id vectors are made with. */
  queue: EmbeddingQueue | null;
  encoder: string | null;
  log: Log;
  /** Called once the index holds every node it loaded (writes from then on are embedded first). */
  loaded: () => void;
}): Promise<RecallStartup> {
  const { index, catchUp, store, log } = deps;
  let state: Readiness = { status: 'building', detail: 'loading' };
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let firstPendingAt = 0;
  let startupCatchUp: Promise<void> | null = null;
  const database = deps.db.db.databaseName;
  const snapshots = deps.settings.indexSnapshots
    ? new RecallSnapshots({
        dir: join(deps.settings.dataDir, 'index', 'recall', database),
        index,
        position: () => ({ watermark: catchUp.watermark, holes: catchUp.holeSeqs() }),
        store: { id: await storeIdentity(deps.db), database },
        encoder: deps.encoder,
        log,
      })
    : null;
  const write = async (why: string) => {
    try {
      const r = await snapshots?.write();
      if (r)
        log.info(`recall index snapshot (${why}): ${r.partitions} partitions, ${Math.round(r.bytes / 1048576)} MB in ${r.ms} ms (event loop held ${r.maxBlockedMs} ms at most)`);
    } catch (err) {
      log.warn(`recall index snapshot failed (${why}); retried later: ${(err as Error).message}`);
    }
  };

  const head = await store.currentSeq();
  const loaded = snapshots ? await snapshots.load(head) : null;
  if (loaded) {
    // The partitions as they were at the snapshot; the store's change feed brings everything since
    // (the first catch-up pass, in the background: recall waits for it, as it waits for every
    // pass; other readers of the index see the snapshot meanwhile).
    index.adopt(loaded.parts);
    catchUp.init(loaded.watermark, loaded.holes);
    deps.loaded();
    state = { status: 'building', detail: `snapshot of ${loaded.nodes} nodes loaded; catching up with the store after seq ${loaded.watermark}` };
    log.info(`recall index: snapshot of ${loaded.nodes} nodes (${Math.round(loaded.bytes / 1048576)} MB) loaded in ${loaded.ms} ms`);
    // Wall time, not the injected clock: how long the catch-up took (for the log).
    const t1 = Date.now();
    startupCatchUp = (async () => {
      for (let failures = 0; !stopped; failures += 1) {
        try {
          await catchUp.sync();
          const seqs = catchUp.watermark - loaded.watermark;
          state = { status: 'ready', detail: `${index.size} nodes (a snapshot, then ${seqs} seqs caught up from the store)` };
          log.info(`recall index: caught up ${seqs} seqs after the snapshot in ${Date.now() - t1} ms`);
          return;
        } catch (err) {
          state = { status: 'failed', detail: `catching up after the snapshot: ${(err as Error).message} (retried)` };
          if (failures === 0) log.warn(`recall index: catching up after the snapshot failed (retried every second): ${(err as Error).message}`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })();
    if (deps.queue) void requeueMissingVectors(deps.queue).catch((err) => log.warn(`re-reading nodes without vectors failed: ${(err as Error).message}`));
  } else {
    // Build the index from the store in creation order (sequence context uses write order).
    // Nothing local yet: applyRemote never answers 'raced'.
    index.beginBulkLoad();
    try {
      await catchUp.initFromScan(head, store.scanForIndex(), (n) => index.applyRemote(n, 0));
    } finally {
      index.endBulkLoad();
      deps.loaded();
    }
    state = { status: 'ready', detail: `${index.size} nodes (built from the store)` };
    // The next start loads this instead of reading every node again.
    if (snapshots) void write('after a build from the store');
  }

  /** After a snapshot load: live nodes whose vector is not in it get theirs (vector cache or encoder) in the background. */
  async function requeueMissingVectors(q: EmbeddingQueue): Promise<void> {
    for (const part of index.nodesWithoutVector()) {
      for (let i = 0; i < part.ids.length && !stopped; i += 1000) {
        for (const n of await store.byIds(part.ids.slice(i, i + 1000), INDEX_PROJECTION)) {
          const fields = indexFields(n);
          if (n.tier !== 'archive') q.enqueue(n.id, embeddingText(fields), textKeyOf(fields), n, 'backlog');
        }
      }
    }
  }

  if (snapshots) {
    timer = setInterval(() => {
      const pending = snapshots.pending();
      if (pending === 0) {
        firstPendingAt = 0;
        return;
      }
      // Wall time, not the injected clock: how long changes have not been in a snapshot.
      firstPendingAt ||= Date.now();
      const last = snapshots.lastRound;
      const cooled = !last || Date.now() - last.at >= SNAPSHOT_DUTY * last.blockedMs;
      if (cooled && (pending >= SNAPSHOT_CHANGES || Date.now() - firstPendingAt >= SNAPSHOT_MAX_AGE_MS)) void write(`${pending} changes`);
    }, SNAPSHOT_CHECK_MS);
    timer.unref();
  }

  return {
    readiness: () => state,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await startupCatchUp?.catch(() => {});
      // A clean stop leaves a snapshot with nothing to catch up: the next start only loads it. (A
      // last pass first moves the watermark over this process's own writes since the last one.)
      if (snapshots && snapshots.pending() > 0) {
        await catchUp.sync().catch(() => {});
        await write('at stop');
      }
    },
  };
}
