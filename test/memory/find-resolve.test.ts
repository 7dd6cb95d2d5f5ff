import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';

describe('POST /v1/memory/find and /v1/memory/resolve', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const scope = () => ({ tenant_id: 'acme', scope: uniqueName('f') });

  it('find pages through a scope in id order with an opaque cursor', async () => {
    const id = scope();
    const written: string[] = [];
    for (let i = 0; i < 25; i += 1) {
      const w = await api.post('/v1/memory/write', { ...id, input_text: `note ${i}` });
      written.push(w.body.nodes[0].id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await api.post('/v1/memory/find', { ...id, limit: 10, ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      seen.push(...res.body.nodes.map((n: { id: string }) => n.id));
      cursor = res.body.next_cursor ?? undefined;
      pages += 1;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...written].sort(), 'every node once, in id order');
    const last = await api.post('/v1/memory/find', { ...id, limit: 5 });
    assert.equal(last.body.nodes[0].uri, `lore://acme/${encodeURIComponent(id.scope)}/node/${last.body.nodes[0].id}`);
  });

  it('find filters by type, tier, tags, client_id(s) and creation time', async () => {
    const id = scope();
    const t0 = api.clock.now().toISOString();
    await api.post('/v1/memory/write', { ...id, input_text: 'a', type: 'evidence', tags: ['x', 'y'], client_id: 'a' });
    api.clock.advance(60_000);
    const t1 = api.clock.now().toISOString();
    await api.post('/v1/memory/write', { ...id, input_text: 'b', tier: 'warm', tags: ['x'], client_id: 'b' });
    api.clock.advance(60_000);
    await api.post('/v1/memory/write', { ...id, input_text: 'c', client_id: 'c' });
    const texts = async (f: object) => (await api.post('/v1/memory/find', { ...id, ...f })).body.nodes.map((n: { text: string }) => n.text).sort();
    assert.deepEqual(await texts({ types: ['evidence'] }), ['a']);
    assert.deepEqual(await texts({ tiers: ['warm'] }), ['b']);
    assert.deepEqual(await texts({ tags: ['x'] }), ['a', 'b']);
    assert.deepEqual(await texts({ tags: ['x', 'y'] }), ['a']);
    assert.deepEqual(await texts({ client_id: 'c' }), ['c']);
    assert.deepEqual(await texts({ client_ids: ['a', 'c', 'missing'] }), ['a', 'c']);
    assert.deepEqual(await texts({ client_ids: ['a', 'b'], tiers: ['warm'] }), ['b']);
    assert.deepEqual(await texts({ created_after: t1 }), ['b', 'c']);
    assert.deepEqual(await texts({ created_after: t0, created_before: t1 }), ['a']);
    const idOf = async (cid: string) => (await api.post('/v1/memory/resolve', { ...id, client_id: cid })).body.node.id as string;
    const [a, c] = [await idOf('a'), await idOf('c')];
    assert.deepEqual(await texts({ ids: [c, a, '0190d8a0-0000-7000-8000-000000000000'] }), ['a', 'c']);
    assert.deepEqual(await texts({ ids: [a, c], types: ['evidence'] }), ['a']);
    assert.deepEqual(await texts({ ids: [a, c], client_ids: ['c'] }), ['c']);
    const noText = await api.post('/v1/memory/find', { ...id, client_id: 'a', include_text: false });
    assert.equal(noText.body.nodes[0].text, '');
    assert.equal(noText.body.nodes[0].summary, 'a');
  });

  it('find rejects bad input', async () => {
    const id = scope();
    assertError(await api.post('/v1/memory/find', { ...id, cursor: 'not-a-cursor' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/find', { ...id, limit: 500 }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/find', { ...id, tiers: ['tepid'] }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/find', { ...id, created_after: 'yesterday' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/find', { ...id, client_ids: 'a' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/find', { ...id, ids: Array.from({ length: 101 }, (_, i) => `n${i}`) }), 400, 'invalid_request');
  });

  it('resolve by id, client_id and URI gives the node, its edges and its revisions', async () => {
    const id = scope();
    const w = await api.post('/v1/memory/write', {
      ...id,
      nodes: [
        { client_id: 'p', text: 'parent' },
        { client_id: 'k', text: 'kid' },
      ],
      edges: [{ src: 'k', dst: 'p', type: 'part_of' }],
    });
    await api.post('/v1/memory/write', { ...id, client_id: 'p', input_text: 'parent, revised' });
    const pid = w.body.nodes[0].id;
    const byId = await api.post('/v1/memory/resolve', { ...id, id: pid });
    assert.equal(byId.status, 200);
    assert.equal(byId.body.node.text, 'parent, revised');
    assert.equal(byId.body.node.revision, 2);
    assert.equal(byId.body.revisions[0].text, 'parent');
    assert.equal(byId.body.edges.length, 1);
    assert.equal(byId.body.edges[0].src, w.body.nodes[1].id);
    const byClient = await api.post('/v1/memory/resolve', { ...id, client_id: 'p' });
    assert.equal(byClient.body.node.id, pid);
    const byUri = await api.post('/v1/memory/resolve', { ...id, uri: byId.body.node.uri });
    assert.equal(byUri.body.node.id, pid);
    const byClientUri = await api.post('/v1/memory/resolve', { ...id, uri: `lore://acme/${encodeURIComponent(id.scope)}/client/k` });
    assert.equal(byClientUri.body.node.text, 'kid');
    const bare = await api.post('/v1/memory/resolve', { ...id, id: pid, include_revisions: false, include_edges: false });
    assert.deepEqual([bare.body.revisions, bare.body.edges], [[], []]);
  });

  it('resolve: unknown ids are not_found with the envelope; bad selectors are invalid_request', async () => {
    const id = scope();
    const w = await api.post('/v1/memory/write', { ...id, input_text: 'exists' });
    let body = assertError(await api.post('/v1/memory/resolve', { ...id, id: '019b0000-0000-7000-8000-000000000000' }), 404, 'not_found');
    assert.equal(body.error.details.id, '019b0000-0000-7000-8000-000000000000');
    body = assertError(await api.post('/v1/memory/resolve', { ...id, client_id: 'nope' }), 404, 'not_found');
    assert.equal(body.error.details.client_id, 'nope');
    // A URI naming another scope does not resolve here, even though the node exists there.
    const other = `lore://acme/elsewhere/node/${w.body.nodes[0].id}`;
    assertError(await api.post('/v1/memory/resolve', { ...id, uri: other }), 404, 'not_found');
    assertError(await api.post('/v1/memory/resolve', { ...id, uri: 'https://example.com/x' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/resolve', { ...id }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/resolve', { ...id, id: 'a', client_id: 'b' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/resolve', { ...id, id: 42 }), 400, 'invalid_request');
  });

  it('find and resolve keep tenants and scopes apart', async () => {
    let nodeId = '';
    await assertIsolated({
      what: 'memory.find/resolve',
      seed: async (owner) => {
        nodeId = (await api.post('/v1/memory/write', { ...owner, client_id: 'iso', input_text: 'secret' })).body.nodes[0].id;
      },
      sees: async (viewer) => {
        const listed = (await api.post('/v1/memory/find', { ...viewer })).body.nodes.length > 0;
        if ((await api.post('/v1/memory/find', { ...viewer, ids: [nodeId] })).body.nodes.length > 0) return true;
        const byId = (await api.post('/v1/memory/resolve', { ...viewer, id: nodeId })).status === 200;
        const byClient = (await api.post('/v1/memory/resolve', { ...viewer, client_id: 'iso' })).status === 200;
        return listed || byId || byClient;
      },
    });
  });
});
