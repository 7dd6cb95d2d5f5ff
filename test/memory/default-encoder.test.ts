import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findInstalledModel, catalogModel, DEFAULT_ENCODER } from '../../src/retrieval/embedders/catalog';
import { onnxEmbedderAvailable } from '../../src/retrieval/embedders/onnx';
import { ONNX_RUNTIME_MISSING } from '../../src/retrieval/embedders/resolve';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';

/**
 * The product's default (LORE_EMBEDDINGS unset): the onnx encoder with the catalog's default
 * model, as `npm ci` and `lore models install` (or the first `lore start`) leave them. Other test
 * files pin LORE_EMBEDDINGS=none (test/helpers/app.ts); `env: { LORE_EMBEDDINGS: '' }` is unset.
 * CI installs the model in .ci/run; elsewhere the real-model tests skip when it is missing,
 * unless LORE_REQUIRE_TOOLS=1.
 */

const modelsDir = join(homedir(), '.cache', 'lore', 'models');
const installed = findInstalledModel(modelsDir, catalogModel(DEFAULT_ENCODER)!) !== null;
const runtime = await onnxEmbedderAvailable();
const missing = !runtime ? 'onnxruntime-node is not installed (npm ci)' : !installed ? `${DEFAULT_ENCODER} is not installed (lore models install)` : null;
if (missing && process.env.LORE_REQUIRE_TOOLS === '1') throw new Error(`the default encoder cannot run here: ${missing}`);

describe('the default encoder (LORE_EMBEDDINGS unset)', { skip: missing ?? false }, () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ env: { LORE_EMBEDDINGS: '' } });
  });
  after(async () => api?.close());

  it('is onnx with the default model, and /health says so', async () => {
    const h = await api.get('/health');
    assert.equal(h.status, 200);
    assert.equal(h.body.embeddings.provider, 'onnx');
    assert.equal(h.body.embeddings.status, 'on');
    assert.equal(h.body.embeddings.model, DEFAULT_ENCODER);
    assert.equal(api.modules.learning.services.similarity().dense, true, 'learning matches tasks with the same encoder');
  });

  it('recalls a write at once, then finds it by meaning through its vector', async () => {
    const id = { tenant_id: 'enc', scope: uniqueName('enc') };
    const w = await api.post('/v1/memory/write', { ...id, input_text: 'The heron nests near the estuary every spring.' });
    assert.equal(w.status, 200);
    const nodeId = w.body.nodes[0].id as string;
    await api.post('/v1/memory/write', { ...id, input_text: 'Quarterly invoices are exported as CSV for the accountant.' });
    const first = await api.post('/v1/memory/recall_text', { ...id, query_text: 'heron estuary' });
    assert.equal(first.body.results[0].id, nodeId, 'lexically recallable whether or not its vector exists yet');
    const index = api.modules.memory.services.index;
    await pollFor('the vector of the write', async () => index.hasVector(nodeId), 60_000, 100);
    // No word in common with the node: only the sentence encoder can find it.
    const r = await api.post('/v1/memory/recall_text', { ...id, query_text: 'where do wading birds breed by the river mouth?' });
    assert.equal(r.body.query.strategy, 'hybrid_rrf');
    const hit = r.body.results.find((x: { id: string }) => x.id === nodeId);
    assert.ok(hit, JSON.stringify(r.body.results));
    assert.equal(hit.score_breakdown.bm25, null, 'found by its vector, not its words');
    assert.equal(hit.score_breakdown.vector.rank, 1);
  });

  it('after a restart, vectors missing at start are computed in the background', async () => {
    const id = { tenant_id: 'enc', scope: uniqueName('enc-restart') };
    const w = await api.post('/v1/memory/write', { ...id, input_text: 'The lighthouse keeper logs every passing ship.' });
    const nodeId = w.body.nodes[0].id as string;
    const again = await startTestApi({ env: { LORE_EMBEDDINGS: '', MONGODB_DB: api.config.mongo.database } });
    try {
      // Recallable by its words from the first request of the new process, whatever the queue holds.
      const r0 = await again.post('/v1/memory/recall_text', { ...id, query_text: 'lighthouse keeper' });
      assert.equal(r0.body.results[0].id, nodeId);
      await pollFor('the vector after the restart', async () => again.modules.memory.services.index.hasVector(nodeId), 60_000, 100);
      const r = await again.post('/v1/memory/recall_text', { ...id, query_text: 'someone who records the vessels sailing by the coast' });
      assert.equal(r.body.query.strategy, 'hybrid_rrf');
      assert.equal(r.body.results[0].id, nodeId);
    } finally {
      // Its own database is the first API's: closing it here would drop that one.
      await again.stopWorker();
      await again.app.close();
      for (const m of Object.values(again.modules).reverse()) await (m as { stop?: () => Promise<void> }).stop?.();
      await again.engine.close();
      await again.db.close();
    }
  });
});

describe('the default encoder where it cannot run: Lore stays lexical and says why', () => {
  it('without onnxruntime-node', async () => {
    const api = await startTestApi({ env: { LORE_EMBEDDINGS: '', LORE_EMBEDDINGS_LOCAL_DIR: '/nonexistent/lore-no-ort/node_modules' } });
    try {
      const h = await api.get('/health');
      assert.deepEqual(
        { provider: h.body.embeddings.provider, status: h.body.embeddings.status, detail: h.body.embeddings.detail },
        { provider: 'onnx', status: 'unavailable', detail: ONNX_RUNTIME_MISSING },
      );
      const id = { tenant_id: 'enc', scope: uniqueName('noort') };
      const w = await api.post('/v1/memory/write', { ...id, input_text: 'The kettle whistles at noon.' });
      assert.equal(w.status, 200);
      const r = await api.post('/v1/memory/recall_text', { ...id, query_text: 'kettle' });
      assert.equal(r.body.query.strategy, 'bm25');
      assert.equal(r.body.results[0].id, w.body.nodes[0].id);
      assert.equal(api.modules.learning.services.similarity().dense, false);
    } finally {
      await api.close();
    }
  });

  it('without the model installed (and no first-start download in-process)', { skip: runtime ? false : 'onnxruntime-node is not installed' }, async () => {
    const empty = mkdtempSync(join(tmpdir(), 'lore-models-empty-'));
    const api = await startTestApi({ env: { LORE_EMBEDDINGS: '', LORE_MODELS_DIR: empty } });
    try {
      const h = await api.get('/health');
      assert.equal(h.body.embeddings.status, 'unavailable');
      assert.match(h.body.embeddings.detail, /lore models install all-minilm-l6-v2-q/);
      const id = { tenant_id: 'enc', scope: uniqueName('nomodel') };
      const w = await api.post('/v1/memory/write', { ...id, input_text: 'The kettle whistles at noon.' });
      assert.equal((await api.post('/v1/memory/recall_text', { ...id, query_text: 'kettle' })).body.results[0].id, w.body.nodes[0].id);
    } finally {
      await api.close();
    }
  });

  it('LORE_EMBEDDINGS=none is off, on purpose', async () => {
    const api = await startTestApi({ env: { LORE_EMBEDDINGS: 'none' } });
    try {
      const h = await api.get('/health');
      assert.deepEqual({ provider: h.body.embeddings.provider, status: h.body.embeddings.status }, { provider: 'none', status: 'off' });
    } finally {
      await api.close();
    }
  });
});
