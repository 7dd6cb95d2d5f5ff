import type { Embedder } from '../../retrieval';
import type { Log } from '../../log';

/**
 * Embeds node text off the write path (contract.md §2): a write is acknowledged once it is
 * durable and lexically indexed; its vector follows from this queue. Jobs are keyed by node id,
 * so a node rewritten before its turn is embedded once, with its latest text; a vector computed
 * for text that changed meanwhile is dropped by RecallIndex.setVector (text key mismatch).
 * Provider failures back off and retry; the queue never blocks writes or reads.
 */

export interface EmbedTarget {
  setVector(id: string, key: number, vector: Float32Array): boolean;
}

export class EmbeddingQueue {
  private readonly jobs = new Map<string, { text: string; key: number; at: number }>();
  /** Jobs taken for the batch being embedded now (still pending for whoever asks). */
  private inFlight: { at: number }[] = [];
  private running = false;
  private stopped = false;
  private failures = 0;
  private embedded = 0;
  private idle: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly embedder: Embedder,
    private readonly target: EmbedTarget,
    private readonly log: Log,
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

  stats(): { pending: number; lag_ms: number; embedded: number; consecutive_failures: number; provider: string } {
    return { pending: this.pending, lag_ms: this.lagMs(), embedded: this.embedded, consecutive_failures: this.failures, provider: this.embedder.id };
  }

  enqueue(id: string, text: string, key: number): void {
    if (this.stopped) return;
    // Re-inserted at the end with its latest text (fair order); it has waited since it was first queued.
    const at = this.jobs.get(id)?.at ?? Date.now();
    this.jobs.delete(id);
    this.jobs.set(id, { text: text.slice(0, 32_000), key, at });
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
    for (const r of this.idle.splice(0)) r();
    await this.embedder.close?.();
  }

  private async pump(): Promise<void> {
    this.timer = null;
    if (this.running || this.stopped) return;
    this.running = true;
    try {
      while (this.jobs.size > 0 && !this.stopped) {
        const batch = [...this.jobs.entries()].slice(0, this.batchSize);
        for (const [id] of batch) this.jobs.delete(id);
        this.inFlight = batch.map(([, j]) => j);
        try {
          const vectors = await this.embedder.embed(batch.map(([, j]) => j.text), { background: true });
          batch.forEach(([id, j], i) => {
            if (this.target.setVector(id, j.key, vectors[i]!)) this.embedded += 1;
          });
          this.inFlight = [];
          this.failures = 0;
        } catch (err) {
          // Put the jobs back (unless rewritten meanwhile) and back off; recall stays lexical.
          for (const [id, j] of batch) if (!this.jobs.has(id)) this.jobs.set(id, j);
          this.inFlight = [];
          this.failures += 1;
          if (this.failures === 1 || this.failures % 20 === 0) {
            this.log.warn(`embeddings (${this.embedder.id}) failed ${this.failures}x, retrying: ${(err as Error).message}`);
          }
          const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
          this.running = false;
          if (!this.stopped) this.timer = setTimeout(() => void this.pump(), delay).unref();
          return;
        }
      }
    } finally {
      if (this.running) {
        this.running = false;
        if (this.jobs.size === 0) for (const r of this.idle.splice(0)) r();
      }
    }
  }
}
