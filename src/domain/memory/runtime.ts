import type { Log } from '../../log';
import type { Embedder } from '../../retrieval';
import { resolveEncoder, type EncoderStatus } from '../../retrieval/embedders/resolve';
import { NodeStore, type SeqRef, type StoredNode } from '../../store/memory/nodes';
import { INDEX_PROJECTION } from '../../store/memory/change-feed';
import { VectorCacheStore } from '../../store/memory/vector-cache';
import type { Database } from '../../store/database';
import type { Clock } from '../../model/clock';
import type { Readiness } from '../family-module';
import { AccessRecorder } from './access-recorder';
import { CatchUp } from './catch-up';
import { EmbeddingQueue, type VectorCache } from './embedding-queue';
import { RecallIndex } from './recall-index';
import { startRecallIndex, type RecallStartup } from './recall-startup';
import { recall } from './recall';
import { writeNodes, type WriteListener } from './write';
import type { MemorySettings, MemoryServices } from './context';

/**
 * The memory family's runtime: the node store, the in-process recall index and its catch-up with
 * the store, the encoder and its embedding queue, access statistics; it builds MemoryServices,
 * which is both the family's context and what it offers the families built on it.
 */

export interface MemoryRuntime {
  services: MemoryServices;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The recall index's start-up: loading, catching up after a snapshot, or ready (GET /health). */
  readiness(): Readiness;
}

const BACKGROUND_CATCH_UP_MS = 1000;

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

export function createMemoryRuntime(deps: { settings: MemorySettings; db: Database; clock: Clock; log: Log }): MemoryRuntime {
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
      // Only the fields the index reads (a node's slots and extraction are most of its bytes).
      for (const n of await store.byIds(unknown, INDEX_PROJECTION)) {
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
  let encoderStatus: EncoderStatus = { provider: deps.settings.embeddings.provider, status: 'off', model: deps.settings.embeddings.model };
  let queue: EmbeddingQueue | null = null;
  let vectorCache: { store: VectorCache; model: string } | null = null;
  let startup: RecallStartup | null = null;

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
      const resolved = await resolveEncoder(deps.settings.embeddings);
      embedder = resolved.embedder;
      encoderStatus = resolved.status;
      if (resolved.status.status === 'unavailable') {
        // Configured on purpose: an error. The default (onnx where it can run): a warning.
        const say = deps.settings.embeddings.explicit ? log.error.bind(log) : log.warn.bind(log);
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
      startup = await startRecallIndex({
        settings: deps.settings,
        db: deps.db,
        store,
        index,
        catchUp,
        queue,
        encoder: vectorCache?.model ?? embedder?.id ?? null,
        log,
        loaded: () => (loading = false),
      });
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
      if (background) clearInterval(background);
      index.onTextChanged = null;
      await access.stop();
      await queue?.stop();
      await startup?.stop();
    },
    readiness: () => startup?.readiness() ?? { status: 'building', detail: 'not started' },
  };
}
