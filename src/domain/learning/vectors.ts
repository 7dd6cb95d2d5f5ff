import type { Embedder } from '../../retrieval';
import type { Log } from '../../log';
import type { ScopeRef } from '../../store/scope';
import { unitVector } from './family-index';
import type { Learned, ScopeLearning } from './scope-state';
import type { WorkflowSlot } from './workflow-model';

/**
 * Dense vectors of workflow goals, when an embedder is configured (LORE_EMBEDDINGS). Computed off
 * the write path in small batches; a workflow without its vector yet is still found lexically.
 * Queries are embedded with a short timeout and fall back to lexical matching on any failure, so
 * a slow or missing embedding service never fails a planning request.
 */

const BATCH = 16;
const QUERY_TIMEOUT_MS = 1500;

export const workflowEmbeddingText = (w: WorkflowSlot) => [w.goal, ...w.goals.filter((g) => g !== w.goal)].join('. ').slice(0, 2000);

export class GoalVectors {
  private readonly queue: { state: ScopeLearning; id: string; text: string }[] = [];
  private running: Promise<void> | null = null;
  lastError: string | null = null;

  constructor(
    private readonly embedder: Embedder,
    private readonly log: Log,
  ) {}

  get id(): string {
    return this.embedder.id;
  }

  enqueue(state: ScopeLearning, w: Learned<WorkflowSlot>): void {
    this.queue.push({ state, id: w.node.id, text: workflowEmbeddingText(w.slot) });
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  /** Every workflow of a freshly loaded scope. */
  enqueueAll(_ref: ScopeRef, state: ScopeLearning): void {
    for (const w of state.workflows.values()) this.enqueue(state, w);
  }

  /** Resolves when everything queued so far has a vector (benchmarks and tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        const vectors = await this.embedder.embed(batch.map((b) => b.text));
        batch.forEach((b, i) => b.state.workflows.setVector(b.id, unitVector(vectors[i]!)));
        this.lastError = null;
      } catch (err) {
        this.lastError = (err as Error).message;
        this.log.warn(`learning: goal embeddings failed (${this.lastError}); lexical matching continues`);
      }
    }
  }

  async query(text: string): Promise<Float32Array | null> {
    if (text.trim() === '') return null;
    let timer: NodeJS.Timeout | undefined;
    try {
      const v = await Promise.race([
        this.embedder.embed([text]).then((x) => x[0] ?? null),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), QUERY_TIMEOUT_MS);
        }),
      ]);
      return v ? unitVector(v) : null;
    } catch (err) {
      this.lastError = (err as Error).message;
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
