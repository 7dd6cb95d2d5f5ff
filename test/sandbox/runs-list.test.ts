/**
 * runs/list: a scope's sandbox runs, newest first, optionally of one session, one page at a time;
 * sandbox_disabled when the sandbox is off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, type Identity } from '../helpers/isolation';
import { createSession, run } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

async function list(who: Identity, extra: Record<string, unknown> = {}) {
  const res = await api.post('/v1/memory/sandbox/runs/list', { ...who, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

describe('sandbox runs/list', () => {
  it('lists runs newest first, by session, page by page', async () => {
    const who = { tenant_id: 'acme', scope: uniqueName('sbl') };
    const s1 = await createSession(api, who);
    const s2 = await createSession(api, who);
    const runs = [];
    for (const [s, word] of [
      [s1, 'one'],
      [s2, 'two'],
      [s1, 'three'],
    ] as const)
      runs.push(await run(api, s, ['echo', word], {}, who));
    const all = await list(who);
    assert.deepEqual(
      all.runs.map((r: any) => r.run_id),
      runs.map((r) => r.run_id).reverse(),
    );
    assert.equal(all.runs[0].status, 'succeeded');
    assert.match(all.runs[0].workflow_id, /^sandbox-run-/);
    assert.deepEqual(
      (await list(who, { session_id: s1 })).runs.map((r: any) => r.argv[1]),
      ['three', 'one'],
    );
    const first = await list(who, { limit: 2 });
    assert.equal(first.runs.length, 2);
    const rest = await list(who, { limit: 2, cursor: first.next_cursor });
    assert.deepEqual(
      rest.runs.map((r: any) => r.run_id),
      [runs[0]!.run_id],
    );
    assert.equal(rest.next_cursor, null);
  });

  it('rejects bad input', async () => {
    assertError(await api.post('/v1/memory/sandbox/runs/list', { limit: 101 }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/sandbox/runs/list', { cursor: 'x' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/sandbox/runs/list', { session_id: '' }), 400, 'invalid_request');
  });

  it('the runs of a session that does not exist are not_found, not an empty page', async () => {
    const body = assertError(await api.post('/v1/memory/sandbox/runs/list', { scope: uniqueName('sbl'), session_id: 'no-such-session' }), 404, 'not_found');
    assert.equal(body.error.details.session_id, 'no-such-session');
  });

  it('is isolated by tenant and scope', async () => {
    await assertIsolated({
      what: 'sandbox runs/list',
      seed: async (owner) => {
        await run(api, await createSession(api, owner), ['true'], {}, owner);
      },
      sees: async (viewer) => (await list(viewer)).runs.length > 0,
    });
  });

  it('answers sandbox_disabled when the sandbox is off', async () => {
    const off = await startTestApi({ env: { SANDBOX_ENABLED: 'false' } });
    try {
      assertError(await off.post('/v1/memory/sandbox/runs/list', {}), 503, 'sandbox_disabled');
    } finally {
      await off.close();
    }
  });
});
