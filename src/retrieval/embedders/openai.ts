// OpenAI-compatible embeddings: POST {baseUrl}/embeddings {model, input: string[]} -> data[].embedding.

import { embedInBatches } from './batch';
import { postJson, toVector, trimSlash } from './http';
import { EmbeddingError, type Embedder, type EmbedderConfig } from './types';

export function createOpenAIEmbedder(config: EmbedderConfig): Embedder {
  const base = trimSlash(config.baseUrl ?? 'https://api.openai.com/v1');
  const model = config.model ?? 'text-embedding-3-small';
  const label = `openai embeddings (${model})`;
  const url = `${base}/embeddings`;
  const headers: Record<string, string> = { ...(config.headers ?? {}) };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const opts = { timeoutMs: config.timeoutMs ?? 30_000, retries: config.retries ?? 2, headers, label };
  const batchSize = Math.max(1, config.batchSize ?? 96);
  const state: { dim: number | undefined } = { dim: undefined };

  const call = async (batch: string[]): Promise<Float32Array[]> => {
    const body: Record<string, unknown> = { model, input: batch };
    if (config.dimensions) body.dimensions = config.dimensions;
    const res = (await postJson(url, body, opts)) as { data?: unknown };
    if (!res || !Array.isArray(res.data)) throw new EmbeddingError('bad_response', `${label}: response has no data[]`);
    const rows = res.data as Array<{ index?: unknown; embedding?: unknown }>;
    // Providers may return rows out of order; `index` is authoritative when present.
    const out: Float32Array[] = new Array(rows.length);
    rows.forEach((row, i) => {
      const at = typeof row?.index === 'number' ? row.index : i;
      if (at < 0 || at >= rows.length) throw new EmbeddingError('bad_response', `${label}: bad index ${at}`);
      out[at] = toVector(row?.embedding, label, at);
    });
    return out;
  };

  return {
    id: `openai:${base}:${model}${config.dimensions ? `:${config.dimensions}` : ''}`,
    provider: 'openai',
    get dim() {
      return state.dim;
    },
    embed: (texts) => embedInBatches(texts, batchSize, label, call, state),
  };
}
