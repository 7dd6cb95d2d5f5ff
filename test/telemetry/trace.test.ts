/**
 * Tracing end to end: a real `lore start --role all` (the API, and the worker it runs as a child
 * process) with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in this process.
 * One automations/run must give one trace: the HTTP request's server span, the workflow start
 * under it, the workflow run, an activity, and store calls under the activity and under the
 * request, each linked to its parent. No attribute may carry a request body or memory text.
 * Then, in this process: with tracing off nothing of OpenTelemetry is loaded.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config';
import { silentLog } from '../../src/log';
import { startTestApi, type TestApi } from '../helpers/app';
import { LoreProcesses, type LoreChild } from '../helpers/lore-processes';
import { pollFor } from '../helpers/wait';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
  role: string;
}

/** An OTLP/HTTP (JSON) traces receiver: what a collector would get. */
function startReceiver() {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  const value = (v: Record<string, unknown>): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue;
  const attrs = (list: { key: string; value: Record<string, unknown> }[] = []) => Object.fromEntries(list.map((a) => [a.key, value(a.value)]));
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces' && String(req.headers['content-type']).includes('json')) {
        bodies.push(body);
        const msg = JSON.parse(body) as { resourceSpans: { resource: { attributes: any[] }; scopeSpans: { spans: any[] }[] }[] };
        for (const rs of msg.resourceSpans ?? []) {
          const resource = attrs(rs.resource?.attributes);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes: attrs(s.attributes),
                service: String(resource['service.name']),
                role: String(resource['lore.role']),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        res.writeHead(404).end();
      }
    });
  });
  return new Promise<{ url: string; spans: OtlpSpan[]; bodies: string[]; close(): Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, bodies, close: () => new Promise((r) => server.close(() => r())) }),
    ),
  );
}

const SECRET = 'zanzibar-quokka-7731 memory text that must never reach a span';

let api: TestApi;
let scratch = '';
let procs: LoreProcesses;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

before(async () => {
  receiver = await startReceiver();
  api = await startTestApi({ worker: false });
  scratch = mkdtempSync(join(tmpdir(), 'lore-trace-'));
  // 550000–559999: this file's sandbox uid block (docs/sandbox.md); its processes run no sandbox command.
  procs = new LoreProcesses({ api, dataDir: scratch, ids: { min: 550000, max: 559999 }, env: { SANDBOX_ENABLED: 'false' } });
});
after(async () => {
  procs?.killAll();
  await api?.close();
  await receiver?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function call(lore: LoreChild, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${lore.url!}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('tracing', () => {
  it('one automations/run is one trace: HTTP request → workflow start → workflow → activity → store calls', { timeout: 600_000 }, async () => {
    const lore = await procs.start('all', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'lore-trace-test' });
    const id = { tenant_id: 'acme', scope: 'traced' };
    // Memory text goes in; none of it may come out in a span.
    assert.equal((await call(lore, '/v1/memory/write', { ...id, input_text: SECRET, title: SECRET })).status, 200);
    assert.equal((await call(lore, '/v1/memory/recall_text', { ...id, query_text: 'zanzibar quokka' })).status, 200);
    const created = await call(lore, '/v1/automations/create', {
      ...id,
      automation_id: 'traced-check',
      name: SECRET.slice(0, 60),
      graph: { nodes: [{ node_id: 'check', kind: 'condition', condition: { left: 1, op: 'eq', right: 1 } }], edges: [] },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    // A caller's own trace context is continued: the request's span is a child of this one.
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const run = await call(lore, '/v1/automations/run', { ...id, automation_id: 'traced-check', run_id: 'traced-1' }, { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    await pollFor('the run to succeed', async () => (await call(lore, '/v1/automations/runs/get', { ...id, run_id: 'traced-1' })).body.run?.status === 'succeeded', 120_000, 200);

    // Spans arrive in batches (every few seconds, from both processes): wait for the whole chain.
    const byId = () => new Map(receiver.spans.map((s) => [s.spanId, s]));
    const chain = await pollFor(
      'the trace of the run',
      async () => {
        const spans = receiver.spans.filter((s) => s.traceId === callerTrace);
        const httpSpan = spans.find((s) => s.name === 'POST /v1/automations/run');
        const start = spans.find((s) => s.name.startsWith('StartWorkflow:'));
        const wf = spans.find((s) => s.name.startsWith('RunWorkflow:'));
        const activity = spans.find((s) => s.name === 'RunActivity:automationMirror');
        const activityStore = activity && spans.find((s) => s.parentSpanId === activity.spanId && s.attributes['db.system.name'] === 'mongodb');
        const requestStore = httpSpan && spans.find((s) => s.parentSpanId === httpSpan.spanId && s.attributes['db.system.name'] === 'mongodb');
        return httpSpan && start && wf && activity && activityStore && requestStore ? { httpSpan, start, wf, activity, activityStore, requestStore, spans } : null;
      },
      120_000,
      250,
    );
    const { httpSpan, start, wf, activity, activityStore, requestStore } = chain;
    const spans = byId();

    // The request: a server span continuing the caller's context, named and attributed per the HTTP conventions.
    assert.equal(httpSpan.parentSpanId, '00f067aa0ba902b7');
    assert.equal(httpSpan.kind, 2, 'SERVER');
    assert.equal(httpSpan.role, 'api');
    assert.equal(httpSpan.service, 'lore-trace-test');
    assert.equal(httpSpan.attributes['http.request.method'], 'POST');
    assert.equal(httpSpan.attributes['http.route'], '/v1/automations/run');
    assert.equal(httpSpan.attributes['url.path'], '/v1/automations/run');
    assert.equal(httpSpan.attributes['http.response.status_code'], 200);
    // The workflow start is the request's child; the workflow run the start's; the activity the workflow's (through StartActivity).
    assert.equal(start.parentSpanId, httpSpan.spanId);
    assert.equal(start.name, 'StartWorkflow:automationRunWorkflow');
    assert.equal(wf.parentSpanId, start.spanId);
    assert.equal(wf.role, 'worker', 'the workflow ran in the worker process');
    const scheduled = spans.get(activity.parentSpanId!);
    assert.ok(scheduled, 'the activity has a parent span in the trace');
    assert.equal(scheduled!.name, 'StartActivity:automationMirror');
    assert.equal(scheduled!.parentSpanId, wf.spanId);
    assert.equal(activity.role, 'worker');
    // Store calls: database client spans under the activity and under the request.
    for (const s of [activityStore, requestStore]) {
      assert.equal(s.kind, 3, 'CLIENT');
      assert.equal(s.name, `${s.attributes['db.operation.name']} ${s.attributes['db.collection.name']}`);
      assert.equal(s.attributes['db.namespace'], api.config.mongo.database);
      assert.equal(s.attributes['lore.tenant_id'], 'acme');
      assert.equal(s.attributes['lore.scope'], 'traced');
    }
    assert.match(String(activityStore.attributes['db.collection.name']), /^automation_run/);

    // Every span of the trace reaches the request's span through its parents.
    for (const s of chain.spans) {
      let cur: OtlpSpan | undefined = s;
      for (let hops = 0; cur && cur.spanId !== httpSpan.spanId && hops < 50; hops += 1) cur = spans.get(cur.parentSpanId ?? '');
      assert.ok(cur, `span ${s.name} is linked to the request (parent ${s.parentSpanId})`);
    }

    // The memory routes: gen_ai memory spans between the request and its store calls.
    const recall = await pollFor(
      'the recall span',
      async () => receiver.spans.find((s) => s.name === 'search_memory' && s.attributes['gen_ai.memory.store.id'] === 'acme/traced'),
      60_000,
      250,
    );
    assert.equal(recall.attributes['gen_ai.operation.name'], 'search_memory');
    assert.equal(recall.attributes['gen_ai.memory.record.count'], 1);
    assert.equal(recall.kind, 1, 'INTERNAL');
    assert.equal(spans.get(recall.parentSpanId!)?.name ?? byId().get(recall.parentSpanId!)?.name, 'POST /v1/memory/recall_text');
    const write = await pollFor('the write span', async () => receiver.spans.find((s) => s.name === 'upsert_memory'), 60_000, 250);
    assert.equal(write.attributes['gen_ai.memory.record.count'], 1);
    assert.ok(
      receiver.spans.some((s) => s.parentSpanId === write.spanId && s.attributes['db.collection.name'] === 'memory_nodes'),
      'the node insert is under the memory span',
    );

    // Nothing of what was written or asked reaches the collector.
    for (const body of receiver.bodies) {
      assert.ok(!body.includes('zanzibar') && !body.includes('quokka'), 'no request body or memory text in any span');
    }
  });
});

describe('tracing off', () => {
  it('loads nothing of OpenTelemetry; turned on, it does', async () => {
    const require = createRequire(import.meta.url);
    const loaded = () => Object.keys(require.cache).filter((p) => p.includes('@opentelemetry') || p.includes('interceptors-opentelemetry'));
    const { startTelemetry } = await import('../../src/telemetry/index');
    // This process assembled an API (startTestApi) and imports the worker module, as `lore start` does.
    await import('../../src/worker');
    assert.equal(await startTelemetry(loadConfig({ LORE_TRACING: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }), 'api', silentLog), null);
    assert.equal(await startTelemetry(loadConfig({}), 'api', silentLog), null);
    assert.deepEqual(loaded(), [], 'tracing off: no OpenTelemetry module is loaded');
    // The check can see them: on, they are there.
    const on = await startTelemetry(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }), 'api', silentLog);
    assert.ok(on);
    assert.ok(loaded().length > 0);
    await on.shutdown();
  });
});
