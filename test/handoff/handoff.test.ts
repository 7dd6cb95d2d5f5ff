import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';

describe('handoff: store and recover (aliases /v1/handoff/*)', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const scope = () => ({ tenant_id: 'acme', scope: uniqueName('h') });
  const handoff = {
    anchor: 'resume:src/billing/export.ts',
    summary: 'CSV export writes a BOM twice',
    handoff_text: 'Found the double BOM in encodeRow(); patch is half done.',
    target_files: ['src/billing/export.ts', 'tests/billing/export.test.ts'],
    next_action: 'Finish encodeRow() and rerun npm test -- tests/billing/export.test.ts',
    acceptance_checks: ['npm test -- tests/billing/export.test.ts'],
    rollback_notes: 'git checkout src/billing/export.ts',
  };

  it('stores a handoff and recovers it by anchor and by id, with every field', async () => {
    const id = scope();
    const s = await api.post('/v1/memory/handoff/store', { ...id, ...handoff });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.equal(s.body.handoff.anchor, handoff.anchor);
    assert.equal(s.body.nodes[0].kind, 'handoff');
    const r = await api.post('/v1/handoff/recover', { ...id, anchor: handoff.anchor });
    assert.equal(r.status, 200);
    const h = r.body.handoff;
    assert.equal(h.summary, handoff.summary);
    assert.equal(h.handoff_text, handoff.handoff_text);
    assert.deepEqual(h.target_files, handoff.target_files);
    assert.equal(h.next_action, handoff.next_action);
    assert.deepEqual(h.acceptance_checks, handoff.acceptance_checks);
    assert.deepEqual(h.rollback_notes, [handoff.rollback_notes]);
    const byId = await api.post('/v1/memory/handoff/recover', { ...id, handoff_id: h.handoff_id });
    assert.equal(byId.body.handoff.anchor, handoff.anchor);
    // Handoffs are memory: recallable by content.
    const rec = await api.post('/v1/memory/recall_text', { ...id, query_text: 'double BOM in the CSV export' });
    assert.equal(rec.body.results[0].id, h.handoff_id);
  });

  it('the latest handoff of an anchor wins; earlier ones stay as history; the same content is idempotent', async () => {
    const id = scope();
    await api.post('/v1/handoff/store', { ...id, ...handoff });
    const same = await api.post('/v1/handoff/store', { ...id, ...handoff });
    assert.equal(same.body.nodes[0].outcome, 'deduplicated');
    const next = await api.post('/v1/handoff/store', { ...id, ...handoff, summary: 'BOM fixed; tests still red', rollback_notes: ['revert encodeRow()', 'drop the fixture'] });
    assert.equal(next.body.nodes[0].outcome, 'superseded');
    const r = await api.post('/v1/handoff/recover', { ...id, anchor: handoff.anchor, include_history: true });
    assert.equal(r.body.handoff.summary, 'BOM fixed; tests still red');
    assert.deepEqual(r.body.handoff.rollback_notes, ['revert encodeRow()', 'drop the fixture']);
    assert.equal(r.body.handoff.revision, 2);
    assert.equal(r.body.history.length, 1);
    assert.equal(r.body.history[0].summary, handoff.summary);
    assert.equal(r.body.history[0].revision, 1);
  });

  it('unknown anchors and ids are not_found; bad input is rejected', async () => {
    const id = scope();
    let body = assertError(await api.post('/v1/handoff/recover', { ...id, anchor: 'nowhere' }), 404, 'not_found');
    assert.equal(body.error.details.anchor, 'nowhere');
    body = assertError(await api.post('/v1/memory/handoff/recover', { ...id, handoff_id: '019b0000-0000-7000-8000-000000000000' }), 404, 'not_found');
    // A node that is not a handoff is not a handoff.
    const plain = await api.post('/v1/memory/write', { ...id, input_text: 'plain' });
    assertError(await api.post('/v1/memory/handoff/recover', { ...id, handoff_id: plain.body.nodes[0].id }), 404, 'not_found');
    assertError(await api.post('/v1/handoff/recover', { ...id }), 400, 'invalid_request');
    assertError(await api.post('/v1/handoff/recover', { ...id, anchor: 'a', handoff_id: 'b' }), 400, 'invalid_request');
    assertError(await api.post('/v1/handoff/store', { ...id, anchor: 'a' }), 400, 'invalid_request');
    assertError(await api.post('/v1/handoff/store', { ...id, summary: 's' }), 400, 'invalid_request');
    assertError(await api.post('/v1/handoff/store', { ...id, anchor: 'a', summary: 's', target_files: 'x' }), 400, 'invalid_request');
    assertError(await api.post('/v1/handoff/store', { ...id, anchor: 'a\nb', summary: 's' }), 400, 'invalid_request');
    assertError(await api.post('/v1/handoff/store', { ...id, anchor: 'a', summary: 's'.repeat(65 * 1024) }), 413, 'payload_too_large');
  });

  it('keeps tenants and scopes apart', async () => {
    await assertIsolated({
      what: 'handoff',
      seed: async (owner) => {
        await api.post('/v1/handoff/store', { ...owner, anchor: 'iso', summary: 'private handoff' });
      },
      sees: async (viewer) => (await api.post('/v1/handoff/recover', { ...viewer, anchor: 'iso' })).status === 200,
    });
  });
});
