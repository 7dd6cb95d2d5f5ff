import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contentHash, idMapper, mapEdge, mapNode, mapRevision, type Pack } from '../../src/domain/packs/format';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';
import { pollFor } from '../helpers/wait';

describe('packs: export and import (a Temporal workflow)', () => {
  let api: TestApi;
  let other: TestApi; // another database: ids are free there
  const src = { tenant_id: 'acme', scope: uniqueName('pack-src') };
  let pack: Pack;

  before(async () => {
    api = await startTestApi({ worker: true });
    other = await startTestApi({ worker: true });
    // A scope with plain nodes, a superseded node (a revision), edges, a session with events and a handoff.
    await api.post('/v1/memory/write', { ...src, client_id: 'doc', input_text: 'first version of the doc' });
    await api.post('/v1/memory/write', { ...src, client_id: 'doc', input_text: 'second version of the doc' });
    await api.post('/v1/memory/write', {
      ...src,
      nodes: [
        { client_id: 'a', text: 'alpha node about the ledger', tags: ['x'] },
        { client_id: 'b', text: 'beta node about the ledger', tier: 'warm', importance: 0.8 },
      ],
      edges: [
        { src: 'a', dst: 'doc', type: 'part_of' },
        { src: 'b', dst: 'a', type: 'related_to' },
      ],
    });
    await api.post('/v1/memory/sessions/create', { ...src, session_id: 'sess' });
    await api.post('/v1/memory/events', { ...src, session_id: 'sess', input_text: 'event one' });
    await api.post('/v1/memory/events', { ...src, session_id: 'sess', input_text: 'event two' });
    await api.post('/v1/handoff/store', { ...src, anchor: 'resume:ledger', summary: 'ledger half done', next_action: 'finish it' });
    const res = await api.post('/v1/memory/packs/export', { ...src });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    pack = res.body.pack;
  });
  after(async () => {
    await other?.close();
    await api?.close();
  });

  it('exports a versioned, self-describing pack of the scope', () => {
    assert.equal(pack.format, 'lore.pack');
    assert.equal(pack.version, 2);
    assert.deepEqual(pack.source, src);
    assert.equal(pack.nodes.length, 7, 'doc, a, b, session, 2 events, handoff');
    assert.equal(pack.revisions.length, 1);
    assert.equal(pack.edges.length, 4, '2 written + 2 event→session');
    assert.deepEqual(pack.counts, { nodes: 7, revisions: 1, edges: 4, cold_payloads: 0, playbook_versions: 0, automations: 0 });
    assert.equal(pack.content_hash, contentHash(pack.nodes, pack.revisions, pack.edges));
    assert.ok(
      pack.nodes.every((n) => !('seq' in n)),
      'the process-local write sequence is not part of a pack',
    );
  });

  it('export → import into an empty scope → export gives the same content; a second import changes nothing', async () => {
    const dst = { tenant_id: 'acme', scope: uniqueName('pack-dst') };
    const imp = await other.post('/v1/memory/packs/import', { ...dst, pack });
    assert.equal(imp.status, 200, JSON.stringify(imp.body));
    assert.equal(imp.body.status, 'completed');
    assert.equal(imp.body.remap_ids, false);
    assert.deepEqual(imp.body.counts, {
      nodes_created: 7,
      nodes_updated: 0,
      nodes_unchanged: 0,
      revisions_written: 1,
      edges_written: 4,
      cold_payloads_written: 0,
      playbook_versions_created: 0,
      playbook_versions_unchanged: 0,
      automations_created: 0,
      automations_unchanged: 0,
      conflicts: 0,
    });
    assert.deepEqual(imp.body.progress, { chunks_total: 1, chunks_done: 1 });
    const back = await other.post('/v1/memory/packs/export', { ...dst });
    assert.equal(back.body.pack.content_hash, pack.content_hash);
    assert.deepEqual(back.body.pack.nodes, pack.nodes);

    const again = await other.post('/v1/memory/packs/import', { ...dst, pack });
    assert.equal(again.body.status, 'completed');
    assert.equal(again.body.counts.nodes_unchanged, 7);
    assert.equal(again.body.counts.nodes_created + again.body.counts.nodes_updated, 0);
    const back2 = await other.post('/v1/memory/packs/export', { ...dst });
    assert.equal(back2.body.pack.content_hash, pack.content_hash);

    // The imported scope works: recall (the worker wrote the nodes), sessions, handoffs, resolve.
    const rec = await other.post('/v1/memory/recall_text', { ...dst, query_text: 'ledger' });
    assert.ok(rec.body.results.length >= 2);
    const events = await other.post('/v1/memory/sessions/events/list', { ...dst, session_id: 'sess' });
    assert.deepEqual(
      events.body.events.map((e: { text: string }) => e.text),
      ['event one', 'event two'],
    );
    const h = await other.post('/v1/handoff/recover', { ...dst, anchor: 'resume:ledger' });
    assert.equal(h.body.handoff.next_action, 'finish it');
    const doc = await other.post('/v1/memory/resolve', { ...dst, client_id: 'doc' });
    assert.equal(doc.body.revisions[0].text, 'first version of the doc');
  });

  it('into another scope of the same database the ids are re-derived, consistently and idempotently', async () => {
    const dst = { tenant_id: 'acme', scope: uniqueName('pack-copy') };
    const imp = await api.post('/v1/memory/packs/import', { ...dst, pack });
    assert.equal(imp.body.status, 'completed', JSON.stringify(imp.body));
    assert.equal(imp.body.remap_ids, true);
    assert.equal(imp.body.counts.nodes_created, 7);
    const map = idMapper(true, dst.tenant_id, dst.scope);
    const expected = contentHash(
      pack.nodes.map((n) => mapNode(n, map)),
      pack.revisions.map((r) => mapRevision(r, map)),
      pack.edges.map((e) => mapEdge(e, map)),
    );
    const back = await api.post('/v1/memory/packs/export', { ...dst });
    assert.equal(back.body.pack.content_hash, expected, 'the same content under the re-derived ids');
    const again = await api.post('/v1/memory/packs/import', { ...dst, pack });
    assert.equal(again.body.counts.nodes_unchanged, 7);
    // The source scope is untouched.
    const srcBack = await api.post('/v1/memory/packs/export', { ...src });
    assert.equal(srcBack.body.pack.content_hash, pack.content_hash);
  });

  it('a large pack imports chunk by chunk; progress is visible in the record and the workflow query', async () => {
    const big = { tenant_id: 'acme', scope: uniqueName('pack-big') };
    const text = (i: number) => `large node ${i} ${'lorem ipsum dolor sit amet '.repeat(1500)}`;
    await api.post('/v1/memory/write', { ...big, nodes: Array.from({ length: 30 }, (_, i) => ({ client_id: `n${i}`, text: text(i) })) });
    const bigPack = (await api.post('/v1/memory/packs/export', { ...big })).body.pack as Pack;
    const dst = { tenant_id: 'acme', scope: uniqueName('pack-big-dst') };
    const started = await other.post('/v1/memory/packs/import', { ...dst, pack: bigPack, wait_ms: 0 });
    assert.equal(started.status, 200, JSON.stringify(started.body).slice(0, 500));
    assert.ok(['queued', 'running', 'completed'].includes(started.body.status));
    assert.ok(started.body.progress.chunks_total >= 2, `chunks: ${started.body.progress.chunks_total}`);
    const done = await pollFor('import completion', async () => {
      const s = await other.post('/v1/memory/packs/import/status', { ...dst, import_id: started.body.import_id });
      return s.body.status === 'completed' ? s.body : null;
    });
    assert.equal(done.counts.nodes_created, 30);
    assert.equal(done.progress.chunks_done, done.progress.chunks_total);
    const progress = await other.engine.query<{ chunks_done: number; counts: { nodes_created: number } }>(started.body.workflow_id, 'progress');
    assert.equal(progress.chunks_done, done.progress.chunks_total);
    assert.equal(progress.counts.nodes_created, 30);
    // The record says completed as the last activity ends; the workflow closes on its next task.
    await other.engine.result(started.body.workflow_id, 30_000);
    const d = await other.engine.describe(started.body.workflow_id);
    assert.equal(d?.state, 'completed');
    const back = await other.post('/v1/memory/packs/export', { ...dst });
    assert.equal(back.body.pack.content_hash, bigPack.content_hash);
  });

  it('pages: each page is a pack of its own; importing the pages gives the whole scope', async () => {
    // Into a scope of the source's own database: ids are re-derived, the same way for every page.
    const dst = { tenant_id: 'acme', scope: uniqueName('pack-pages') };
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { body: { pack: Pack; next_cursor: string | null } } = await api.post('/v1/memory/packs/export', { ...src, limit: 3, ...(cursor ? { cursor } : {}) });
      pages += 1;
      assert.ok(res.body.pack.nodes.length <= 3);
      const imp = await api.post('/v1/memory/packs/import', { ...dst, pack: res.body.pack });
      assert.equal(imp.body.status, 'completed');
      assert.equal(imp.body.remap_ids, true);
      cursor = res.body.next_cursor;
    } while (cursor);
    assert.equal(pages, 3);
    const map = idMapper(true, dst.tenant_id, dst.scope);
    const back = await api.post('/v1/memory/packs/export', { ...dst });
    assert.deepEqual(back.body.pack.counts, pack.counts);
    assert.equal(
      back.body.pack.content_hash,
      contentHash(
        pack.nodes.map((n) => mapNode(n, map)),
        pack.revisions.map((r) => mapRevision(r, map)),
        pack.edges.map((e) => mapEdge(e, map)),
      ),
    );
  });

  it('a client_id already held by another node of the target scope is a reported conflict, not an overwrite', async () => {
    const dst = { tenant_id: 'acme', scope: uniqueName('pack-conflict') };
    await other.post('/v1/memory/write', { ...dst, client_id: 'a', input_text: 'a local node that owns client_id a' });
    const imp = await other.post('/v1/memory/packs/import', { ...dst, pack });
    assert.equal(imp.body.status, 'completed');
    assert.equal(imp.body.counts.conflicts, 1);
    assert.equal(imp.body.conflicts[0].client_id, 'a');
    const a = await other.post('/v1/memory/resolve', { ...dst, client_id: 'a' });
    assert.equal(a.body.node.text, 'a local node that owns client_id a');
  });

  it('rejects bad packs and unknown imports', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('pack-bad') };
    assertError(await api.post('/v1/memory/packs/import', { ...id }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/packs/import', { ...id, pack: { ...pack, version: 3 } }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/packs/import', { ...id, pack: { ...pack, format: 'zip' } }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/packs/import', { ...id, pack: { ...pack, nodes: [{ id: 'x' }] } }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/packs/import', { ...id, pack, wait_ms: -1 }), 400, 'invalid_request');
    const huge = { ...pack, nodes: [{ ...pack.nodes[0]!, text: 'x'.repeat(65 * 1024) }] };
    assertError(await api.post('/v1/memory/packs/import', { ...id, pack: huge }), 413, 'payload_too_large');
    const body = assertError(await api.post('/v1/memory/packs/import/status', { ...id, import_id: 'nope' }), 404, 'not_found');
    assert.equal(body.error.details.import_id, 'nope');
    assertError(await api.post('/v1/memory/packs/export', { ...id, cursor: 'bad' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/packs/export', { ...id, limit: 0 }), 400, 'invalid_request');
  });

  it('keeps tenants and scopes apart', async () => {
    let importId = '';
    await assertIsolated({
      what: 'packs',
      seed: async (owner) => {
        await api.post('/v1/memory/write', { ...owner, input_text: 'owned' });
        const imp = await api.post('/v1/memory/packs/import', { ...owner, pack });
        importId = imp.body.import_id;
      },
      sees: async (viewer) => {
        const exp = await api.post('/v1/memory/packs/export', { ...viewer });
        const status = await api.post('/v1/memory/packs/import/status', { ...viewer, import_id: importId });
        return exp.body.pack.nodes.length > 0 || status.status === 200;
      },
    });
  });
});
