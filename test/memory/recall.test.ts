import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scopeRef } from '../../src/store/scope';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';
import { pollFor } from '../helpers/wait';

describe('POST /v1/memory/recall_text', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const scope = () => ({ tenant_id: 'acme', scope: uniqueName('r') });

  it('finds an acknowledged write at once, by content, with the contract fields', async () => {
    const id = scope();
    await api.post('/v1/memory/write', { ...id, input_text: 'The webhook signature check uses HMAC-SHA256 over the raw body.', title: 'Webhook HMAC', tags: ['security'] });
    await api.post('/v1/memory/write', { ...id, input_text: 'Pagination cursors are opaque base64 strings.' });
    const res = await api.post('/v1/memory/recall_text', { ...id, query_text: 'how are webhook signatures verified?' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // The neighbour in write order may follow on sequence context alone (the core's design).
    assert.ok(res.body.results.length >= 1);
    const r = res.body.results[0];
    assert.equal(r.title, 'Webhook HMAC');
    assert.equal(r.type, 'event');
    assert.equal(r.kind, null);
    assert.equal(r.tier, 'hot');
    assert.equal(r.archived, false);
    assert.match(r.text, /HMAC-SHA256/);
    assert.ok(r.score > 0);
    assert.equal(r.score_breakdown.strategy, 'bm25');
    assert.equal(r.score_breakdown.bm25.rank, 1);
    assert.equal(typeof r.created_at, 'string');
    assert.deepEqual(r.tags, ['security']);
    assert.equal(res.body.query.strategy, 'bm25');
    assert.equal(res.body.query.text, 'how are webhook signatures verified?');
    assert.equal(typeof res.body.took_ms, 'number');
    const alias = await api.post('/v1/memory/recall_text', { ...id, query: 'webhook signature' });
    assert.equal(alias.body.results[0].id, r.id, '`query` is an alias of query_text');
  });

  it('ranks a better match first and honours limit', async () => {
    const id = scope();
    for (let i = 0; i < 15; i += 1) await api.post('/v1/memory/write', { ...id, input_text: `routine note ${i} about deploys` });
    await api.post('/v1/memory/write', { ...id, input_text: 'the deploy broke because the migration ordering was wrong' });
    const res = await api.post('/v1/memory/recall_text', { ...id, query_text: 'migration ordering broke deploy', limit: 5 });
    assert.equal(res.body.results.length, 5);
    assert.match(res.body.results[0].text, /migration ordering/);
  });

  it('filters by type, kind, tier and tags; archived nodes match on their summary only and are flagged', async () => {
    const id = scope();
    const ref = scopeRef(id.tenant_id, id.scope);
    const m = api.modules.memory.services;
    await api.post('/v1/memory/write', { ...id, input_text: 'walrus fact one', type: 'evidence', tags: ['zoo'] });
    await api.post('/v1/memory/write', { ...id, input_text: 'walrus fact two', tier: 'warm' });
    const arch = await api.post('/v1/memory/write', { ...id, input_text: 'the walrus payload mentions narwhal details', client_id: 'old' });
    // Archive it the way the lifecycle operator will: tier archive, payload moved out, summary kept.
    const updated = await m.nodes(ref).update(arch.body.nodes[0].id, { set: { tier: 'archive', text: '', summary: 'walrus archived summary' } }, api.clock.now());
    m.indexed([updated!]);

    const ids = async (extra: object) => (await api.post('/v1/memory/recall_text', { ...id, query_text: 'walrus', ...extra })).body.results;
    assert.equal((await ids({})).length, 2, 'archived nodes are left out by default');
    assert.deepEqual(
      (await ids({ types: ['evidence'] })).map((r: { text: string }) => r.text),
      ['walrus fact one'],
    );
    assert.deepEqual(
      (await ids({ tiers: ['warm'] })).map((r: { text: string }) => r.text),
      ['walrus fact two'],
    );
    assert.deepEqual(
      (await ids({ tags: ['zoo'] })).map((r: { text: string }) => r.text),
      ['walrus fact one'],
    );
    assert.equal((await ids({ kinds: ['session'] })).length, 0);
    const withArchived = await ids({ include_archived: true });
    assert.equal(withArchived.length, 3);
    const a = withArchived.find((r: { archived: boolean }) => r.archived);
    assert.equal(a.tier, 'archive');
    const narwhal = await api.post('/v1/memory/recall_text', { ...id, query_text: 'narwhal', include_archived: true });
    assert.equal(narwhal.body.results.length, 0, 'the archived payload is not searched, only the summary');
  });

  it('weights lightly by importance and tier, and min_score cuts', async () => {
    const id = scope();
    await api.post('/v1/memory/write', { ...id, input_text: 'identical kestrel note', importance: 0.1, client_id: 'low' });
    await api.post('/v1/memory/write', { ...id, input_text: 'identical kestrel note', importance: 0.9, client_id: 'high' });
    const res = await api.post('/v1/memory/recall_text', { ...id, query_text: 'kestrel' });
    assert.deepEqual(
      res.body.results.map((r: { client_id: string }) => r.client_id),
      ['high', 'low'],
    );
    assert.ok(res.body.results[0].score_breakdown.weight.factor > res.body.results[1].score_breakdown.weight.factor);
    const cut = await api.post('/v1/memory/recall_text', { ...id, query_text: 'kestrel', min_score: res.body.results[0].score });
    assert.deepEqual(
      cut.body.results.map((r: { client_id: string }) => r.client_id),
      ['high'],
    );
  });

  it('records access statistics off the critical path', async () => {
    const id = scope();
    const w = await api.post('/v1/memory/write', { ...id, input_text: 'ocelot sighting log' });
    await api.post('/v1/memory/recall_text', { ...id, query_text: 'ocelot' });
    await api.post('/v1/memory/recall_text', { ...id, query_text: 'ocelot' });
    const node = await pollFor('access count', async () => {
      const r = await api.post('/v1/memory/resolve', { ...id, id: w.body.nodes[0].id });
      return r.body.node.access.count >= 2 ? r.body.node : null;
    });
    assert.equal(node.access.count, 2);
    assert.equal(node.access.last_at, api.clock.now().toISOString());
  });

  it('record_access: false looks without counting a use (the inspector)', async () => {
    const id = scope();
    const w = await api.post('/v1/memory/write', { ...id, input_text: 'caracal sighting log' });
    for (let i = 0; i < 3; i += 1) {
      const looked = await api.post('/v1/memory/recall_text', { ...id, query_text: 'caracal', record_access: false });
      assert.equal(looked.body.results[0].id, w.body.nodes[0].id);
    }
    // One counted read after them: once it shows, the three looks (recorded earlier, if at all) would have too.
    await api.post('/v1/memory/recall_text', { ...id, query_text: 'caracal' });
    const node = await pollFor('access count', async () => {
      const r = await api.post('/v1/memory/resolve', { ...id, id: w.body.nodes[0].id });
      return r.body.node.access.count >= 1 ? r.body.node : null;
    });
    assert.equal(node.access.count, 1);
    assertError(await api.post('/v1/memory/recall_text', { ...id, query_text: 'caracal', record_access: 'no' }), 400, 'invalid_request');
  });

  it('an empty scope or a query with no known words returns no results, not an error', async () => {
    const id = scope();
    const empty = await api.post('/v1/memory/recall_text', { ...id, query_text: 'anything' });
    assert.deepEqual(empty.body.results, []);
    await api.post('/v1/memory/write', { ...id, input_text: 'something' });
    const stop = await api.post('/v1/memory/recall_text', { ...id, query_text: 'the of and' });
    assert.deepEqual(stop.body.results, []);
  });

  it('rejects bad input', async () => {
    const id = scope();
    assertError(await api.post('/v1/memory/recall_text', { ...id }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/recall_text', { ...id, query_text: 7 }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/recall_text', { ...id, query_text: 'x', limit: 0 }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/recall_text', { ...id, query_text: 'x', limit: 101 }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/recall_text', { ...id, query_text: 'x', types: ['blob'] }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/recall_text', { ...id, query_text: 'x', include_archived: 'yes' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/recall_text', { ...id, query_text: 'q'.repeat(64 * 1024 + 1) }), 413, 'payload_too_large');
  });

  it('keeps tenants and scopes apart', async () => {
    await assertIsolated({
      what: 'memory.recall_text',
      seed: async (owner) => {
        await api.post('/v1/memory/write', { ...owner, input_text: 'the capybara migration plan' });
      },
      sees: async (viewer) => (await api.post('/v1/memory/recall_text', { ...viewer, query_text: 'capybara' })).body.results.length > 0,
    });
  });
});

describe('cross-process consistency of recall (two Lore processes on one MongoDB)', () => {
  let a: TestApi;
  let b: TestApi;
  before(async () => {
    a = await startTestApi();
    // A second, independent API (own index, own sequence allocator) on the same database.
    b = await startTestApi({ env: { MONGODB_DB: a.config.mongo.database } });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('a write acknowledged by A is recallable through B immediately, and the other way round', async () => {
    const id = { tenant_id: 'x', scope: uniqueName('xp') };
    for (let i = 0; i < 5; i += 1) {
      const w = await a.post('/v1/memory/write', { ...id, input_text: `alpha-side finding number ${i} about gazelles` });
      const r = await b.post('/v1/memory/recall_text', { ...id, query_text: `gazelles`, limit: 20 });
      assert.ok(
        r.body.results.some((x: { id: string }) => x.id === w.body.nodes[0].id),
        `write ${i} via A not visible via B`,
      );
    }
    const w = await b.post('/v1/memory/write', { ...id, input_text: 'beta-side note on pangolins' });
    const r = await a.post('/v1/memory/recall_text', { ...id, query_text: 'pangolins' });
    assert.equal(r.body.results[0]?.id, w.body.nodes[0].id);
  });

  it('a supersede through A replaces the content B recalls', async () => {
    const id = { tenant_id: 'x', scope: uniqueName('xp') };
    await a.post('/v1/memory/write', { ...id, client_id: 'doc', input_text: 'the answer is marmot' });
    assert.equal((await b.post('/v1/memory/recall_text', { ...id, query_text: 'marmot' })).body.results.length, 1);
    await a.post('/v1/memory/write', { ...id, client_id: 'doc', input_text: 'the answer is meerkat' });
    assert.equal((await b.post('/v1/memory/recall_text', { ...id, query_text: 'marmot' })).body.results.length, 0);
    assert.equal((await b.post('/v1/memory/recall_text', { ...id, query_text: 'meerkat' })).body.results.length, 1);
  });

  it('concurrent writes through both processes are all recallable through each', async () => {
    const id = { tenant_id: 'x', scope: uniqueName('xp') };
    const writes = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).post('/v1/memory/write', { ...id, input_text: `concurrent bison record ${i}` })));
    const ids = new Set(writes.map((w) => w.body.nodes[0].id as string));
    for (const api of [a, b]) {
      const r = await api.post('/v1/memory/recall_text', { ...id, query_text: 'bison record', limit: 100 });
      assert.deepEqual(new Set(r.body.results.map((x: { id: string }) => x.id)), ids);
    }
  });

  it('nodes written by another process straight through the store (as the worker does) reach the index', async () => {
    const id = { tenant_id: 'x', scope: uniqueName('xp') };
    const { NodeStore } = await import('../../src/store/memory/nodes');
    const worker = new NodeStore(a.db);
    await worker.in(scopeRef(id.tenant_id, id.scope)).insert([{ type: 'event', text: 'worker wrote about wombats', summary: 'wombats', actor: 'worker' }], a.clock.now());
    const r = await b.post('/v1/memory/recall_text', { ...id, query_text: 'wombats' });
    assert.equal(r.body.results.length, 1);
  });

  it('a process started later builds its index from the store', async () => {
    const id = { tenant_id: 'x', scope: uniqueName('xp') };
    await a.post('/v1/memory/write', { ...id, input_text: 'the okapi is a relative of the giraffe' });
    const c = await startTestApi({ env: { MONGODB_DB: a.config.mongo.database } });
    try {
      assert.ok(c.modules.memory.services.index.size > 0);
      const r = await c.post('/v1/memory/recall_text', { ...id, query_text: 'okapi giraffe' });
      assert.equal(r.body.results.length, 1);
    } finally {
      // Closing drops the shared database; only the last one may. Stop c's modules without dropping.
      await c.app.close();
      for (const mod of Object.values(c.modules)) await (mod as { stop?: () => Promise<void> }).stop?.();
      await c.engine.close();
      await c.db.close();
    }
  });
});
