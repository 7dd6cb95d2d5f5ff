// The onnx encoder's worker thread (onnx-thread.ts starts it): onnxruntime-node runs a model
// synchronously on the thread that calls it, so Lore runs it here, off the event loop that
// serves requests. A background thread lowers its own scheduling priority first (Linux: the nice
// value is per thread), so embedding never takes CPU the request path wants.

import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createOnnxEmbedder } from './onnx';
import { EmbeddingError, type EmbedderConfig } from './types';

export interface WorkerRequest {
  id: number;
  op: 'embed' | 'tokens';
  texts: string[];
}
export type WorkerReply =
  | { id: number; vectors: Float32Array[] }
  | { id: number; tokens: { vector: Float32Array; tokens: { piece: string; vector: Float32Array }[] } }
  | { id: number; error: { code: string; message: string } };

const { config, nice } = workerData as { config: EmbedderConfig; nice: number };
if (nice > 0 && process.platform === 'linux') {
  try {
    setPriority(nice); // pid 0: on Linux, this thread only
  } catch {
    // not allowed here: run at the process's priority
  }
}
const embedder = createOnnxEmbedder(config);
const port = parentPort!;

port.on('message', (req: WorkerRequest) => {
  void (async () => {
    try {
      if (req.op === 'embed') {
        const vectors = await embedder.embed(req.texts);
        port.postMessage({ id: req.id, vectors } satisfies WorkerReply, vectors.map((v) => v.buffer as ArrayBuffer));
      } else {
        const tokens = await embedder.embedTokens!(req.texts[0] ?? '');
        port.postMessage({ id: req.id, tokens } satisfies WorkerReply);
      }
    } catch (err) {
      const code = err instanceof EmbeddingError ? err.code : 'unavailable';
      port.postMessage({ id: req.id, error: { code, message: (err as Error).message } } satisfies WorkerReply);
    }
  })();
});
