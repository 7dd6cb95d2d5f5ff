// The onnx encoder's background process (onnx-process.ts forks it): node and goal vectors are
// computed here, at a lower scheduling priority than the API process, so embedding only takes
// CPU that requests do not want, and a fault in the native runtime cannot take the API down.

import { setPriority } from 'node:os';
import { createOnnxEmbedder } from './onnx';
import { EmbeddingError, type EmbedderConfig } from './types';

export interface ChildRequest {
  id: number;
  texts: string[];
}
export type ChildReply = { id: number; vectors: Float32Array[] } | { id: number; error: { code: string; message: string } };
export interface ChildInit {
  config: EmbedderConfig;
  nice: number;
}

const send = (m: ChildReply) => process.send!(m);
let embedder: ReturnType<typeof createOnnxEmbedder> | null = null;

process.on('message', (m: ChildInit | ChildRequest) => {
  if ('config' in m) {
    try {
      if (m.nice > 0) setPriority(m.nice);
    } catch {
      // not allowed here: run at the parent's priority
    }
    embedder = createOnnxEmbedder({ ...m.config, inline: true });
    return;
  }
  void (async () => {
    try {
      if (!embedder) throw new EmbeddingError('unavailable', 'onnx encoder process: not initialised');
      send({ id: m.id, vectors: await embedder.embed(m.texts) });
    } catch (err) {
      send({ id: m.id, error: { code: err instanceof EmbeddingError ? err.code : 'unavailable', message: (err as Error).message } });
    }
  })();
});
// Dies with the API process (its IPC channel closes when the parent exits, however it exits).
process.on('disconnect', () => process.exit(0));
