// createEmbedder(config): the embedding provider named by config.provider, or null for "none".

import { createLocalEmbedder, localEmbedderAvailable } from './local';
import { createOnnxEmbedder, onnxEmbedderAvailable } from './onnx';
import { createOnnxProcessEmbedder } from './onnx-process';
import { createOllamaEmbedder } from './ollama';
import { createOpenAIEmbedder } from './openai';
import { EmbeddingError, type EmbedOptions, type Embedder, type EmbedderConfig, type EmbeddingProvider } from './types';

export { EmbeddingError, localEmbedderAvailable, onnxEmbedderAvailable };
export type { EmbedOptions, Embedder, EmbedderConfig, EmbeddingProvider };

export async function createEmbedder(config: EmbedderConfig): Promise<Embedder | null> {
  switch (config.provider) {
    case 'none':
      return null;
    case 'openai':
      return createOpenAIEmbedder(config);
    case 'ollama':
      return createOllamaEmbedder(config);
    case 'local':
      return createLocalEmbedder(config);
    case 'onnx':
      return config.inline ? createOnnxEmbedder(config) : createOnnxProcessEmbedder(config);
    default:
      throw new EmbeddingError('config', `unknown embedding provider '${String((config as { provider?: unknown }).provider)}' (none | openai | ollama | local | onnx)`);
  }
}

/** Settings as src/config.ts reads them (config.embeddings); the only reader of the environment is config.ts. */
export interface EmbeddingSettings {
  provider: EmbeddingProvider;
  url: string | null;
  model: string | null;
  apiKey: string | null;
  localModuleDir?: string | null;
}

export function embedderConfigFrom(settings: EmbeddingSettings): EmbedderConfig {
  const cfg: EmbedderConfig = { provider: settings.provider };
  if (settings.url) cfg.baseUrl = settings.url;
  if (settings.model) cfg.model = settings.model;
  if (settings.apiKey) cfg.apiKey = settings.apiKey;
  if (settings.localModuleDir) cfg.moduleDir = settings.localModuleDir;
  return cfg;
}
