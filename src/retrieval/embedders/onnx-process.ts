// The onnx encoder as Lore runs it: queries (recall, task start) in the API process, where they
// are waited for (a few milliseconds each); background work (node and goal vectors) in a child
// process at a lower priority (onnx-child.ts), started on first use and shared by every embedder
// of the same model in the process (recall and learning each hold one). onnxruntime-node runs a
// model synchronously on the calling thread, so background work in-process would stall requests;
// a worker thread would not (but ending one mid-run aborts the whole process, measured with
// onnxruntime-node 1.30), and a child also takes a native fault alone.

import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOnnxEmbedder, defaultPooling } from './onnx';
import type { ChildInit, ChildReply, ChildRequest } from './onnx-child';
import { EmbeddingError, type EmbedOptions, type Embedder, type EmbedderConfig, type EmbeddingErrorCode } from './types';

/** Nice value of the background process (0..19, higher yields more): request handling comes first. */
export const BACKGROUND_NICE = 10;

// The child is `lore encoder-child` (src/cli/main.ts): bin/lore.mjs loads the sources transpiled, as
// it does for the API and the worker (import.meta.url names this source file either way).
const LORE_BIN = fileURLToPath(new URL('../../../bin/lore.mjs', import.meta.url));

type Pending = { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void };

class EncoderProcess {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private next = 1;

  constructor(private readonly init: ChildInit) {}

  private start(): ChildProcess {
    const c = fork(LORE_BIN, ['encoder-child'], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    c.on('message', (reply: ChildReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.idle(c);
      if ('error' in reply) p.reject(new EmbeddingError(reply.error.code as EmbeddingErrorCode, reply.error.message));
      else p.resolve(reply.vectors);
    });
    const fail = (why: string) => {
      if (this.child === c) this.child = null; // the next call starts a new process
      for (const p of this.pending.values()) p.reject(new EmbeddingError('unavailable', `onnx encoder process ${why}`, { retryable: true }));
      this.pending.clear();
    };
    c.on('error', (err) => fail(`failed: ${err.message}`));
    c.on('exit', (code, signal) => fail(`exited (${signal ?? code})`));
    c.send(this.init);
    this.idle(c);
    return c;
  }

  /** Nothing asked: the child and its channel do not keep the API process alive. */
  private idle(c: ChildProcess): void {
    c.unref();
    (c.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    const c = (this.child ??= this.start());
    const id = this.next++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      c.ref(); // a caller waits: keep the process alive until it is answered
      (c.channel as { ref?: () => void } | undefined)?.ref?.();
      c.send({ id, texts } satisfies ChildRequest);
    });
  }

  stop(): void {
    const c = this.child;
    this.child = null;
    if (c && c.exitCode === null) c.kill();
  }
}

const shared = new Map<string, { proc: EncoderProcess; users: number }>();

export function createOnnxProcessEmbedder(config: EmbedderConfig): Embedder {
  const model = config.model ?? '';
  const pooling = config.pooling ?? defaultPooling(model);
  const inProcess = createOnnxEmbedder({ ...config, pooling });
  const key = JSON.stringify([path.resolve(model), config.moduleDir ?? null, pooling, config.textPrefix ?? null, config.threads ?? 1, config.batchSize ?? 1]);
  let entry = shared.get(key);
  if (!entry) shared.set(key, (entry = { proc: new EncoderProcess({ config: { ...config, pooling, inline: true }, nice: BACKGROUND_NICE }), users: 0 }));
  entry.users += 1;
  const mine = entry;
  let closed = false;
  const label = `onnx embeddings (${path.basename(model)})`;
  return {
    id: inProcess.id,
    provider: 'onnx',
    get dim() {
      return inProcess.dim;
    },
    async embed(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]> {
      if (!opts?.background || texts.length === 0) return inProcess.embed(texts);
      const vectors = await mine.proc.embed(texts);
      if (vectors.length !== texts.length) throw new EmbeddingError('bad_response', `${label}: asked for ${texts.length} embeddings, got ${vectors.length}`);
      return vectors;
    },
    embedTokens: (text) => inProcess.embedTokens!(text),
    async close() {
      // The child is shared by every embedder of this model in the process: stopped with the last one.
      if (closed) return;
      closed = true;
      mine.users -= 1;
      if (mine.users > 0 || shared.get(key) !== mine) return;
      shared.delete(key);
      mine.proc.stop();
    },
  };
}
