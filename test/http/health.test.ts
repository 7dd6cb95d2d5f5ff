import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';

describe('GET /health, /openapi.json, /metrics (real MongoDB-compatible server and Temporal)', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ worker: true });
  });
  after(async () => api?.close());

  it('reports each dependency with mode and version, and the worker polling', async () => {
    // The worker registers its poller asynchronously; wait for it on a slow machine.
    const res = await pollFor('the worker to be polling', async () => {
      const r = await api.get('/health');
      return r.body.dependencies.worker.status === 'ok' && r;
    });
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
    // A stopped worker stays listed until its last poll ages out (70 s), so this asks about a task
    // queue of its own that no worker has ever polled: no waiting, and the answer can only be down.
    const idle = await startTestApi({ worker: false });
    try {
      const res = await idle.get('/health');
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'degraded');
      assert.equal(res.body.ok, true);
      assert.equal(res.body.dependencies.worker.status, 'down');
      assert.equal(res.body.dependencies.worker.pollers, 0);
      assert.equal(res.body.dependencies.worker.task_queue, idle.config.temporal.taskQueue);
      assert.match(res.body.dependencies.worker.detail, /lore start --role worker/);
      assert.equal(res.body.dependencies.mongodb.status, 'ok');
    } finally {
      await idle.close();
    }
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
