import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';

describe('sessions: create, events/append (alias /v1/memory/events), get, list, events/list', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const scope = () => ({ tenant_id: 'acme', scope: uniqueName('s') });

  it('creates a session (idempotently), appends events in order, and counts them', async () => {
    const id = scope();
    const c = await api.post('/v1/memory/sessions/create', { ...id, session_id: 'sess-1', title: 'Fix the billing export', metadata: { repo: 'billing' } });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    assert.equal(c.body.outcome, 'created');
    assert.equal(c.body.session.session_id, 'sess-1');
    assert.deepEqual(c.body.session.metadata, { repo: 'billing' });
    const again = await api.post('/v1/memory/sessions/create', { ...id, session_id: 'sess-1', title: 'Fix the billing export', metadata: { repo: 'billing' } });
    assert.equal(again.body.outcome, 'deduplicated');
    assert.equal(again.body.session.node_id, c.body.session.node_id);

    const texts = ['opened src/billing/export.ts', 'ran pytest tests/billing -q: 2 failures', 'fixed the CSV encoding; tests pass'];
    const events = [];
    for (const [i, text] of texts.entries()) {
      const path = i === 1 ? '/v1/memory/events' : '/v1/memory/sessions/events/append';
      const e = await api.post(path, { ...id, session_id: 'sess-1', input_text: text, event_type: 'step' });
      assert.equal(e.status, 200, JSON.stringify(e.body));
      assert.equal(e.body.session_created, false);
      assert.equal(e.body.event.session_id, 'sess-1');
      assert.equal(e.body.event.event_type, 'step');
      assert.equal(e.body.session.event_count, i + 1);
      events.push(e.body.event);
    }
    const got = await api.post('/v1/memory/sessions/get', { ...id, session_id: 'sess-1' });
    assert.equal(got.body.session.event_count, 3);
    assert.equal(got.body.session.last_event_at, api.clock.now().toISOString());

    const page1 = await api.post('/v1/memory/sessions/events/list', { ...id, session_id: 'sess-1', limit: 2 });
    assert.deepEqual(
      page1.body.events.map((e: { text: string }) => e.text),
      texts.slice(0, 2),
    );
    const page2 = await api.post('/v1/memory/sessions/events/list', { ...id, session_id: 'sess-1', limit: 2, cursor: page1.body.next_cursor });
    assert.deepEqual(
      page2.body.events.map((e: { text: string }) => e.text),
      texts.slice(2),
    );
    assert.equal(page2.body.next_cursor, null);

    // Events are memory: recallable, and extraction ran on them.
    const rec = await api.post('/v1/memory/recall_text', { ...id, query_text: 'CSV encoding fixed', kinds: ['session_event'] });
    assert.equal(rec.body.results[0].id, events[2].node_id);
    assert.deepEqual(events[1].slots.execution_native_v1.commands, ['pytest tests/billing -q'], 'extraction ran on the event');
  });

  it('keeps the event count when a session is re-created with new content', async () => {
    const id = scope();
    await api.post('/v1/memory/sessions/create', { ...id, session_id: 's', title: 'one' });
    await api.post('/v1/memory/events', { ...id, session_id: 's', input_text: 'e1' });
    const re = await api.post('/v1/memory/sessions/create', { ...id, session_id: 's', title: 'two' });
    assert.equal(re.body.outcome, 'superseded');
    assert.equal(re.body.session.title, 'two');
    assert.equal(re.body.session.event_count, 1);
  });

  it('append to a session nobody created is not_found on both paths and creates nothing; event_id makes an append idempotent', async () => {
    const id = scope();
    for (const path of ['/v1/memory/events', '/v1/memory/sessions/events/append']) {
      const body = assertError(await api.post(path, { ...id, session_id: 'auto', event_id: 'ev-1', input_text: 'first thing' }), 404, 'not_found');
      assert.equal(body.error.details.session_id, 'auto');
    }
    assertError(await api.post('/v1/memory/sessions/get', { ...id, session_id: 'auto' }), 404, 'not_found');
    assert.deepEqual((await api.post('/v1/memory/sessions/list', { ...id })).body.sessions, []);
    assert.deepEqual((await api.post('/v1/memory/recall_text', { ...id, query_text: 'first thing' })).body.results, [], 'no event node either');

    await api.post('/v1/memory/sessions/create', { ...id, session_id: 'auto' });
    const e1 = await api.post('/v1/memory/events', { ...id, session_id: 'auto', event_id: 'ev-1', input_text: 'first thing' });
    assert.equal(e1.status, 200, JSON.stringify(e1.body));
    assert.equal(e1.body.session_created, false);
    const e2 = await api.post('/v1/memory/events', { ...id, session_id: 'auto', event_id: 'ev-1', input_text: 'first thing' });
    assert.equal(e2.body.session_created, false);
    assert.equal(e2.body.deduplicated, undefined);
    assert.equal(e2.body.nodes[0].outcome, 'deduplicated');
    assert.equal(e2.body.event.node_id, e1.body.event.node_id);
    assert.equal(e2.body.session.event_count, 1, 'a replayed append is counted once');
    const list = await api.post('/v1/memory/sessions/events/list', { ...id, session_id: 'auto' });
    assert.equal(list.body.events.length, 1);
  });

  it('lists sessions in creation order with a cursor', async () => {
    const id = scope();
    for (const s of ['a', 'b', 'c']) await api.post('/v1/memory/sessions/create', { ...id, session_id: s });
    await api.post('/v1/memory/write', { ...id, input_text: 'not a session' });
    const p1 = await api.post('/v1/memory/sessions/list', { ...id, limit: 2 });
    assert.deepEqual(
      p1.body.sessions.map((s: { session_id: string }) => s.session_id),
      ['a', 'b'],
    );
    const p2 = await api.post('/v1/memory/sessions/list', { ...id, limit: 2, cursor: p1.body.next_cursor });
    assert.deepEqual(
      p2.body.sessions.map((s: { session_id: string }) => s.session_id),
      ['c'],
    );
    assert.equal(p2.body.next_cursor, null);
  });

  it('generates a session_id when none is given', async () => {
    const id = scope();
    const c = await api.post('/v1/memory/sessions/create', { ...id });
    assert.match(c.body.session.session_id, /^[0-9a-f-]{36}$/);
  });

  it('unknown sessions are not_found; bad input is invalid_request or payload_too_large', async () => {
    const id = scope();
    let body = assertError(await api.post('/v1/memory/sessions/get', { ...id, session_id: 'nope' }), 404, 'not_found');
    assert.equal(body.error.details.session_id, 'nope');
    body = assertError(await api.post('/v1/memory/sessions/events/list', { ...id, session_id: 'nope' }), 404, 'not_found');
    assertError(await api.post('/v1/memory/sessions/get', { ...id }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/sessions/create', { ...id, session_id: 'bad id' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/sessions/create', { ...id, metadata: 'x' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/events', { ...id, session_id: 's' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/events', { ...id, session_id: 's', input_text: 'x', event_type: 'has space' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/events', { ...id, input_text: 'x' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/sessions/list', { ...id, cursor: 'zzz' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/events', { ...id, session_id: 's', input_text: 'x'.repeat(65 * 1024) }), 413, 'payload_too_large');
    assertError(await api.post('/v1/memory/sessions/create', { ...id, title: 't'.repeat(5000) }), 413, 'payload_too_large');
  });

  it('keeps tenants and scopes apart', async () => {
    await assertIsolated({
      what: 'sessions',
      seed: async (owner) => {
        await api.post('/v1/memory/sessions/create', { ...owner, session_id: 'iso' });
        const appended = await api.post('/v1/memory/events', { ...owner, session_id: 'iso', input_text: 'private event' });
        assert.equal(appended.status, 200, JSON.stringify(appended.body));
      },
      sees: async (viewer) => {
        const get = await api.post('/v1/memory/sessions/get', { ...viewer, session_id: 'iso' });
        const events = await api.post('/v1/memory/sessions/events/list', { ...viewer, session_id: 'iso' });
        const list = await api.post('/v1/memory/sessions/list', { ...viewer });
        // Another scope cannot append to it either: its id names no session there.
        const append = await api.post('/v1/memory/events', { ...viewer, session_id: 'iso', input_text: 'intruding event' });
        return get.status === 200 || events.status === 200 || list.body.sessions.length > 0 || append.status === 200;
      },
    });
  });
});
