import type { Embedder } from '../../retrieval';
import type { Log } from '../../log';
import type { ScopeRef } from '../../store/scope';
import { vectorKey } from './vector-key';

/**
 * Embeds node text off the write path (contract.md §2): a write is acknowledged once it is
 * durable and lexically indexed; its vector follows from this queue. Jobs are keyed by node id,
 * so a node rewritten before its turn is embedded once, with its latest text; a vector computed
 * for text that changed meanwhile is dropped by RecallIndex.setVector (text key mismatch).
 * Provider failures back off and retry; the queue never blocks writes or reads.
 *
 * Two stages, two lanes each (docs/memory.md, "Vectors"):
 * - the vector cache (store/memory/vector-cache.ts) is asked first, in chunks of LOOKUP keys: a
 *   restart finds there every vector computed before it, and only the rest reaches the encoder;
 * - the encoder then takes `batchSize` texts (32) per call.
 * The `fresh` lane (writes while running, this process's and other processes') goes before the
 * `backlog` lane (nodes loaded at start), and within it the newest write first: when writes come
 * faster than the encoder can follow, the nodes just written (the ones an agent asks about next)
 * still get their vectors within a few batches, and the older ones wait. `lagMs` reports the
 * oldest wait whatever the order, so /health shows how far behind the encoder is.
 */

export interface EmbedTarget {
  setVector(id: string, key: number, vector: Float32Array): boolean;
}

/** What the queue needs of the vector cache (store/memory/vector-cache.ts). */
export interface VectorCache {
  get(keys: string[]): Promise<Map<string, Float32Array>>;
  put(entries: { key: string; tenant_id: string; scope: string; model: string; vector: Float32Array }[]): Promise<void>;
}

export type EmbedLane = 'fresh' | 'backlog';

interface Job {
  text: string;
  /** The index's text key (RecallIndex); the cache key is derived from the text itself. */
  key: number;
  ref: ScopeRef;
  lane: EmbedLane;
  /** When the node started waiting for its vector (a rewrite keeps the first time). */
  at: number;
  /** Which enqueue this is: a lane entry of an older generation is stale (the node was re-queued). */
  gen: number;
}

type Entry = { id: string; gen: number };

/** A list taken from the back (newest first) or the front (oldest first). */
class Lane {
  private items: Entry[] = [];
  private head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  push(e: Entry): void {
    this.items.push(e);
  }
  take(newestFirst: boolean): Entry | undefined {
    if (this.size === 0) return undefined;
    const e = newestFirst ? this.items.pop() : this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (this.size === 0) {
      this.items = [];
      this.head = 0;
    }
    return e;
  }
  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

/** Keys per cache lookup: one round trip restores this many vectors at start. */
const LOOKUP = 256;

export class EmbeddingQueue {
  private readonly jobs = new Map<string, Job>();
  /** Waiting for the cache lookup (only with a cache) and for the encoder, per lane. */
  private readonly unchecked = { fresh: new Lane(), backlog: new Lane() };
  private readonly toEmbed = { fresh: new Lane(), backlog: new Lane() };
  /** Jobs taken for the lookup or batch being run now (still pending for whoever asks). */
  private inFlight: Job[] = [];
  private gen = 0;
  private running = false;
  private stopped = false;
  private failures = 0;
  private counts = { embedded: 0, computed: 0, cache_hits: 0, cache_errors: 0 };
  private idle: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly created = Date.now();
  private drainedOnce = false;

  constructor(
    private readonly embedder: Embedder,
    private readonly target: EmbedTarget,
    private readonly log: Log,
    /** The vector cache, and the model id its keys are made with (the embedder's id and its weights). */
    private readonly cache: { store: VectorCache; model: string } | null = null,
    private readonly batchSize = 32,
  ) {}

  /** Nodes waiting for their vector, the batch being embedded included. */
  get pending(): number {
    return this.jobs.size + this.inFlight.length;
  }

  /** How long the longest-waiting node has waited for its vector (0 when none waits). */
  // Wall time, not the injected clock: how long a node has really waited for its vector (for /health).
  lagMs(now = Date.now()): number {
    let oldest = Infinity;
    for (const j of this.inFlight) oldest = Math.min(oldest, j.at);
    for (const j of this.jobs.values()) oldest = Math.min(oldest, j.at); // diagnostics only: O(pending)
    return oldest === Infinity ? 0 : Math.max(0, now - oldest);
  }

  /**
   * embedded: vectors given to the index; computed: texts the encoder ran (cache misses);
   * cache_hits: vectors read back from the cache; cache_errors: failed cache reads or writes.
   */
  stats(): { pending: number; lag_ms: number; embedded: number; computed: number; cache_hits: number; cache_errors: number; consecutive_failures: number; provider: string } {
    return { pending: this.pending, lag_ms: this.lagMs(), ...this.counts, consecutive_failures: this.failures, provider: this.embedder.id };
  }

  enqueue(id: string, text: string, key: number, ref: ScopeRef, lane: EmbedLane = 'fresh'): void {
    if (this.stopped) return;
    const prev = this.jobs.get(id);
    // A node re-queued while it waits has waited since it was first queued; a rewrite goes fresh.
    const job: Job = {
      text: text.slice(0, 32_000),
      key,
      ref: { tenant_id: ref.tenant_id, scope: ref.scope },
      lane: prev?.lane === 'fresh' ? 'fresh' : lane,
      at: prev?.at ?? Date.now(),
      gen: ++this.gen,
    };
    this.jobs.set(id, job);
    (this.cache ? this.unchecked : this.toEmbed)[job.lane].push({ id, gen: job.gen });
    if (!this.running && !this.timer) this.timer = setTimeout(() => void this.pump(), 0);
  }

  /** Resolves when the queue is empty (tests, shutdown). */
  drained(): Promise<void> {
    if (this.jobs.size === 0 && !this.running) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.jobs.clear();
    for (const lanes of [this.unchecked, this.toEmbed]) for (const l of Object.values(lanes)) l.clear();
    for (const r of this.idle.splice(0)) r();
    await this.embedder.close?.();
  }

  /** Up to n current jobs from the lanes: fresh ones newest first, then the backlog oldest first. */
  private take(lanes: { fresh: Lane; backlog: Lane }, n: number): [string, Job][] {
    const out: [string, Job][] = [];
    for (const [lane, newestFirst] of [
      [lanes.fresh, true],
      [lanes.backlog, false],
    ] as const) {
      while (out.length < n) {
        const e = lane.take(newestFirst);
        if (!e) break;
        const j = this.jobs.get(e.id);
        if (!j || j.gen !== e.gen) continue; // re-queued since: its newer entry counts
        this.jobs.delete(e.id);
        out.push([e.id, j]);
      }
    }
    this.inFlight = out.map(([, j]) => j);
    return out;
  }

  /**
   * Back in the lanes (a failed run; cache misses on to the encoder), unless the node was re-queued
   * meanwhile. Fresh jobs came out newest first: pushed back oldest first, they come out newest first again.
   */
  private putBack(batch: [string, Job][], lanes: { fresh: Lane; backlog: Lane }): void {
    const ordered = [...batch.filter(([, j]) => j.lane === 'fresh').reverse(), ...batch.filter(([, j]) => j.lane === 'backlog')];
    for (const [id, j] of ordered) {
      if (this.jobs.has(id)) continue;
      this.jobs.set(id, j);
      lanes[j.lane].push({ id, gen: j.gen });
    }
  }

  /** One cache lookup: hits go to the index, misses on to the encoder. */
  private async lookUp(cache: VectorCache, model: string): Promise<void> {
    const batch = this.take(this.unchecked, LOOKUP);
    const keys = batch.map(([, j]) => vectorKey(model, j.ref, j.text));
    let found = new Map<string, Float32Array>();
    try {
      found = await cache.get(keys);
    } catch (err) {
      this.cacheError('read', err);
    }
    const misses: [string, Job][] = [];
    batch.forEach(([id, j], i) => {
      const v = found.get(keys[i]!);
      if (v) {
        this.counts.cache_hits += 1;
        if (this.target.setVector(id, j.key, v)) this.counts.embedded += 1;
      } else misses.push([id, j]);
    });
    this.putBack(misses, this.toEmbed);
    this.inFlight = [];
  }

  private cacheError(what: string, err: unknown): void {
    this.counts.cache_errors += 1;
    if (this.counts.cache_errors === 1 || this.counts.cache_errors % 100 === 0) {
      this.log.warn(`vector cache ${what} failed (${this.counts.cache_errors}x): ${(err as Error).message}; vectors are computed instead`);
    }
  }

  /** One encoder batch; false when it failed (the caller backs off). */
  private async embedBatch(): Promise<boolean> {
    const batch = this.take(this.toEmbed, this.batchSize);
    if (batch.length === 0) return true;
    let vectors: Float32Array[];
    try {
      vectors = await this.embedder.embed(
        batch.map(([, j]) => j.text),
        { background: true },
      );
    } catch (err) {
      // Put the jobs back and back off; recall stays lexical for them meanwhile.
      this.putBack(batch, this.toEmbed);
      this.inFlight = [];
      this.failures += 1;
      if (this.failures === 1 || this.failures % 20 === 0) {
        this.log.warn(`embeddings (${this.embedder.id}) failed ${this.failures}x, retrying: ${(err as Error).message}`);
      }
      return false;
    }
    this.counts.computed += batch.length;
    batch.forEach(([id, j], i) => {
      if (this.target.setVector(id, j.key, vectors[i]!)) this.counts.embedded += 1;
    });
    this.inFlight = [];
    this.failures = 0;
    if (this.cache) {
      const { store, model } = this.cache;
      const entries = batch.map(([, j], i) => ({ key: vectorKey(model, j.ref, j.text), tenant_id: j.ref.tenant_id, scope: j.ref.scope, model, vector: vectors[i]! }));
      // Not awaited by the next batch's encoder run: the store write overlaps it.
      store.put(entries).catch((err) => this.cacheError('write', err));
    }
    return true;
  }

  private async pump(): Promise<void> {
    this.timer = null;
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      while (this.jobs.size > 0 && !this.stopped) {
        // Cache lookups first: they are cheap, and at start they restore most vectors at once.
        if (this.cache && this.unchecked.fresh.size + this.unchecked.backlog.size > 0) {
          await this.lookUp(this.cache.store, this.cache.model);
          continue;
        }
        if (!(await this.embedBatch())) {
          const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
          this.running = false;
          if (!this.stopped) this.timer = setTimeout(() => void this.pump(), delay).unref();
          return;
        }
      }
    } finally {
      if (this.running) {
        this.running = false;
        if (this.jobs.size === 0) {
          if (!this.drainedOnce) {
            // The first drain after start: what the restart cost (docs/benchmarks.md reads this line).
            this.drainedOnce = true;
            this.log.info(
              `vectors complete ${Date.now() - this.created} ms after start: ${this.counts.cache_hits} read back from the vector cache, ${this.counts.computed} computed`,
            );
          }
          for (const r of this.idle.splice(0)) r();
        }
      }
    }
  }
}
