/**
 * playbooks/list: the latest version of each playbook of the scope, its status and the active
 * version, in playbook_id order, one page at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, type Identity } from '../helpers/isolation';
import { compile, hostRun, ok } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi();
});
after(async () => api?.close());

const list = (who: Identity, extra: Record<string, unknown> = {}) => ok(api, '/v1/memory/replay/playbooks/list', { ...extra }, who);

describe('playbooks/list', () => {
  it('lists each playbook once with its latest version and active version, paged', async () => {
    const who = { tenant_id: 'acme', scope: uniqueName('pbl') };
    for (const pb of ['pb-c', 'pb-a', 'pb-b']) {
      await hostRun(api, `run-${pb}`, who);
      await compile(api, `run-${pb}`, pb, {}, who);
    }
    // pb-a gets a second version (a repair), and its first version is promoted active.
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'pb-a', version: 1, target_status: 'active', note: 'reviewed' }, who);
    const repaired = await ok(
      api,
      '/v1/memory/replay/playbooks/repair',
      { playbook_id: 'pb-a', version: 1, patch: { name: 'playbook pb-a (repaired)' }, note: 'clearer name' },
      who,
    );
    assert.equal(repaired.version, 2);

    const all = await list(who);
    assert.deepEqual(
      all.playbooks.map((p: any) => p.playbook_id),
      ['pb-a', 'pb-b', 'pb-c'],
    );
    const a = all.playbooks[0];
    assert.equal(a.active_version, 1);
    assert.equal(a.latest_version, 2);
    assert.equal(a.name, 'playbook pb-a (repaired)');
    assert.equal(all.playbooks[1].status, 'draft');
    assert.equal(all.playbooks[1].active_version, null);
    assert.equal(all.next_cursor, null);

    const first = await list(who, { limit: 2 });
    assert.deepEqual(
      first.playbooks.map((p: any) => p.playbook_id),
      ['pb-a', 'pb-b'],
    );
    const rest = await list(who, { limit: 2, cursor: first.next_cursor });
    assert.deepEqual(
      rest.playbooks.map((p: any) => p.playbook_id),
      ['pb-c'],
    );
    assert.equal(rest.next_cursor, null);
  });

  it('rejects bad input; an empty scope lists nothing', async () => {
    const who = { tenant_id: 'acme', scope: uniqueName('pbl-err') };
    assertError(await api.post('/v1/memory/replay/playbooks/list', { ...who, limit: 0 }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/replay/playbooks/list', { ...who, cursor: 'nope' }), 400, 'invalid_request');
    assert.deepEqual((await list(who)).playbooks, []);
  });

  it('is isolated by tenant and scope', async () => {
    await assertIsolated({
      what: 'playbooks/list',
      seed: async (owner) => {
        await hostRun(api, 'iso-run', owner);
        await compile(api, 'iso-run', 'pb-iso', {}, owner);
      },
      sees: async (viewer) => (await list(viewer)).playbooks.length > 0,
    });
  });
});
