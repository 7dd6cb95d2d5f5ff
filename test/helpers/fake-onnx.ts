import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A stand-in for the optional onnxruntime-node package and a model folder, for the onnx embedder
 * without the real runtime: every model run records its batch size (runs()) and answers one
 * hidden state of ones per token. Pass `moduleDir` and `model` to createEmbedder. The runs are
 * appended to a file: the encoder runs the model in worker threads (onnx-thread.ts).
 */
export function fakeOnnxModel(tokenizer: unknown): { moduleDir: string; model: string; runs: () => number[] } {
  const dir = mkdtempSync(path.join(tmpdir(), 'lore-onnx-'));
  const pkg = path.join(dir, 'node_modules', 'onnxruntime-node');
  mkdirSync(pkg, { recursive: true });
  const log = path.join(dir, 'runs.log');
  writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'onnxruntime-node', main: 'index.js' }));
  writeFileSync(
    path.join(pkg, 'index.js'),
    `const fs = require('node:fs');
class Tensor { constructor(type, data, dims) { this.type = type; this.data = data; this.dims = dims; } }
const InferenceSession = { async create() { return {
  inputNames: ['input_ids', 'attention_mask'], outputNames: ['last_hidden_state'],
  async run(feeds) { const [n, len] = feeds.input_ids.dims; fs.appendFileSync(${JSON.stringify(log)}, n + '\\n');
    return { last_hidden_state: { dims: [n, len, 2], data: new Float32Array(n * len * 2).fill(1) } }; } }; } };
module.exports = { InferenceSession, Tensor };
`,
  );
  writeFileSync(path.join(dir, 'model.onnx'), '');
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  return {
    moduleDir: path.join(dir, 'node_modules'),
    model: path.join(dir, 'model.onnx'),
    runs: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number) : []),
  };
}

/** A minimal WordPiece tokenizer.json for the fake model. */
export const TINY_WORDPIECE = {
  normalizer: { type: 'BertNormalizer', lowercase: true, strip_accents: null },
  model: {
    type: 'WordPiece',
    unk_token: '[UNK]',
    continuing_subword_prefix: '##',
    max_input_chars_per_word: 100,
    vocab: Object.fromEntries(['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'first', 'second', 'a', 'b'].map((t, i) => [t, i])),
  },
};
