/**
 * Isolation per route (contract.md §1): what one tenant+scope stores is invisible to another tenant
 * with the same scope name and to the same tenant in another scope — by id, by listing, and by
 * the routes that act on a run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertIsolated, type Identity } from '../helpers/isolation';
import { branchGraph, createAutomation, makePlaybook, startRun, waitForPausedAt, waitForStatus } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

const quickGraph = { nodes: [{ node_id: 'c', kind: 'condition', condition: { left: 1, op: 'eq', right: 1 } }] };

describe('isolation', () => {
  it('automations/validate and graph/validate see only the playbooks of their own scope', async () => {
    const playbook_id = uniqueName('pb');
    const graph = { nodes: [{ node_id: 'p', kind: 'playbook', playbook_id, version: 1 }] };
    for (const path of ['/v1/automations/validate', '/v1/automations/graph/validate']) {
      await assertIsolated({
        what: path,
        seed: async (owner) => void (await makePlaybook(api, playbook_id, ['echo hi'], {}, owner)),
        sees: async (v) => (await api.post(path, { ...v, graph })).body.valid === true,
      });
    }
  });

  it('automations/get', async () => {
    const id = uniqueName('iso');
    await assertIsolated({
      what: 'automations/get',
      seed: async (owner) => void (await createAutomation(api, id, quickGraph, owner)),
      sees: async (v) => (await api.post('/v1/automations/get', { ...v, automation_id: id })).status === 200,
    });
  });

  it('automations/list', async () => {
    const id = uniqueName('iso');
    await assertIsolated({
      what: 'automations/list',
      seed: async (owner) => void (await createAutomation(api, id, quickGraph, owner)),
      sees: async (v) => (await api.post('/v1/automations/list', { ...v })).body.automations.some((a: { automation_id: string }) => a.automation_id === id),
    });
  });

  it('automations/create: the same id elsewhere is a new automation, not a conflict', async () => {
    const id = uniqueName('iso');
    await assertIsolated({
      what: 'automations/create',
      seed: async (owner) => void (await createAutomation(api, id, quickGraph, owner)),
      sees: async (v) => (await api.post('/v1/automations/create', { ...v, automation_id: id, graph: branchGraph('other content') })).status === 409,
    });
  });

  it('automations/status', async () => {
    const id = uniqueName('iso');
    await assertIsolated({
      what: 'automations/status',
      seed: async (owner) => void (await createAutomation(api, id, quickGraph, owner)),
      sees: async (v) => (await api.post('/v1/automations/status', { ...v, automation_id: id, status: 'active' })).status === 200,
    });
  });

  it('automations/run', async () => {
    const id = uniqueName('iso');
    await assertIsolated({
      what: 'automations/run',
      seed: async (owner) => void (await createAutomation(api, id, quickGraph, owner)),
      sees: async (v) => (await api.post('/v1/automations/run', { ...v, automation_id: id })).status === 200,
    });
  });

  it('runs/get and runs/list', async () => {
    const runId = uniqueName('run');
    const seed = async (owner: Identity) => {
      await createAutomation(api, 'a', quickGraph, owner);
      await startRun(api, 'a', {}, owner, { run_id: runId });
      await waitForStatus(api, runId, ['succeeded'], 60_000, owner);
    };
    await assertIsolated({ what: 'runs/get', seed, sees: async (v) => (await api.post('/v1/automations/runs/get', { ...v, run_id: runId })).status === 200 });
    await assertIsolated({
      what: 'runs/list',
      seed,
      sees: async (v) => (await api.post('/v1/automations/runs/list', { ...v })).body.runs.some((r: { run_id: string }) => r.run_id === runId),
    });
  });

  it('runs/resume and runs/cancel act only inside the run’s scope', async () => {
    const runId = uniqueName('run');
    const seedPaused = async (owner: Identity) => {
      await createAutomation(api, 'p', branchGraph('x'), owner);
      await startRun(api, 'p', {}, owner, { run_id: runId });
      await waitForPausedAt(api, runId, ['approve'], owner);
    };
    await assertIsolated({
      what: 'runs/resume',
      seed: seedPaused,
      sees: async (v) => {
        const r = await api.post('/v1/automations/runs/resume', { ...v, run_id: runId, reason: 'go' });
        assert.ok(r.status === 200 || r.status === 404, JSON.stringify(r.body));
        return r.status === 200;
      },
    });
    await assertIsolated({
      what: 'runs/cancel',
      seed: seedPaused,
      sees: async (v) => {
        const r = await api.post('/v1/automations/runs/cancel', { ...v, run_id: runId });
        assert.ok(r.status === 200 || r.status === 404, JSON.stringify(r.body));
        return r.status === 200;
      },
    });
  });
});
