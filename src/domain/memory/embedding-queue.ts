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
  private readonly jobs = new Map<string, { text: string; key: number }>();
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

  get pending(): number {
    return this.jobs.size;
  }

  stats(): { pending: number; embedded: number; consecutive_failures: number; provider: string } {
    return { pending: this.jobs.size, embedded: this.embedded, consecutive_failures: this.failures, provider: this.embedder.id };
  }

  enqueue(id: string, text: string, key: number): void {
    if (this.stopped) return;
    this.jobs.delete(id); // re-insert at the end: latest text, fair order
    this.jobs.set(id, { text: text.slice(0, 32_000), key });
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
        try {
          const vectors = await this.embedder.embed(batch.map(([, j]) => j.text));
          batch.forEach(([id, j], i) => {
            if (this.target.setVector(id, j.key, vectors[i]!)) this.embedded += 1;
          });
          this.failures = 0;
        } catch (err) {
          // Put the jobs back (unless rewritten meanwhile) and back off; recall stays lexical.
          for (const [id, j] of batch) if (!this.jobs.has(id)) this.jobs.set(id, j);
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
