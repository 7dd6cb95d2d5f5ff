import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { vectorCacheCollection } from '../../src/store/memory/vector-cache';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { fakeEmbedder, type FakeEmbedder } from '../helpers/fake-embeddings';
import { identities } from '../helpers/isolation';
import { pollFor } from '../helpers/wait';

/**
 * Node vectors persist in the vector cache (store/memory/vector-cache.ts): a restart reads back
 * what was computed before it and embeds only what is missing, in the background; the newest
 * writes are embedded first; the cache says nothing across tenants and scopes.
 */

type Stats = { computed: number; cache_hits: number; embedded: number };
const embeddingStats = (api: TestApi) => api.modules.memory.services.stats().embeddings as Stats;
/** The texts the encoder was asked for since request `from` that contain `word`. */
const askedFor = (emb: FakeEmbedder, word: string, from = 0) =>
  emb
    .inputs()
    .slice(from)
    .flat()
    .filter((t) => t.includes(word)).length;

/** Stops an API but keeps its database, for a second API on it (a restart). */
async function closeKeepingDb(api: TestApi): Promise<void> {
  await api.stopWorker();
  await api.app.close();
  for (const m of Object.values(api.modules).reverse()) await (m as { stop?: () => Promise<void> }).stop?.();
  await api.engine.close();
  await api.db.close();
}

describe('node vectors persist across restarts (the vector cache)', () => {
  let emb: FakeEmbedder;
  const env = () => ({ LORE_EMBEDDINGS: 'openai', LORE_EMBEDDINGS_URL: emb.url, LORE_EMBEDDINGS_MODEL: 'fake' });
  before(async () => {
    emb = await fakeEmbedder();
  });
  after(async () => emb?.close());

  it('vectors computed before a restart are read back, not recomputed; missing ones are computed in the background', async () => {
    const first = await startTestApi({ env: env() });
    const id = { tenant_id: 'vc', scope: uniqueName('restart') };
    const texts = ['the avocet sweeps the shallows', 'the bittern booms in the reeds'];
    const ids: string[] = [];
    for (const t of texts) ids.push((await first.post('/v1/memory/write', { ...id, input_text: t })).body.nodes[0].id);
    await pollFor('vectors before the restart', async () => ids.every((n) => first.modules.memory.services.index.hasVector(n)), 60_000, 50);
    // A write whose vector is never computed before the restart (the encoder fails meanwhile).
    emb.fail(true);
    const calls = emb.calls();
    const missing = (await first.post('/v1/memory/write', { ...id, input_text: 'the curlew calls over the saltmarsh' })).body.nodes[0].id as string;
    // (the queue gave the batch up and backs off: the provider's own retries are over)
    await pollFor(
      'the failed attempt',
      async () => emb.calls() > calls && (first.modules.memory.services.stats().embeddings as { consecutive_failures: number }).consecutive_failures > 0,
      30_000,
      50,
    );
    assert.equal(first.modules.memory.services.index.hasVector(missing), false);
    await closeKeepingDb(first);
    emb.fail(false);

    const asked = emb.inputs().length;
    const again = await startTestApi({ env: { ...env(), MONGODB_DB: first.config.mongo.database } });
    try {
      // BM25 finds every node from the first request, whatever the encoder still has to do.
      // (the query names no word the counts below look for: a query is embedded too)
      const r0 = await again.post('/v1/memory/recall_text', { ...id, query_text: 'saltmarsh' });
      assert.equal(r0.body.results[0].id, missing);
      const index = again.modules.memory.services.index;
      await pollFor('every vector after the restart', async () => [...ids, missing].every((n) => index.hasVector(n)), 60_000, 50);
      assert.equal(askedFor(emb, 'avocet', asked) + askedFor(emb, 'bittern', asked), 0, 'vectors computed before the restart are not recomputed');
      assert.equal(askedFor(emb, 'curlew', asked), 1, 'the vector missing at start is computed after it');
      assert.ok(embeddingStats(again).cache_hits >= 2, JSON.stringify(embeddingStats(again)));
      const h = await again.get('/health');
      assert.equal(h.body.embeddings.status, 'on');
      assert.equal(typeof h.body.embeddings.pending, 'number');
      // The restored vectors serve recall as the computed ones did.
      const r = await again.post('/v1/memory/recall_text', { ...id, query_text: 'avocet shallows' });
      assert.equal(r.body.query.strategy, 'hybrid_rrf');
      assert.equal(r.body.results[0].id, ids[0]);
      assert.equal(r.body.results[0].score_breakdown.vector.rank, 1);
    } finally {
      await again.close();
    }
  });

  describe('with a busy encoder', () => {
    let api: TestApi;
    before(async () => {
      api = await startTestApi({ env: env() });
    });
    after(async () => api?.close());

    it('every write is recallable at once whatever the backlog, and the newest writes get their vectors first', async () => {
      const id = { tenant_id: 'vc', scope: uniqueName('backlog') };
      const index = api.modules.memory.services.index;
      emb.hold();
      try {
        const w0 = await api.post('/v1/memory/write', { ...id, input_text: 'the dunlin feeds on the mudflat' });
        await pollFor('the held request', async () => emb.calls() > 0 && api.modules.memory.services.stats().embeddings, 30_000, 50);
        const nodes: string[] = [];
        const words = Array.from({ length: 40 }, (_, i) => `marker${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
        for (const w of words) {
          const r = await api.post('/v1/memory/write', { ...id, input_text: `observation ${w} logged at the hide` });
          assert.equal(r.status, 200);
          nodes.push(r.body.nodes[0].id);
          const found = await api.post('/v1/memory/recall_text', { ...id, query_text: w });
          assert.equal(found.body.results[0].id, r.body.nodes[0].id, `${w} is recallable before its vector exists`);
          assert.equal(index.hasVector(r.body.nodes[0].id), false);
        }
        const h = await api.get('/health');
        assert.ok(h.body.embeddings.pending >= 40, JSON.stringify(h.body.embeddings));
        const before = emb.inputs().length;
        emb.release();
        await pollFor('every vector', async () => [w0.body.nodes[0].id, ...nodes].every((n) => index.hasVector(n)), 60_000, 50);
        // The first batch after the held one starts with the newest write, not the oldest.
        const batches = emb
          .inputs()
          .slice(before)
          .filter((b) => b.some((t) => t.includes('observation')));
        assert.ok(batches.length >= 2, `40 texts in batches of 32: ${batches.length}`);
        assert.ok(
          batches[0]!.some((t) => t.includes(words[39]!)),
          'the newest write is in the first batch',
        );
        assert.ok(!batches[0]!.some((t) => t.includes(words[0]!)), 'the oldest write waits for a later batch');
      } finally {
        emb.release();
      }
      const h = await api.get('/health');
      assert.equal(h.body.embeddings.pending, 0);
    });

    it('the cache says nothing across tenants and scopes: the same text is embedded once per scope, and no text is stored', async () => {
      const { owner, otherTenant, otherScope } = identities();
      const text = 'the godwit probes the estuary silt for worms';
      const asked = emb.inputs().length;
      const hits = embeddingStats(api).cache_hits;
      const written: Record<string, string> = {};
      for (const who of [owner, otherTenant, otherScope]) {
        const w = await api.post('/v1/memory/write', { ...who, input_text: text });
        written[`${who.tenant_id}/${who.scope}`] = w.body.nodes[0].id;
        await pollFor('its vector', async () => api.modules.memory.services.index.hasVector(w.body.nodes[0].id), 30_000, 50);
      }
      // A hit would show (a vector at once, /health counters): every scope computes its own.
      assert.equal(askedFor(emb, 'godwit', asked), 3);
      assert.equal(embeddingStats(api).cache_hits, hits);
      // Each scope sees its own node only, by words and by vector.
      for (const who of [owner, otherTenant, otherScope]) {
        const r = await api.post('/v1/memory/recall_text', { ...who, query_text: 'godwit estuary worms' });
        assert.deepEqual(
          r.body.results.map((x: { id: string }) => x.id),
          [written[`${who.tenant_id}/${who.scope}`]],
        );
      }
      // The cache holds a hash and a vector per scope: no text, nothing to read it back by.
      const docs = await api.db
        .raw<Record<string, unknown>>(vectorCacheCollection)
        .find({ tenant_id: { $in: [owner.tenant_id, otherTenant.tenant_id] } })
        .toArray();
      assert.equal(docs.length, 3);
      assert.equal(new Set(docs.map((d) => d._id)).size, 3);
      for (const d of docs) {
        assert.deepEqual(Object.keys(d).sort(), ['_id', 'at', 'dim', 'model', 'scope', 'tenant_id', 'vector']);
        assert.match(String(d._id), /^[0-9a-f]{64}$/);
        assert.ok(!JSON.stringify(d).includes('godwit'));
      }
    });
  });
});
