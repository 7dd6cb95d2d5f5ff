// Ollama embeddings: POST {baseUrl}/api/embed {model, input: string[]} -> {embeddings: number[][]}.

import { embedInBatches } from './batch';
import { postJson, toVector, trimSlash } from './http';
import { EmbeddingError, type Embedder, type EmbedderConfig } from './types';

export function createOllamaEmbedder(config: EmbedderConfig): Embedder {
  const base = trimSlash(config.baseUrl ?? 'http://127.0.0.1:11434');
  const model = config.model ?? 'nomic-embed-text';
  const label = `ollama embeddings (${model})`;
  const url = `${base}/api/embed`;
  const opts = { timeoutMs: config.timeoutMs ?? 30_000, retries: config.retries ?? 2, headers: config.headers, label };
  const batchSize = Math.max(1, config.batchSize ?? 32);
  const state: { dim: number | undefined } = { dim: undefined };

  const call = async (batch: string[]): Promise<Float32Array[]> => {
    const res = (await postJson(url, { model, input: batch }, opts)) as { embeddings?: unknown };
    if (!res || !Array.isArray(res.embeddings)) throw new EmbeddingError('bad_response', `${label}: response has no embeddings[]`);
    return (res.embeddings as unknown[]).map((e, i) => toVector(e, label, i));
  };

  return {
    id: `ollama:${base}:${model}`,
    provider: 'ollama',
    get dim() {
      return state.dim;
    },
    embed: (texts) => embedInBatches(texts, batchSize, label, call, state),
  };
}
