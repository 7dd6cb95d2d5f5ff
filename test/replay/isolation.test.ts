/**
 * Isolation of every replay route: what one tenant+scope records, compiles, promotes or runs is
 * invisible to another tenant with the same scope name and to the same tenant in another scope.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertIsolated, type Identity } from '../helpers/isolation';
import { compile, hostRun, ok } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: false });
});
after(async () => {
  await api?.close();
});

const call = (path: string, who: Identity, body: Record<string, unknown>) => api.post(`/v1/memory/replay/${path}`, { ...who, ...body });
/** A stranger must get not_found; anything else but a success would be a broken check. */
const seen = (res: { status: number; body: any }, okStatuses = [200]) => {
  if (okStatuses.includes(res.status)) return true;
  assert.equal(res.status, 404, JSON.stringify(res.body));
  return false;
};

describe('replay isolation', () => {
  it('run/start: the same run_id in another scope is another run', async () => {
    await assertIsolated({
      what: 'run/start',
      seed: async (o) => void (await ok(api, '/v1/memory/replay/run/start', { run_id: 'iso-start', goal: 'owner goal' }, o)),
      sees: async (v) => {
        const r = await call('run/start', v, { run_id: 'iso-start', goal: 'a different goal' });
        assert.ok(r.status === 200 || r.status === 409, JSON.stringify(r.body));
        return r.status === 409; // a conflict means the viewer collided with the owner's run
      },
    });
  });

  it('step/before, step/after, run/end and runs/get', async () => {
    for (const route of ['step/before', 'step/after', 'run/end', 'runs/get'] as const) {
      const runId = `iso-${route.replace('/', '-')}`;
      await assertIsolated({
        what: route,
        seed: async (o) => {
          await ok(api, '/v1/memory/replay/run/start', { run_id: runId, goal: 'g' }, o);
          await ok(api, '/v1/memory/replay/step/before', { run_id: runId, step_index: 0, tool_name: 't', tool_input: { a: 1 } }, o);
        },
        sees: async (v) => {
          if (route === 'step/before') return seen(await call(route, v, { run_id: runId, step_index: 0, tool_name: 't', tool_input: { a: 1 } }));
          if (route === 'step/after') return seen(await call(route, v, { run_id: runId, step_index: 0, status: 'success' }));
          if (route === 'run/end') return seen(await call(route, v, { run_id: runId, status: 'success', summary: 's' }));
          return seen(await call(route, v, { run_id: runId }));
        },
      });
    }
  });

  it('compile_from_run, and playbook ids are per scope', async () => {
    await assertIsolated({
      what: 'compile_from_run',
      seed: async (o) => void (await hostRun(api, 'iso-compile', o)),
      sees: async (v) => seen(await call('playbooks/compile_from_run', v, { run_id: 'iso-compile', playbook_id: 'iso-compiled' })),
    });
  });

  it('get, candidate, promote, repair, repair/review, run and dispatch', async () => {
    const routes: [string, (pb: string) => Record<string, unknown>][] = [
      ['playbooks/get', (pb) => ({ playbook_id: pb })],
      ['playbooks/candidate', (pb) => ({ playbook_id: pb })],
      ['playbooks/promote', (pb) => ({ playbook_id: pb, target_status: 'shadow' })],
      ['playbooks/repair', (pb) => ({ playbook_id: pb, version: 1, patch: { name: 'renamed' } })],
      ['playbooks/repair/review', (pb) => ({ playbook_id: pb, version: 2, action: 'reject' })],
      ['playbooks/run', (pb) => ({ playbook_id: pb, version: 1, mode: 'simulate' })],
      ['playbooks/dispatch', (pb) => ({ playbook_id: pb, version: 1, mode: 'simulate' })],
    ];
    for (const [route, body] of routes) {
      const pb = `iso-pb-${route.replace(/\//g, '-')}`;
      await assertIsolated({
        what: route,
        seed: async (o) => {
          await hostRun(api, `${pb}-src`, o);
          await compile(api, `${pb}-src`, pb, {}, o);
          await ok(api, '/v1/memory/replay/playbooks/repair', { playbook_id: pb, version: 1, patch: { name: 'repaired' } }, o);
        },
        sees: async (v) => seen(await call(route, v, body(pb))),
      });
    }
  });

  it('the same playbook_id compiled in two scopes stays two playbooks', async () => {
    const a = { tenant_id: 'iso-tenant-a', scope: 'shared' };
    const b = { tenant_id: 'iso-tenant-b', scope: 'shared' };
    await hostRun(api, 'same-src', a);
    await hostRun(api, 'same-src', b);
    await compile(api, 'same-src', 'same-pb', { name: 'A' }, a);
    await compile(api, 'same-src', 'same-pb', { name: 'B' }, b);
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'same-pb', target_status: 'active' }, a);
    const ga = await ok(api, '/v1/memory/replay/playbooks/get', { playbook_id: 'same-pb' }, a);
    const gb = await ok(api, '/v1/memory/replay/playbooks/get', { playbook_id: 'same-pb' }, b);
    assert.equal(ga.playbook.name, 'A');
    assert.equal(gb.playbook.name, 'B');
    assert.equal(ga.active_version, 1);
    assert.equal(gb.active_version, null, "promoting A's playbook did not touch B's");
    assert.equal(ga.tenant_id, 'iso-tenant-a');
  });
});
