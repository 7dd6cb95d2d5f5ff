import type { Embedder } from '../../retrieval';
import type { Log } from '../../log';
import type { ScopeRef } from '../../store/scope';
import type { VectorCache } from '../memory/embedding-queue';
import { vectorKey } from '../memory/vector-key';
import { unitVector } from './family-index';
import { BGE_DENSE, E5_DENSE, MINILM_DENSE, USE_DENSE, type DenseProfile } from './score';
import type { Learned, ScopeLearning } from './scope-state';
import type { WorkflowHead, WorkflowSlot } from './workflow-model';

/**
 * Dense vectors of workflow goals, when an embedder is configured (LORE_EMBEDDINGS). Computed off
 * the write path in small batches; a workflow without its vector yet is still found lexically.
 * Queries are embedded with a short timeout and fall back to lexical matching on any failure, so
 * a slow or missing embedding service never fails a planning request.
 *
 * Goal vectors go to memory's vector cache (store/memory/vector-cache.ts), keyed like node vectors
 * (the encoder with its weights, the tenant, the scope and the exact text), so a restart reads them
 * back instead of running the encoder over every workflow's goals again (~10 000 texts at 3 300
 * workflows, minutes of CPU with the default encoder).
 */

const BATCH = 16;
const QUERY_TIMEOUT_MS = 1500;

export const workflowEmbeddingText = (w: Pick<WorkflowSlot, 'goal' | 'goals'>) => [w.goal, ...w.goals.filter((g) => g !== w.goal)].join('. ').slice(0, 2000);

/**
 * The texts a workflow is embedded as: every phrasing it was seen with (its goals) and their
 * concatenation. The query's dense cosine is the best of them, so a paraphrase close to any one
 * way the task was described counts, not only to their average.
 */
export function workflowEmbeddingTexts(w: Pick<WorkflowSlot, 'goal' | 'goals'>): string[] {
  const goals = [...new Set([w.goal, ...w.goals].filter((g): g is string => !!g && g.trim() !== ''))].map((g) => g.slice(0, 500));
  return goals.length > 1 ? [...goals, workflowEmbeddingText(w)] : goals.length === 1 ? goals : [workflowEmbeddingText(w)];
}

/**
 * The dense calibration for an embedder (score.ts, DenseProfile), by its model: the onnx encoder's
 * id is `onnx:<model file or folder name>:<pooling>`. bge and e5 models have their own; any other
 * onnx model gets all-MiniLM-L6-v2's (the default, hub scoring); the other providers the
 * Universal Sentence Encoder's.
 */
export function denseProfileFor(embedder: Pick<Embedder, 'provider' | 'id'>): DenseProfile {
  if (embedder.provider !== 'onnx') return USE_DENSE;
  const model = embedder.id.split(':')[1] ?? '';
  if (/bge/i.test(model)) return BGE_DENSE;
  if (/(^|[^a-z0-9])e5/i.test(model)) return E5_DENSE;
  return MINILM_DENSE;
}

export class GoalVectors {
  private readonly queue: { ref: ScopeRef; state: ScopeLearning; id: string; texts: string[] }[] = [];
  /** Texts the encoder ran, and vectors read back from the cache. */
  private readonly counts = { computed: 0, cache_hits: 0 };
  /** Per scope: the texts each workflow was last embedded (or queued) with, so a change that keeps its phrasings costs nothing. */
  private readonly embedded = new WeakMap<ScopeLearning, Map<string, string>>();
  private running: Promise<void> | null = null;
  lastError: string | null = null;
  readonly profile: DenseProfile;

  constructor(
    private readonly embedder: Embedder,
    private readonly log: Log,
    /** Memory's vector cache and the model id its keys are made with; null: no cache here. */
    private readonly cache: { store: VectorCache; model: string } | null = null,
  ) {
    this.profile = denseProfileFor(embedder);
  }

  get id(): string {
    return this.embedder.id;
  }

  stats(): { computed: number; cache_hits: number; pending: number } {
    return { ...this.counts, pending: this.queue.length };
  }

  enqueue(ref: ScopeRef, state: ScopeLearning, w: Learned<WorkflowHead>): void {
    const texts = workflowEmbeddingTexts(w.slot);
    const key = texts.join('\u0000');
    let seen = this.embedded.get(state);
    if (!seen) this.embedded.set(state, (seen = new Map()));
    if (seen.get(w.node.id) === key && state.workflows.hasVector(w.node.id)) return;
    seen.set(w.node.id, key);
    const queued = this.queue.find((q) => q.state === state && q.id === w.node.id);
    if (queued) {
      queued.texts = texts;
      return;
    }
    this.queue.push({ ref, state, id: w.node.id, texts });
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  /** Every workflow of a freshly loaded scope. */
  enqueueAll(ref: ScopeRef, state: ScopeLearning): void {
    for (const w of state.workflows.values()) this.enqueue(ref, state, w);
  }

  /**
   * Drops what is queued (shutdown): vectors are computed again at the next start, and a slow
   * background encoder must not hold a stop up.
   */
  stop(): void {
    this.queue.length = 0;
  }

  /** Resolves when everything queued so far has a vector (benchmarks and tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        const vectors = await this.vectorsOf(batch);
        let at = 0;
        for (const b of batch) {
          const vs = vectors.slice(at, at + b.texts.length).map((v) => unitVector(v));
          b.state.workflows.denseProfile = this.profile;
          // The last text of several is the goals' concatenation (workflowEmbeddingTexts): the centroid is the single goals'.
          b.state.workflows.setVectors(b.id, vs, vs.length > 1 ? vs.slice(0, -1) : vs);
          at += b.texts.length;
        }
        this.lastError = null;
      } catch (err) {
        this.lastError = (err as Error).message;
        this.log.warn(`learning: goal embeddings failed (${this.lastError}); lexical matching continues`);
      }
    }
  }

  /** The batch's texts' vectors, in order: from the cache where it has them, else from the encoder (and then cached). */
  private async vectorsOf(batch: { ref: ScopeRef; texts: string[] }[]): Promise<Float32Array[]> {
    const items = batch.flatMap((b) => b.texts.map((text) => ({ ref: b.ref, text })));
    const cache = this.cache;
    const keys = cache ? items.map((i) => vectorKey(cache.model, i.ref, i.text)) : [];
    let found = new Map<string, Float32Array>();
    if (cache) {
      try {
        found = await cache.store.get(keys);
      } catch (err) {
        this.log.warn(`learning: reading goal vectors from the vector cache failed (${(err as Error).message}); they are computed`);
      }
    }
    const missing = items.map((_, k) => k).filter((k) => !cache || !found.has(keys[k]!));
    this.counts.cache_hits += items.length - missing.length;
    const out: Float32Array[] = items.map((_, k) => (cache ? found.get(keys[k]!) : undefined) ?? new Float32Array(0));
    if (missing.length === 0) return out;
    // (the onnx encoder runs each text alone, so a goal's vector does not depend on its batch)
    const computed = await this.embedder.embed(
      missing.map((k) => items[k]!.text),
      { background: true },
    );
    this.counts.computed += missing.length;
    missing.forEach((k, j) => (out[k] = computed[j]!));
    if (cache) {
      const entries = missing.map((k, j) => ({ key: keys[k]!, tenant_id: items[k]!.ref.tenant_id, scope: items[k]!.ref.scope, model: cache.model, vector: computed[j]! }));
      cache.store.put(entries).catch((err) => this.log.warn(`learning: storing goal vectors in the vector cache failed: ${(err as Error).message}`));
    }
    return out;
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
