// The onnx encoder off the event loop: each model runs in worker threads (onnx-worker.ts), one
// for queries at the process's priority and one for background work (node and goal vectors) at
// a lower one, both started on first use and shared by every embedder of the same model in the
// process (recall and learning each create one).

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { defaultPooling } from './onnx';
import { EmbeddingError, type EmbedOptions, type Embedder, type EmbedderConfig, type EmbeddingErrorCode, type TokenEmbedding } from './types';
import type { WorkerReply, WorkerRequest } from './onnx-worker';

/** Nice value of the background thread (Linux; 0..19, higher yields more): request handling comes first. */
export const BACKGROUND_NICE = 10;

// Transpiled (bin/lore.mjs, npm test) the sources run as .mjs; under tsx as .ts, and a worker
// thread does not inherit tsx's loader on Node 20: it registers it first.
const EXT = path.extname(fileURLToPath(import.meta.url));
const WORKER_FILE = new URL(`./onnx-worker${EXT}`, import.meta.url);

function spawnWorker(workerData: unknown): Worker {
  if (EXT !== '.ts') return new Worker(WORKER_FILE, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_FILE.href)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

type Pending = { resolve: (r: WorkerReply) => void; reject: (e: Error) => void };

class EncoderThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private next = 1;

  constructor(
    private readonly config: EmbedderConfig,
    private readonly nice: number,
  ) {}

  private start(): Worker {
    const w = spawnWorker({ config: this.config, nice: this.nice });
    w.on('message', (reply: WorkerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) w.unref();
      p.resolve(reply);
    });
    const fail = (err: Error) => {
      if (this.worker === w) this.worker = null; // the next call starts a new thread
      for (const p of this.pending.values()) p.reject(new EmbeddingError('unavailable', `onnx encoder thread: ${err.message}`, { cause: err }));
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`exited (${code})`)));
    w.unref();
    return w;
  }

  call(op: WorkerRequest['op'], texts: string[]): Promise<WorkerReply> {
    const w = (this.worker ??= this.start());
    const id = this.next++;
    return new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.ref(); // a caller waits: keep the process alive until it is answered
      w.postMessage({ id, op, texts } satisfies WorkerRequest);
    });
  }

  async stop(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

const threads = new Map<string, { query: EncoderThread; background: EncoderThread; users: number }>();

function unwrap(reply: WorkerReply): WorkerReply {
  if ('error' in reply) throw new EmbeddingError(reply.error.code as EmbeddingErrorCode, reply.error.message);
  return reply;
}

export function createThreadedOnnxEmbedder(config: EmbedderConfig): Embedder {
  const model = config.model ?? '';
  const pooling = config.pooling ?? defaultPooling(model);
  const key = JSON.stringify([path.resolve(model), config.moduleDir ?? null, pooling, config.textPrefix ?? null, config.threads ?? 1, config.batchSize ?? 1]);
  let pair = threads.get(key);
  if (!pair) threads.set(key, (pair = { query: new EncoderThread(config, 0), background: new EncoderThread(config, BACKGROUND_NICE), users: 0 }));
  pair.users += 1;
  const shared = pair;
  const { query, background } = pair;
  let closed = false;
  const state: { dim: number | undefined } = { dim: undefined };
  const label = `onnx embeddings (${path.basename(model)})`;
  return {
    id: `onnx:${path.basename(model, '.onnx')}:${pooling}`,
    provider: 'onnx',
    get dim() {
      return state.dim;
    },
    async embed(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]> {
      if (texts.length === 0) return [];
      const reply = unwrap(await (opts?.background ? background : query).call('embed', texts));
      const vectors = (reply as { vectors: Float32Array[] }).vectors;
      if (vectors.length !== texts.length) throw new EmbeddingError('bad_response', `${label}: asked for ${texts.length} embeddings, got ${vectors.length}`);
      state.dim ??= vectors[0]?.length;
      return vectors;
    },
    async embedTokens(text: string): Promise<TokenEmbedding> {
      return (unwrap(await query.call('tokens', [text])) as { tokens: TokenEmbedding }).tokens;
    },
    async close() {
      // The threads are shared by every embedder of this model in the process: stopped with the last one.
      if (closed) return;
      closed = true;
      shared.users -= 1;
      if (shared.users > 0 || threads.get(key) !== shared) return;
      threads.delete(key);
      await Promise.all([query.stop(), background.stop()]);
    },
  };
}
