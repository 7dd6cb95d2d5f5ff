import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/model/clock';
import { startTestApi, uniqueName, type Reply, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, type Identity } from '../helpers/isolation';
import { DAY, runOperator, writeNodes } from './helpers';

/**
 * The inspector's read routes of the lifecycle family: node counts by tier and lifecycle state
 * over time (hourly samples), the scope registry (scopes/list, tenants/list), and the forgetting
 * history a node keeps in its semantic slot.
 */
describe('counts over time, scope registry and decision history', () => {
  let api: TestApi;
  const clock = new ManualClock('2026-01-01T00:10:00.000Z');
  before(async () => {
    api = await startTestApi({ worker: true, clock });
  });
  after(async () => api?.close());

  const history = async (id: Identity, body: Record<string, unknown> = {}) => {
    const res = await api.post('/v1/memory/lifecycle/history', { ...id, ...body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  it('samples the counts once per hour in which they changed, and shows the current counts', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('hist') };
    clock.set('2026-01-01T00:10:00.000Z');
    await writeNodes(api, id, 12, 'h');
    assert.ok((await api.modules.lifecycle.services.recordHistory()) >= 1);
    // Unchanged counts are not written again.
    clock.set('2026-01-01T00:40:00.000Z');
    assert.equal(await api.modules.lifecycle.services.recordHistory(), 0);

    // Later, the operator demotes and archives what went unused: a second hour with other counts.
    clock.set(new Date(Date.parse('2026-01-01T00:10:00.000Z') + 100 * DAY).toISOString());
    await runOperator(api, id);
    await api.modules.lifecycle.services.recordHistory();

    const h = await history(id);
    assert.equal(h.bucket, 'hour');
    assert.equal(h.points.length, 2, JSON.stringify(h.points));
    const [first, second] = h.points;
    assert.equal(first.at, '2026-01-01T00:00:00.000Z');
    assert.deepEqual(first.tier_counts, { hot: 12, warm: 0, cold: 0, archive: 0 }, JSON.stringify(first));
    assert.equal(first.lifecycle_state_counts.active, 12);
    assert.equal(second.at, new Date(Date.parse('2026-01-01T00:00:00.000Z') + 100 * DAY).toISOString());
    assert.equal(second.node_count, 12);
    assert.equal(second.tier_counts.archive, 12, JSON.stringify(second));
    assert.equal(second.lifecycle_state_counts.archived, 12);
    // The current counts are the live ones, with the time they were read.
    assert.deepEqual(h.current.tier_counts, second.tier_counts);
    assert.equal(h.current.at, clock.now().toISOString());

    // since and limit page the samples, oldest first.
    assert.deepEqual(
      (await history(id, { since: '2026-01-02T00:00:00Z' })).points.map((p: any) => p.at),
      [second.at],
    );
    assert.deepEqual(
      (await history(id, { limit: 1 })).points.map((p: any) => p.at),
      [second.at],
    );
    assert.deepEqual(
      (await history(id, { since: '2026-01-01T00:00:00Z', limit: 1 })).points.map((p: any) => p.at),
      [first.at],
    );

    // Bad input is a 400 naming the field.
    assertError(await api.post('/v1/memory/lifecycle/history', { ...id, since: 'yesterday' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/lifecycle/history', { ...id, limit: 5000 }), 400, 'invalid_request');
    // A scope without memory has no samples and zero counts.
    const empty = await history({ tenant_id: 'acme', scope: uniqueName('nothing') });
    assert.deepEqual(empty.points, []);
    assert.equal(empty.current.node_count, 0);
  });

  it('keeps the samples in the store: a restarted API reads the same history', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('hist-restart') };
    clock.set('2026-03-01T08:05:00.000Z');
    await writeNodes(api, id, 3, 'r');
    await api.modules.lifecycle.services.recordHistory();
    const again = await startTestApi({ clock, env: { MONGODB_DB: api.config.mongo.database, LORE_TASK_QUEUE: api.config.temporal.taskQueue } });
    try {
      const res = await again.post('/v1/memory/lifecycle/history', id);
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.points.map((p: any) => [p.at, p.node_count]),
        [['2026-03-01T08:00:00.000Z', 3]],
      );
      assert.equal(res.body.current.node_count, 3);
    } finally {
      // Its own close would drop the shared database: stop it without that.
      await again.app.close();
      for (const m of Object.values(again.modules).reverse()) await m.stop?.();
      await again.engine.close();
      await again.db.close();
    }
  });

  it('history is isolated by tenant and scope', async () => {
    await assertIsolated({
      what: 'count history',
      seed: async (owner) => {
        clock.set('2026-04-01T00:00:00.000Z');
        await writeNodes(api, owner, 2, 'iso');
        await api.modules.lifecycle.services.recordHistory();
      },
      sees: async (viewer) => (await history(viewer)).points.length > 0 || (await history(viewer)).current.node_count > 0,
    });
  });

  it('lists the scopes of a tenant and the tenants, page by page', async () => {
    const tenant = uniqueName('reg');
    const scopes = ['alpha', 'beta', 'gamma/with slash', 'delta'];
    for (const scope of scopes) await writeNodes(api, { tenant_id: tenant, scope }, 1, 'reg');
    // Another tenant whose name extends this one's (sorts right after it) is not mixed in.
    await writeNodes(api, { tenant_id: `${tenant}-x`, scope: 'alpha' }, 1, 'reg');

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const res: Reply = await api.post('/v1/memory/scopes/list', { tenant_id: tenant, limit: 3, ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      seen.push(...res.body.scopes.map((s: any) => s.scope));
      for (const s of res.body.scopes) assert.equal(typeof s.first_seen_at, 'string');
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.deepEqual(seen, [...scopes].sort());

    const tenants: string[] = [];
    cursor = undefined;
    for (let pages = 0; pages < 100; pages += 1) {
      const res: Reply = await api.post('/v1/memory/tenants/list', { limit: 2, ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.bound_tenant, null);
      tenants.push(...res.body.tenants);
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.ok(tenants.includes(tenant) && tenants.includes(`${tenant}-x`) && tenants.includes('acme'), JSON.stringify(tenants));
    assert.equal(tenants.length, new Set(tenants).size, 'each tenant once');

    assertError(await api.post('/v1/memory/scopes/list', { tenant_id: tenant, cursor: 'not-a-cursor' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/tenants/list', { limit: 0 }), 400, 'invalid_request');
    const none = await api.post('/v1/memory/scopes/list', { tenant_id: uniqueName('no-such-tenant') });
    assert.deepEqual(none.body.scopes, []);
  });

  it('a key bound to a tenant lists only that tenant and only its scopes', async () => {
    const keyed = await startTestApi({ env: { LORE_API_KEYS: 'k-admin,k-acme=acme-bound', MONGODB_DB: api.config.mongo.database } });
    try {
      const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
      await keyed.post('/v1/memory/write', { tenant_id: 'acme-bound', scope: 's1', input_text: 'bound tenant note' }, bearer('k-acme'));
      const bound = await keyed.post('/v1/memory/tenants/list', {}, bearer('k-acme'));
      assert.equal(bound.status, 200);
      assert.deepEqual(bound.body, { tenants: ['acme-bound'], next_cursor: null, bound_tenant: 'acme-bound' });
      const admin = await keyed.post('/v1/memory/tenants/list', { limit: 200 }, bearer('k-admin'));
      assert.ok(admin.body.tenants.length > 1);
      assertError(await keyed.post('/v1/memory/scopes/list', { tenant_id: 'acme' }, bearer('k-acme')), 403, 'forbidden');
      assertError(await keyed.post('/v1/memory/tenants/list', {}), 401, 'unauthorized');
      const mine = await keyed.post('/v1/memory/scopes/list', { tenant_id: 'acme-bound' }, bearer('k-acme'));
      assert.deepEqual(
        mine.body.scopes.map((s: any) => s.scope),
        ['s1'],
      );
    } finally {
      await keyed.app.close();
      for (const m of Object.values(keyed.modules).reverse()) await m.stop?.();
      await keyed.engine.close();
      await keyed.db.close();
    }
  });

  it('a node keeps the decisions the operator and a rehydration replaced, newest first', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('decisions') };
    clock.set('2026-05-01T00:00:00.000Z');
    await writeNodes(api, id, 1, 'd');
    await runOperator(api, id);
    clock.advance(20 * DAY);
    await runOperator(api, id);
    clock.advance(100 * DAY);
    await runOperator(api, id);
    const node = (await api.post('/v1/memory/resolve', { ...id, client_id: 'd-0' })).body.node;
    assert.equal(node.tier, 'archive');
    const rh = await api.post('/v1/memory/archive/rehydrate', { ...id, ids: [node.id], target_tier: 'warm', reason: 'inspect it' });
    assert.equal(rh.status, 200, JSON.stringify(rh.body));
    const after = (await api.post('/v1/memory/resolve', { ...id, client_id: 'd-0' })).body.node;
    const sem = after.slots.semantic_forgetting_v1;
    assert.match(sem.rationale[0], /rehydrated archive → warm/);
    assert.ok(Array.isArray(sem.history) && sem.history.length >= 2, JSON.stringify(sem));
    assert.equal(sem.history[0].action, 'archive');
    assert.equal(sem.history[0].target_tier, 'archive');
    const times = sem.history.map((h: any) => h.decided_at);
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    for (const h of sem.history) assert.equal(h.history, undefined, 'a record does not nest the history again');
  });
});
