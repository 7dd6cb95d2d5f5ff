// Embedding providers: turn texts into vectors for the VectorIndex.

export type EmbeddingProvider = 'none' | 'openai' | 'ollama' | 'local' | 'onnx';

export interface Embedder {
  /** Stable identity, e.g. "openai:text-embedding-3-small"; vectors of different ids do not mix. */
  readonly id: string;
  readonly provider: Exclude<EmbeddingProvider, 'none'>;
  /** Dimensions, once known (after the first call for remote providers). */
  readonly dim: number | undefined;
  /** One vector per input text, in input order. */
  embed(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]>;
  /**
   * onnx only: one text's sentence vector (as embed gives it) and, from the same model run, the
   * model's contextual vector of each of its word pieces ([CLS] and [SEP] left out), unnormalised.
   */
  embedTokens?(text: string): Promise<TokenEmbedding>;
  close?(): Promise<void>;
}

export interface EmbedOptions {
  /**
   * Work nobody is waiting for (node and goal vectors): the onnx encoder runs it in a child
   * process of lower priority (onnx-process.ts). Other providers treat both alike.
   */
  background?: boolean;
}

export interface TokenEmbedding {
  vector: Float32Array;
  tokens: { piece: string; vector: Float32Array }[];
}

export interface EmbedderConfig {
  provider: EmbeddingProvider;
  /** openai: default https://api.openai.com/v1; ollama: default http://127.0.0.1:11434. */
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  /** Per-request timeout (default 30000 ms). */
  timeoutMs?: number;
  /** Texts per request (default openai 96, ollama 32, local 64). */
  batchSize?: number;
  /** Retries on 408/409/429/5xx and network errors (default 2). */
  retries?: number;
  /** openai only: requested output dimensions (text-embedding-3 models). */
  dimensions?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** local and onnx: a node_modules folder holding the optional encoder packages. */
  moduleDir?: string;
  /** onnx only: "mean" or "cls" pooling (default: cls for bge models, mean otherwise). */
  pooling?: 'mean' | 'cls';
  /** onnx only: prepended to every text (default "query: " for e5 models, none otherwise). */
  textPrefix?: string;
  /** onnx only: intra-op threads (default 1). */
  threads?: number;
  /** onnx only: run background work in this process too (no child process: benchmarks, and the child itself). */
  inline?: boolean;
}

export type EmbeddingErrorCode = 'timeout' | 'network' | 'http' | 'bad_response' | 'config' | 'unavailable';

export class EmbeddingError extends Error {
  readonly code: EmbeddingErrorCode;
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(code: EmbeddingErrorCode, message: string, options: { status?: number; retryable?: boolean; cause?: unknown } = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'EmbeddingError';
    this.code = code;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}
