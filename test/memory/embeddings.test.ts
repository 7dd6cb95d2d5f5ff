import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';
import { fakeEmbedder, type FakeEmbedder } from '../helpers/fake-embeddings';

describe('recall with an embedding provider (LORE_EMBEDDINGS=openai)', () => {
  let api: TestApi;
  let emb: FakeEmbedder;
  before(async () => {
    emb = await fakeEmbedder();
    api = await startTestApi({ env: { LORE_EMBEDDINGS: 'openai', LORE_EMBEDDINGS_URL: emb.url, LORE_EMBEDDINGS_MODEL: 'fake' } });
  });
  after(async () => {
    await api?.close();
    await emb?.close();
  });

  it('a write is lexically recallable at once; its vector follows and recall becomes hybrid', async () => {
    const id = { tenant_id: 'e', scope: uniqueName('emb') };
    const w = await api.post('/v1/memory/write', { ...id, input_text: 'the heron nests near the estuary' });
    assert.equal(w.status, 200);
    const first = await api.post('/v1/memory/recall_text', { ...id, query_text: 'heron estuary' });
    assert.equal(first.body.results[0].id, w.body.nodes[0].id, 'recallable before any vector exists');
    const hybrid = await pollFor('hybrid recall', async () => {
      const r = await api.post('/v1/memory/recall_text', { ...id, query_text: 'heron estuary' });
      return r.body.query.strategy === 'hybrid_rrf' ? r : null;
    });
    const top = hybrid.body.results[0];
    assert.equal(top.id, w.body.nodes[0].id);
    assert.equal(top.score_breakdown.strategy, 'hybrid_rrf');
    assert.equal(top.score_breakdown.vector.rank, 1);
    assert.ok(api.modules.memory.services.index.hasVector(w.body.nodes[0].id));
  });

  it('a write is acknowledged and recallable before its vector exists (embedding is off the write path)', async () => {
    const id = { tenant_id: 'e', scope: uniqueName('emb') };
    const index = api.modules.memory.services.index;
    // An earlier node with its vector: recall of the scope would use vectors if the new one had one.
    const w0 = await api.post('/v1/memory/write', { ...id, input_text: 'the plover runs along the shore' });
    await pollFor('first vector', async () => index.hasVector(w0.body.nodes[0].id));
    emb.hold();
    try {
      const w = await api.post('/v1/memory/write', { ...id, input_text: 'the kingfisher dives into the millpond' });
      assert.equal(w.status, 200, 'acknowledged while the encoder has not answered');
      const nodeId = w.body.nodes[0].id;
      const r = await api.post('/v1/memory/recall_text', { ...id, query_text: 'kingfisher millpond' });
      assert.equal(r.body.results[0].id, nodeId);
      assert.equal(r.body.results[0].score_breakdown.vector, null);
      assert.equal(index.hasVector(nodeId), false, 'recalled before its vector exists');
      const h = await api.get('/health');
      assert.ok(h.body.embeddings.pending >= 1, JSON.stringify(h.body.embeddings));
      emb.release();
      await pollFor('the vector once the encoder answers', async () => index.hasVector(nodeId));
    } finally {
      emb.release();
    }
  });

  it('when the provider fails, writes still succeed and recall falls back to BM25', async () => {
    const id = { tenant_id: 'e', scope: uniqueName('emb') };
    // Give the scope vectors first so recall would try the provider.
    const w0 = await api.post('/v1/memory/write', { ...id, input_text: 'the egret hunts at dawn' });
    await pollFor('vector', async () => api.modules.memory.services.index.hasVector(w0.body.nodes[0].id));
    emb.fail(true);
    try {
      const w = await api.post('/v1/memory/write', { ...id, input_text: 'the egret rests at dusk' });
      assert.equal(w.status, 200);
      const r = await api.post('/v1/memory/recall_text', { ...id, query_text: 'egret dusk' });
      assert.equal(r.status, 200);
      assert.equal(r.body.query.strategy, 'bm25');
      assert.match(r.body.query.vector_error, /HTTP 500|500/);
      assert.equal(r.body.results[0].id, w.body.nodes[0].id);
    } finally {
      emb.fail(false);
    }
    // The queued embedding is retried once the provider is back.
    const ids = api.modules.memory.services.index;
    await pollFor(
      'vector after recovery',
      async () => ids.size > 0 && (await api.post('/v1/memory/recall_text', { ...id, query_text: 'egret dusk' })).body.query.strategy === 'hybrid_rrf',
    );
  });
});
