import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';

describe('GET /health, /openapi.json, /metrics (real MongoDB-compatible server and Temporal)', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ worker: true });
  });
  after(async () => api?.close());

  it('reports each dependency with mode and version, and the worker polling', async () => {
    // The worker registers its poller asynchronously; give it a moment on a slow machine.
    let res = await api.get('/health');
    for (let i = 0; i < 50 && res.body.dependencies.worker.status !== 'ok'; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      res = await api.get('/health');
    }
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ok');
    assert.equal(res.body.dependencies.mongodb.status, 'ok');
    assert.equal(res.body.dependencies.mongodb.mode, 'external');
    assert.match(res.body.dependencies.mongodb.version, /^\d+\.\d+/);
    assert.equal(res.body.dependencies.temporal.status, 'ok');
    assert.match(res.body.dependencies.temporal.version, /^1\.\d+/);
    assert.equal(res.body.dependencies.worker.status, 'ok');
    assert.ok(res.body.dependencies.worker.pollers >= 1);
  });

  it('says the worker is down, with a fix, when none polls', async () => {
    await api.stopWorker();
    // The server keeps a poller listed until its last poll ages out, so check the shape, not timing.
    const res = await api.get('/health');
    assert.equal(res.status, 200);
    assert.ok(['ok', 'down'].includes(res.body.dependencies.worker.status));
    await api.startWorker();
  });

  it('serves an OpenAPI 3.1 document covering every contract route', async () => {
    const { routes, pathsOf } = await import('../../src/contract');
    const { openApiPath } = await import('../../src/contract/openapi');
    const res = await api.get('/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    for (const def of Object.values(routes)) {
      for (const { method, path } of pathsOf(def)) {
        assert.ok(res.body.paths[openApiPath(path)]?.[method.toLowerCase()], `missing ${method} ${path}`);
      }
    }
  });

  it('serves Prometheus metrics including requests just made', async () => {
    await api.get('/health');
    const res = await api.get('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.body, /lore_http_requests_total\{method="GET",route="\/health",status="200"\} \d+/);
    assert.match(res.body, /# TYPE lore_workflow_starts_total counter/);
  });
});
