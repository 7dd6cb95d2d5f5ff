import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createEmbedder, EmbeddingError } from '../../src/retrieval/embedders/index';
import { defaultPooling, resolveOnnxModel } from '../../src/retrieval/embedders/onnx';
import { basicTokens, wordPieceTokenizer } from '../../src/retrieval/embedders/wordpiece';
import { fakeOnnxModel } from '../helpers/fake-onnx';

/**
 * The optional onnx sentence encoder (LORE_EMBEDDINGS=onnx): its WordPiece tokenizer (checked
 * against the Hugging Face `tokenizers` library on the benchmark texts when it was written; here
 * on a tiny vocabulary), model-file resolution, and a clear error when onnxruntime-node is absent.
 */

const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'fix', 'the', 'work', '##er', '.', 'cafe', 'ts', '東'];
const tokenizerJson = {
  normalizer: { type: 'BertNormalizer', lowercase: true, strip_accents: null },
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
};

describe('onnx embedder: WordPiece tokenizer', () => {
  it('lower-cases, strips accents, splits punctuation and CJK, and greedily matches word pieces', () => {
    assert.deepEqual(basicTokens('Fix the Worker.ts  Café 東京!'), ['fix', 'the', 'worker', '.', 'ts', 'cafe', '東', '京', '!']);
    const t = wordPieceTokenizer(tokenizerJson);
    assert.deepEqual(t.encode('Fix the Worker.ts Café'), [2, 4, 5, 6, 7, 8, 10, 9, 3]);
    assert.deepEqual(t.encode('workers 東'), [2, 1, 11, 3], 'a word with no full piece cover is [UNK]');
    assert.deepEqual(t.encode('fix the worker', 4), [2, 4, 5, 3], 'truncated to maxTokens with [CLS] and [SEP] kept');
    assert.equal(t.padId, 0);
    assert.deepEqual(
      [7, 1, 99].map((id) => t.piece(id)),
      ['##er', '[UNK]', '[UNK]'],
    );
  });

  it('refuses a tokenizer that is not WordPiece', () => {
    assert.throws(() => wordPieceTokenizer({ model: { type: 'BPE', vocab: {} } }), /WordPiece/);
  });
});

describe('onnx embedder: model files and the optional runtime', () => {
  it('finds the tokenizer beside the model (langchain4j jar layout or tokenizer.json) and picks pooling by model', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lore-onnx-'));
    writeFileSync(path.join(dir, 'all-minilm-l6-v2-q.onnx'), '');
    writeFileSync(path.join(dir, 'all-minilm-l6-v2-q-tokenizer.json'), '{}');
    assert.deepEqual(await resolveOnnxModel(dir), { onnx: path.join(dir, 'all-minilm-l6-v2-q.onnx'), tokenizer: path.join(dir, 'all-minilm-l6-v2-q-tokenizer.json') });
    const dir2 = mkdtempSync(path.join(tmpdir(), 'lore-onnx-'));
    writeFileSync(path.join(dir2, 'model.onnx'), '');
    writeFileSync(path.join(dir2, 'tokenizer.json'), '{}');
    assert.equal((await resolveOnnxModel(path.join(dir2, 'model.onnx'))).tokenizer, path.join(dir2, 'tokenizer.json'));
    assert.equal(defaultPooling('/m/bge-small-en-v1.5-q.onnx'), 'cls');
    assert.equal(defaultPooling('/m/all-minilm-l6-v2-q.onnx'), 'mean');
  });

  it('says which package is missing instead of failing obscurely', async () => {
    const e = (await createEmbedder({ provider: 'onnx', model: '/nonexistent/model.onnx', moduleDir: '/nonexistent/lore-no-ort/node_modules' }))!;
    assert.equal(e.provider, 'onnx');
    await assert.rejects(e.embed(['hello']), (err: unknown) => err instanceof EmbeddingError && err.code === 'unavailable' && /onnxruntime-node/.test(err.message));
  });

  it('runs each text through the model alone by default (an int8 model output depends on its batch)', async () => {
    const fake = fakeOnnxModel(tokenizerJson);
    const e = (await createEmbedder({ provider: 'onnx', model: fake.model, moduleDir: fake.moduleDir }))!;
    const vectors = await e.embed(['fix the worker', 'the cafe', 'fix']);
    assert.equal(vectors.length, 3);
    assert.deepEqual(fake.runs(), [1, 1, 1], 'one model run per text');
  });

  it("gives one text's sentence vector and its word pieces' contextual vectors from one model run", async () => {
    const fake = fakeOnnxModel(tokenizerJson);
    const e = (await createEmbedder({ provider: 'onnx', model: fake.model, moduleDir: fake.moduleDir }))!;
    const t = await e.embedTokens!('Fix the worker');
    assert.deepEqual(
      t.tokens.map((x) => x.piece),
      ['fix', 'the', 'work', '##er'],
      '[CLS] and [SEP] left out',
    );
    assert.deepEqual(
      t.tokens.map((x) => [...x.vector]),
      [
        [1, 1],
        [1, 1],
        [1, 1],
        [1, 1],
      ],
      'the hidden state as the model gave it',
    );
    assert.deepEqual([...t.vector], [...(await e.embed(['Fix the worker']))[0]!], 'the same sentence vector as embed');
    assert.deepEqual(fake.runs(), [1, 1]);
  });
});
