// Runs an embedding call over texts in batches, checking dimensions agree.

import { EmbeddingError } from './types';

export async function embedInBatches(
  texts: string[],
  batchSize: number,
  label: string,
  call: (batch: string[]) => Promise<Float32Array[]>,
  state: { dim: number | undefined },
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += batchSize) {
    const batch = texts.slice(i, i + batchSize);
    const vecs = await call(batch);
    if (vecs.length !== batch.length) {
      throw new EmbeddingError('bad_response', `${label}: asked for ${batch.length} embeddings, got ${vecs.length}`);
    }
    for (const v of vecs) {
      if (state.dim === undefined) state.dim = v.length;
      else if (v.length !== state.dim) throw new EmbeddingError('bad_response', `${label}: dimension changed from ${state.dim} to ${v.length}`);
      out.push(v);
    }
  }
  return out;
}
