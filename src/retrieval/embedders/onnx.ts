// Offline sentence encoder: a BERT-family sentence-embedding model in ONNX format (e.g.
// bge-small-en-v1.5, all-MiniLM-L6-v2, e5-small-v2) run in process by the optional npm package
// onnxruntime-node, with its Hugging Face tokenizer.json (WordPiece, wordpiece.ts). The model is
// a local file (config.model: the .onnx file, or a folder holding one); nothing is fetched.
// onnxruntime-node is imported lazily, from config.moduleDir when given, so Lore runs without it.

import { readFile, readdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { embedInBatches } from './batch';
import { EmbeddingError, type Embedder, type EmbedderConfig, type TokenEmbedding } from './types';
import { wordPieceTokenizer, type WordPieceTokenizer } from './wordpiece';

const PKG_ORT = 'onnxruntime-node';
const MAX_TOKENS = 128;

export type OnnxPooling = 'mean' | 'cls';

interface OrtTensor {
  readonly data: ArrayLike<number | bigint>;
  readonly dims: readonly number[];
}
interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensor>>;
}
interface Ort {
  InferenceSession: { create(path: string, options?: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: string, data: BigInt64Array, dims: number[]) => unknown;
}

interface Loaded {
  ort: Ort;
  session: OrtSession;
  tokenizer: WordPieceTokenizer;
}

async function importFrom(name: string, dir: string | undefined): Promise<unknown> {
  if (!dir) return import(name);
  const req = createRequire(path.join(path.resolve(dir), '_resolve_.js'));
  return import(pathToFileURL(req.resolve(name)).href);
}

/** The .onnx file and its tokenizer.json for a configured model path (a file, or a folder with one .onnx). */
export async function resolveOnnxModel(model: string): Promise<{ onnx: string; tokenizer: string }> {
  const p = path.resolve(model);
  const isDir = (await stat(p)).isDirectory();
  const dir = isDir ? p : path.dirname(p);
  const files = await readdir(dir);
  let onnx = p;
  if (isDir) {
    const found = files.filter((f) => f.endsWith('.onnx'));
    if (found.length !== 1) throw new Error(`${dir}: expected one .onnx file, found ${found.length}`);
    onnx = path.join(dir, found[0]!);
  }
  const stem = path.basename(onnx, '.onnx');
  const tok = [`${stem}-tokenizer.json`, 'tokenizer.json'].find((f) => files.includes(f)) ?? files.find((f) => f.endsWith('tokenizer.json'));
  if (!tok) throw new Error(`${dir}: no tokenizer.json beside ${path.basename(onnx)}`);
  return { onnx, tokenizer: path.join(dir, tok) };
}

/** bge models are trained with [CLS] pooling; MiniLM and e5 with mean pooling. */
export function defaultPooling(model: string): OnnxPooling {
  return /bge/i.test(path.basename(model)) || /bge/i.test(path.basename(path.dirname(path.resolve(model)))) ? 'cls' : 'mean';
}

/** Loaded models by path, shared by every embedder instance of the process (recall and learning each create one). */
const sharedModels = new Map<string, Promise<Loaded>>();

async function load(config: EmbedderConfig): Promise<Loaded> {
  if (!config.model) throw new EmbeddingError('config', 'onnx embeddings need LORE_EMBEDDINGS_MODEL: the path of a sentence-embedding .onnx file (or its folder)');
  let ort: Ort;
  try {
    const mod = (await importFrom(PKG_ORT, config.moduleDir)) as Ort & { default?: Ort };
    ort = mod.InferenceSession ? mod : mod.default!;
  } catch (cause) {
    throw new EmbeddingError('unavailable', `onnx embeddings need the optional package ${PKG_ORT} (npm install it, or set LORE_EMBEDDINGS=none)`, { cause });
  }
  try {
    const files = await resolveOnnxModel(config.model);
    const tokenizer = wordPieceTokenizer(JSON.parse(await readFile(files.tokenizer, 'utf8')));
    const session = await ort.InferenceSession.create(files.onnx, { intraOpNumThreads: config.threads ?? 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
    return { ort, session, tokenizer };
  } catch (cause) {
    if (cause instanceof EmbeddingError) throw cause;
    throw new EmbeddingError('unavailable', `onnx embeddings: cannot load ${config.model}: ${(cause as Error).message}`, { cause });
  }
}

/** Token ids padded to the longest, through the model: the last hidden state, [n, seq, dim]. */
async function hidden(m: Loaded, texts: string[], prefix: string): Promise<{ encoded: number[][]; data: Float32Array; seq: number; dim: number }> {
  const encoded = texts.map((t) => m.tokenizer.encode(prefix + t, MAX_TOKENS));
  const len = Math.max(...encoded.map((e) => e.length));
  const n = texts.length;
  const ids = new BigInt64Array(n * len).fill(BigInt(m.tokenizer.padId));
  const mask = new BigInt64Array(n * len);
  encoded.forEach((e, i) => e.forEach((id, j) => ((ids[i * len + j] = BigInt(id)), (mask[i * len + j] = 1n))));
  const feeds: Record<string, unknown> = {};
  for (const name of m.session.inputNames) {
    if (name === 'input_ids') feeds[name] = new m.ort.Tensor('int64', ids, [n, len]);
    else if (name === 'attention_mask') feeds[name] = new m.ort.Tensor('int64', mask, [n, len]);
    else if (name === 'token_type_ids') feeds[name] = new m.ort.Tensor('int64', new BigInt64Array(n * len), [n, len]);
  }
  const outputs = await m.session.run(feeds);
  const out = outputs.last_hidden_state ?? outputs[m.session.outputNames[0]!]!;
  const [, seq, dim] = out.dims as [number, number, number];
  return { encoded, data: out.data as Float32Array, seq, dim };
}

/** Row i of a hidden state: pooled ([CLS] or the mean over its tokens) and L2-normalised. */
function pooled(h: Awaited<ReturnType<typeof hidden>>, i: number, pooling: OnnxPooling): Float32Array {
  const { data, seq, dim } = h;
  const v = new Float32Array(dim);
  if (pooling === 'cls') v.set(data.subarray(i * seq * dim, i * seq * dim + dim));
  else {
    const count = h.encoded[i]!.length;
    for (let j = 0; j < count; j += 1) {
      const base = (i * seq + j) * dim;
      for (let k = 0; k < dim; k += 1) v[k]! += data[base + k]!;
    }
    for (let k = 0; k < dim; k += 1) v[k]! /= count;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let k = 0; k < dim; k += 1) v[k]! *= inv;
  return v;
}

/** One batch through the model: one pooled, L2-normalised vector per text. */
async function run(m: Loaded, texts: string[], pooling: OnnxPooling, prefix: string): Promise<Float32Array[]> {
  const h = await hidden(m, texts, prefix);
  return texts.map((_, i) => pooled(h, i, pooling));
}

/** One text alone through the model: its pooled vector and each word piece's contextual vector. */
async function runTokens(m: Loaded, text: string, pooling: OnnxPooling, prefix: string): Promise<TokenEmbedding> {
  const h = await hidden(m, [text], prefix);
  const ids = h.encoded[0]!;
  const tokens: TokenEmbedding['tokens'] = [];
  // [CLS] first and [SEP] last are not words of the text (nor is an e5 prefix, but it is the same on every side).
  for (let j = 1; j < ids.length - 1; j += 1) tokens.push({ piece: m.tokenizer.piece(ids[j]!), vector: h.data.slice(j * h.dim, (j + 1) * h.dim) });
  return { vector: pooled(h, 0, pooling), tokens };
}

export function createOnnxEmbedder(config: EmbedderConfig): Embedder {
  // One text per model run unless asked otherwise: an int8 model quantizes its activations over the
  // whole batch, so a sentence batched with others comes out slightly different (cosine ≈ 0.993 for
  // all-MiniLM-L6-v2 int8), enough to move a dense lead by the width of its margin. Alone, a text's
  // vector is the same however it was queued, and the same as a query of that text.
  const batchSize = Math.max(1, config.batchSize ?? 1);
  const model = config.model ?? '';
  const pooling = config.pooling ?? defaultPooling(model);
  // e5 models expect a "query: " prefix on both sides of a symmetric comparison.
  const prefix = config.textPrefix ?? (/e5/i.test(path.basename(model)) ? 'query: ' : '');
  const state: { dim: number | undefined } = { dim: undefined };
  const key = path.resolve(model);
  const label = `onnx embeddings (${path.basename(model)})`;
  const loaded = async (): Promise<Loaded> => {
    let p = sharedModels.get(key);
    if (!p) sharedModels.set(key, (p = load(config)));
    try {
      return await p;
    } catch (e) {
      sharedModels.delete(key); // a later call retries (e.g. after the package is installed)
      throw e;
    }
  };
  const call = async (batch: string[]): Promise<Float32Array[]> => run(await loaded(), batch, pooling, prefix);
  return {
    id: `onnx:${path.basename(model, '.onnx')}:${pooling}`,
    provider: 'onnx',
    get dim() {
      return state.dim;
    },
    embed: (texts) => embedInBatches(texts, batchSize, label, call, state),
    embedTokens: async (text) => runTokens(await loaded(), text, pooling, prefix),
  };
}

/** True when onnxruntime-node can be imported (does not load a model). */
export async function onnxEmbedderAvailable(moduleDir?: string): Promise<boolean> {
  try {
    await importFrom(PKG_ORT, moduleDir);
    return true;
  } catch {
    return false;
  }
}
