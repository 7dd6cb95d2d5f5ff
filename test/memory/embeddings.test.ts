import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';

const DIM = 64;

/** A feature-hashed bag of words: an offline stand-in for an OpenAI-compatible /embeddings. */
function hashVector(text: string): number[] {
  const v = new Array<number>(DIM).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const h = createHash('sha256').update(w).digest();
    v[h[0]! % DIM]! += h[1]! & 1 ? 1 : -1;
  }
  return v;
}

interface FakeEmbedder {
  url: string;
  calls: () => number;
  fail: (on: boolean) => void;
  /** While held, requests wait unanswered (a slow encoder); release answers them. */
  hold: () => void;
  release: () => void;
  close: () => Promise<void>;
}

function fakeEmbedder(): Promise<FakeEmbedder> {
  let calls = 0;
  let failing = false;
  let held: (() => void)[] | null = null;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls += 1;
      if (held) {
        held.push(() => answer(body, res));
        return;
      }
      answer(body, res);
    });
  });
  const answer = (body: string, res: http.ServerResponse) => {
    if (failing) {
      res.writeHead(500).end('down');
      return;
    }
    const input = JSON.parse(body).input as string[];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: hashVector(t) })) }));
  };
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        calls: () => calls,
        fail: (on) => (failing = on),
        hold: () => (held ??= []),
        release: () => {
          const waiting = held ?? [];
          held = null;
          for (const go of waiting) go();
        },
        close: () => {
          server.closeAllConnections();
          return new Promise((r) => server.close(() => r()));
        },
      });
    }),
  );
}


describe('recall with an embedding provider (LORE_EMBEDDINGS=openai)', () => {
  let api: TestApi;
  let emb: Awaited<ReturnType<typeof fakeEmbedder>>;
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
    await pollFor('vector after recovery', async () => ids.size > 0 && (await api.post('/v1/memory/recall_text', { ...id, query_text: 'egret dusk' })).body.query.strategy === 'hybrid_rrf');
  });
});
