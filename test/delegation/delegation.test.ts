import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';

describe('delegation records: write and find', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const scope = () => ({ tenant_id: 'acme', scope: uniqueName('d') });

  it('creates, dedupes and updates a record, keeping a history', async () => {
    const id = scope();
    const base = { ...id, actor: 'planner', record_id: 'del-1', to_agent: 'coder', task: 'Fix the CSV export BOM', run_id: 'run-7', target_files: ['src/export.ts'] };
    const w1 = await api.post('/v1/memory/delegation/records/write', base);
    assert.equal(w1.status, 200, JSON.stringify(w1.body));
    assert.equal(w1.body.outcome, 'created');
    assert.equal(w1.body.record.from_agent, 'planner', 'from_agent defaults to the actor');
    assert.equal(w1.body.record.status, 'requested');
    const w2 = await api.post('/v1/memory/delegation/records/write', base);
    assert.equal(w2.body.outcome, 'deduplicated');
    const w3 = await api.post('/v1/memory/delegation/records/write', {
      ...base,
      actor: 'coder',
      from_agent: 'planner',
      status: 'completed',
      result: 'BOM written once; tests pass',
    });
    assert.equal(w3.body.outcome, 'updated');
    assert.equal(w3.body.record.revision, 2);
    assert.equal(w3.body.record.result, 'BOM written once; tests pass');
    assert.deepEqual(
      w3.body.record.history.map((h: { status: string; actor: string }) => [h.status, h.actor]),
      [
        ['requested', 'planner'],
        ['completed', 'coder'],
      ],
    );
    // A final status stays final.
    const back = await api.post('/v1/memory/delegation/records/write', { ...base, from_agent: 'planner', status: 'in_progress' });
    const err = assertError(back, 409, 'invalid_state');
    assert.equal(err.error.details.state, 'completed');
  });

  it('finds by record id, agents, status, run and session, with a cursor', async () => {
    const id = scope();
    const write = (r: object) => api.post('/v1/memory/delegation/records/write', { ...id, ...r });
    await write({ record_id: 'r1', from_agent: 'a', to_agent: 'b', task: 't1', status: 'accepted', run_id: 'run-1' });
    await write({ record_id: 'r2', from_agent: 'a', to_agent: 'c', task: 't2', status: 'failed', session_id: 's-1' });
    await write({ record_id: 'r3', from_agent: 'b', to_agent: 'c', task: 't3' });
    const ids = async (f: object) => (await api.post('/v1/memory/delegation/records/find', { ...id, ...f })).body.records.map((r: { record_id: string }) => r.record_id);
    assert.deepEqual(await ids({}), ['r1', 'r2', 'r3']);
    assert.deepEqual(await ids({ record_id: 'r2' }), ['r2']);
    assert.deepEqual(await ids({ record_ids: ['r1', 'r3'] }), ['r1', 'r3']);
    assert.deepEqual(await ids({ from_agent: 'a' }), ['r1', 'r2']);
    assert.deepEqual(await ids({ to_agent: 'c' }), ['r2', 'r3']);
    assert.deepEqual(await ids({ status: 'failed' }), ['r2']);
    assert.deepEqual(await ids({ status: ['accepted', 'requested'] }), ['r1', 'r3']);
    assert.deepEqual(await ids({ run_id: 'run-1' }), ['r1']);
    assert.deepEqual(await ids({ session_id: 's-1' }), ['r2']);
    assert.deepEqual(await ids({ record_id: 'missing' }), []);
    const p1 = await api.post('/v1/memory/delegation/records/find', { ...id, limit: 2 });
    const p2 = await api.post('/v1/memory/delegation/records/find', { ...id, limit: 2, cursor: p1.body.next_cursor });
    assert.deepEqual(
      [...p1.body.records, ...p2.body.records].map((r: { record_id: string }) => r.record_id),
      ['r1', 'r2', 'r3'],
    );
    assert.equal(p2.body.next_cursor, null);
  });

  it('generates a record_id when none is given', async () => {
    const id = scope();
    const w = await api.post('/v1/memory/delegation/records/write', { ...id, to_agent: 'x', task: 'y' });
    assert.match(w.body.record.record_id, /^[0-9a-f-]{36}$/);
  });

  it('rejects bad input', async () => {
    const id = scope();
    assertError(await api.post('/v1/memory/delegation/records/write', { ...id, task: 'no agent' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/delegation/records/write', { ...id, to_agent: 'x' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/delegation/records/write', { ...id, to_agent: 'x', task: 'y', status: 'done' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/delegation/records/write', { ...id, to_agent: 'x', task: 'y', record_id: 'bad id' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/delegation/records/write', { ...id, to_agent: 'x', task: 'y'.repeat(65 * 1024) }), 413, 'payload_too_large');
    assertError(await api.post('/v1/memory/delegation/records/find', { ...id, status: 'nope' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/delegation/records/find', { ...id, cursor: '???' }), 400, 'invalid_request');
  });

  it('keeps tenants and scopes apart', async () => {
    await assertIsolated({
      what: 'delegation records',
      seed: async (owner) => {
        await api.post('/v1/memory/delegation/records/write', { ...owner, record_id: 'iso', to_agent: 'x', task: 'private' });
      },
      sees: async (viewer) => (await api.post('/v1/memory/delegation/records/find', { ...viewer, record_id: 'iso' })).body.records.length > 0,
    });
    // The same record_id in another scope is another record.
    const a = await api.post('/v1/memory/delegation/records/write', { tenant_id: 'p', scope: 'one', record_id: 'same', to_agent: 'x', task: 'a' });
    const b = await api.post('/v1/memory/delegation/records/write', { tenant_id: 'p', scope: 'two', record_id: 'same', to_agent: 'x', task: 'b' });
    assert.equal(a.body.outcome, 'created');
    assert.equal(b.body.outcome, 'created');
  });
});
