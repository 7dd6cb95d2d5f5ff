import type { Config } from '../../config';
import type { Log } from '../../log';
import type { Embedder } from '../../retrieval';
import { resolveEncoder, type EncoderStatus } from '../../retrieval/embedders/resolve';
import { NodeStore, type ScopedNodes, type SeqRef, type StoredNode } from '../../store/memory/nodes';
import { INDEX_PROJECTION } from '../../store/memory/change-feed';
import { VectorCacheStore } from '../../store/memory/vector-cache';
import type { ScopeRef } from '../../store/scope';
import type { Database } from '../../store/database';
import type { Clock } from '../../model/clock';
import { join } from 'node:path';
import { storeIdentity } from '../../store/memory/store-identity';
import type { Readiness } from '../family-module';
import { AccessRecorder } from './access-recorder';
import { CatchUp } from './catch-up';
import { EmbeddingQueue, type VectorCache } from './embedding-queue';
import { RecallIndex, embeddingText, indexFields, textKeyOf } from './recall-index';
import { RecallSnapshots } from './recall-snapshot';
import { recall, type RecallOutcome, type RecallQuery } from './recall';
import { writeNodes, type Warning, type WriteEdge, type WriteItem, type WriteListener, type WriteResult } from './write';

/**
 * What the memory family offers the families built on it (sessions, handoff, packs, learning,
 * lifecycle): the node store, the one write path, recall, and the write-observer hook.
 */
export interface MemoryServices {
  readonly store: NodeStore;
  readonly index: RecallIndex;
  nodes(ref: ScopeRef): ScopedNodes;
  /** Writes nodes (and edges) the way /v1/memory/write does: extraction, idempotency, indexing, listeners. */
  write(ref: ScopeRef, actor: string, items: WriteItem[], edges?: WriteEdge[], opts?: { source?: string; warnings?: Warning[] }): Promise<WriteResult>;
  /**
   * Nodes changed directly through nodes(ref).update(...) (tier, slots, feedback): index them
   * before acknowledging, so this process's next recall sees the change. Other processes catch up.
   */
  indexed(nodes: StoredNode[]): void;
  recall(ref: ScopeRef, q: RecallQuery): Promise<RecallOutcome>;
  /** Applies every change other processes acknowledged before this call (recall does this itself). */
  catchUp(): Promise<void>;
  /**
   * Subscribes to every write through write(). The listener's `workflows_updated` and
   * `patterns_updated` fill the write response's `learning`; a throwing listener becomes a
   * warning, never a failed write. Returns an unsubscribe function.
   */
  onWrite(listener: WriteListener): () => void;
  /** Diagnostics: index size, catch-up watermark and holes, embedding queue. */
  stats(): Record<string, unknown>;
  /**
   * The process's sentence encoder, decided at start (retrieval/embedders/resolve.ts): learning
   * embeds goals with the same one. Before start: none, status off.
   */
  /**
   * The encoder memory decided on at its start, its status, and the vector cache with the model id
   * its keys are made with (null when there is no encoder or the cache is unusable here): learning
   * embeds its workflows' goals with the same encoder and keeps their vectors in the same cache.
   */
  encoder(): { embedder: Embedder | null; status: EncoderStatus & { pending?: number; lag_ms?: number }; vectorCache: { store: VectorCache; model: string } | null };
}

export interface MemoryRuntime {
  services: MemoryServices;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The recall index's start-up: loading, catching up after a snapshot, or ready (GET /health). */
  readiness(): Readiness;
}

const BACKGROUND_CATCH_UP_MS = 1000;

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

/** A wait beyond which /health says the encoder is behind (it embeds a node in 5-30 ms when it gets a core). */
export const EMBEDDINGS_BEHIND_MS = 30_000;

/** The encoder's status with its backlog; a detail says so when vectors lag (recall is lexical for those nodes meanwhile). */
export function withBacklog(status: EncoderStatus, pending: number, lagMs: number): EncoderStatus & { pending: number; lag_ms: number } {
  const out = { ...status, pending, lag_ms: lagMs };
  if (lagMs < EMBEDDINGS_BEHIND_MS || status.detail) return out;
  return {
    ...out,
    detail:
      `the encoder is behind: ${pending} nodes wait for their vector, the oldest for ${Math.round(lagMs / 1000)} s; ` +
      'they are recalled by their words until then, and the newest writes are embedded first',
  };
}

export function createMemoryRuntime(deps: { config: Config; db: Database; clock: Clock; log: Log }): MemoryRuntime {
  const log = deps.log.child('memory');
  const store = new NodeStore(deps.db);
  const index = new RecallIndex();
  const listeners: WriteListener[] = [];
  const now = () => deps.clock.now();
  const access = new AccessRecorder(
    (ref, ids, n, at) => store.in(ref).touch(ids, at, n),
    now,
    log,
    {},
    undefined,
    (stop) => store.foldAccess({ stop }),
  );
  // The feed returns {id, seq} pairs; only what the index does not already hold is loaded.
  const catchUp = new CatchUp<SeqRef>(
    { after: (seq, limit) => store.seqsSince(seq, limit), at: (seqs) => store.seqsAt(seqs), head: () => store.currentSeq() },
    async (items, mark) => {
      const unknown = items.filter((i) => index.seqOf(i.id, i.tenant_id, i.scope) !== i.seq).map((i) => i.id);
      const raced: number[] = [];
      for (const n of await store.byIds(unknown)) {
        if (index.applyRemote(n, mark) === 'raced') raced.push(n.seq);
      }
      return raced;
    },
    () => index.mark(),
  );
  // Numbers this process reserved and gave up: never written, so the watermark may pass them.
  store.watchAbandonedSeqs((first, last) => {
    for (let s = first; s <= last; s += 1) catchUp.noteAbandoned(s);
  });
  /** Local writes: indexed now, and their seqs let the watermark pass them without a query. */
  const applyLocal = (n: StoredNode) => {
    index.applyLocal(n);
    catchUp.noteLocal(n.seq, n.id);
  };
  let background: NodeJS.Timeout | null = null;
  let embedder: Embedder | null = null;
  let encoderStatus: EncoderStatus = { provider: deps.config.embeddings.provider, status: 'off', model: deps.config.embeddings.model };
  let queue: EmbeddingQueue | null = null;
  let vectorCache: { store: VectorCache; model: string } | null = null;
  let state: Readiness = { status: 'building', detail: 'not started' };
  let startupCatchUp: Promise<void> | null = null;
  let snapshotWriter: RecallSnapshots | null = null;
  let snapshotTimer: NodeJS.Timeout | null = null;
  let firstPendingAt = 0;
  let stopped = false;
  const writeSnapshot = async (why: string) => {
    try {
      const r = await snapshotWriter?.write();
      if (r)
        log.info(`recall index snapshot (${why}): ${r.partitions} partitions, ${Math.round(r.bytes / 1048576)} MB in ${r.ms} ms (event loop held ${r.maxBlockedMs} ms at most)`);
    } catch (err) {
      log.warn(`recall index snapshot failed (${why}); retried later: ${(err as Error).message}`);
    }
  };
  /** After a snapshot load: live nodes whose vector is not in it get theirs (cache or encoder) in the background. */
  const requeueMissingVectors = async (q: EmbeddingQueue) => {
    for (const part of index.nodesWithoutVector()) {
      for (let i = 0; i < part.ids.length; i += 1000) {
        for (const n of await store.byIds(part.ids.slice(i, i + 1000), INDEX_PROJECTION)) {
          const fields = indexFields(n);
          if (n.tier !== 'archive') q.enqueue(n.id, embeddingText(fields), textKeyOf(fields), n, 'backlog');
        }
      }
    }
  };

  const services: MemoryServices = {
    store,
    index,
    nodes: (ref) => store.in(ref),
    write: (ref, actor, items, edges = [], opts = {}) => writeNodes({ store, index, now, listeners, log, applyLocal }, ref, actor, items, edges, opts),
    indexed(nodes) {
      for (const n of nodes) applyLocal(n);
    },
    recall: (ref, q) => recall({ store, index, catchUp: () => catchUp.sync(), embedder, access }, ref, q),
    catchUp: () => catchUp.sync(),
    onWrite(listener) {
      listeners.push(listener);
      return () => {
        const i = listeners.indexOf(listener);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
    stats: () => ({
      index: index.stats(),
      catch_up: catchUp.stats,
      embeddings: queue ? queue.stats() : { provider: 'none' },
    }),
    encoder: () => ({ embedder, status: queue ? withBacklog(encoderStatus, queue.pending, queue.lagMs()) : encoderStatus, vectorCache }),
  };

  return {
    services,
    async start() {
      // Wall time, not the injected clock: load time for the log, and how often the background catch-up really runs.
      const t0 = Date.now();
      const resolved = await resolveEncoder(deps.config.embeddings);
      embedder = resolved.embedder;
      encoderStatus = resolved.status;
      if (resolved.status.status === 'unavailable') {
        // Configured on purpose: an error. The default (onnx where it can run): a warning.
        const say = deps.config.embeddings.explicit ? log.error.bind(log) : log.warn.bind(log);
        say(`embeddings (${resolved.status.provider}) unavailable: ${resolved.status.detail}`);
      }
      // Nodes loaded now wait in the backlog lane (their vectors mostly come back from the vector
      // cache); writes from here on go first (embedding-queue.ts).
      let loading = true;
      if (embedder) {
        const cache = new VectorCacheStore(deps.db);
        // Vectors are stored under the weights that computed them (resolve.ts, ResolvedEncoder.weights).
        const model = resolved.weights ? `${embedder.id}@${resolved.weights}` : embedder.id;
        vectorCache = cache.usable ? { store: cache, model } : null;
        const q = new EmbeddingQueue(embedder, index, log, vectorCache);
        queue = q;
        index.onTextChanged = (id, text, key, ref) => q.enqueue(id, text, key, ref, loading ? 'backlog' : 'fresh');
      }
      const snapshots = deps.config.indexSnapshots
        ? new RecallSnapshots({
            dir: join(deps.config.dataDir, 'index', 'recall', deps.db.db.databaseName),
            index,
            position: () => ({ watermark: catchUp.watermark, holes: catchUp.holeSeqs() }),
            store: { id: await storeIdentity(deps.db), database: deps.db.db.databaseName },
            encoder: vectorCache?.model ?? embedder?.id ?? null,
            log,
          })
        : null;
      snapshotWriter = snapshots;
      const head = await store.currentSeq();
      const loaded = snapshots ? await snapshots.load(head) : null;
      if (loaded) {
        // The partitions as they were at the snapshot; the store's change feed brings everything
        // since (the first catch-up pass, in the background: recall waits for it, as it waits for
        // every pass; other readers of the index see the snapshot meanwhile).
        index.adopt(loaded.parts);
        catchUp.init(loaded.watermark, loaded.holes);
        loading = false;
        state = { status: 'building', detail: `snapshot of ${loaded.nodes} nodes loaded; catching up with the store since seq ${loaded.watermark}` };
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
        log.info(`recall index: snapshot of ${loaded.nodes} nodes (${Math.round(loaded.bytes / 1048576)} MB) loaded in ${loaded.ms} ms`);
        if (queue) void requeueMissingVectors(queue).catch((err) => log.warn(`re-reading nodes without vectors failed: ${(err as Error).message}`));
      } else {
        // Build the index from the store in creation order (sequence context uses write order).
        // Nothing local yet: applyRemote never answers 'raced'.
        index.beginBulkLoad();
        try {
          await catchUp.initFromScan(head, store.scanForIndex(), (n) => index.applyRemote(n, 0));
        } finally {
          index.endBulkLoad();
          loading = false;
        }
        state = { status: 'ready', detail: `${index.size} nodes (built from the store)` };
        // The next start loads this instead of reading every node again.
        if (snapshots) void writeSnapshot('after a build from the store');
      }
      if (snapshots) {
        snapshotTimer = setInterval(() => {
          const pending = snapshots.pending();
          if (pending === 0) {
            firstPendingAt = 0;
            return;
          }
          // Wall time, not the injected clock: how long changes have not been in a snapshot.
          firstPendingAt ||= Date.now();
          const last = snapshots.lastRound;
          const cooled = !last || Date.now() - last.at >= SNAPSHOT_DUTY * last.blockedMs;
          if (cooled && (pending >= SNAPSHOT_CHANGES || Date.now() - firstPendingAt >= SNAPSHOT_MAX_AGE_MS)) void writeSnapshot(`${pending} changes`);
        }, SNAPSHOT_CHECK_MS);
        snapshotTimer.unref();
      }
      // A light pass every second keeps the backlog small between reads (worker writes, other
      // processes), so a read rarely has more than its own round trip to wait for.
      let backgroundBusy = false; // one background pass at a time (and one warning per failed pass)
      background = setInterval(() => {
        if (backgroundBusy || Date.now() - catchUp.lastPass < BACKGROUND_CATCH_UP_MS) return;
        backgroundBusy = true;
        catchUp
          .sync()
          .catch((err) => log.warn(`background catch-up failed: ${(err as Error).message}`))
          .finally(() => {
            backgroundBusy = false;
          });
      }, BACKGROUND_CATCH_UP_MS);
      background.unref();
      log.info(
        `recall index: ${index.size} nodes ready to serve in ${Date.now() - t0} ms (embeddings: ${encoderStatus.provider} ${encoderStatus.status}${embedder ? `, ${embedder.id}` : ''})`,
      );
      // Access counts another process logged and did not fold (it stopped or died) are folded here.
      access.foldLater();
    },
    async stop() {
      stopped = true;
      if (background) clearInterval(background);
      if (snapshotTimer) clearInterval(snapshotTimer);
      index.onTextChanged = null;
      await access.stop();
      await queue?.stop();
      await startupCatchUp?.catch(() => {});
      // A clean stop leaves a snapshot with nothing to catch up: the next start only loads it. (A
      // last pass first moves the watermark over this process's own writes since the last one.)
      if (snapshotWriter && snapshotWriter.pending() > 0) {
        await catchUp.sync().catch(() => {});
        await writeSnapshot('at stop');
      }
    },
    readiness: () => state,
  };
}

export { embeddingText, indexFields };
