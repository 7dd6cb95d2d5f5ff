import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { BoundedText, CallerId, identityFields } from '../../src/contract/common';
import { LoreError } from '../../src/contract/errors';
import { route } from '../../src/contract/route';
import type { CallContext } from '../../src/contract/handlers';
import { buildApp } from '../../src/http/app';
import { Metrics } from '../../src/http/metrics';

const echo = route({
  name: 'test.echo',
  path: '/v1/test/echo',
  aliases: ['/v1/test/echo-alias'],
  summary: 'echo',
  input: z.object({ ...identityFields, n: z.number().int(), id: CallerId.optional(), text: BoundedText(1024).optional(), kind: z.enum(['a', 'b']).default('a') }),
  output: z.object({ tenant_id: z.string(), scope: z.string(), n: z.number(), kind: z.string() }),
});
/** A route with a closed object (a patch) and a GET alias with a path parameter. */
const patchy = route({
  name: 'test.patchy',
  path: '/v1/test/patchy',
  aliases: [{ method: 'GET', path: '/v1/test/things/:thing_id/patchy' }],
  summary: 'closed patch',
  input: z.object({
    ...identityFields,
    thing_id: z.string().optional(),
    limit: z.number().int().default(5),
    full: z.boolean().default(false),
    tags: z.array(z.string()).optional(),
    patch: z.strictObject({ name: z.string().optional(), steps: z.array(z.strictObject({ op: z.string() })).optional() }).optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  }),
  output: z.object({ tenant_id: z.string(), scope: z.string(), got: z.record(z.string(), z.unknown()) }),
});

const fail = route({
  name: 'test.fail',
  path: '/v1/test/fail',
  summary: 'throws',
  input: z.object({ ...identityFields, how: z.enum(['lore', 'bug', 'bad-output']) }),
  output: z.object({ tenant_id: z.string(), scope: z.string(), ok: z.boolean() }),
});

const wait = route({
  name: 'test.wait',
  path: '/v1/test/wait',
  summary: 'waits, then reports whether the caller went away',
  input: z.object({ ...identityFields, ms: z.number().int() }),
  output: z.object({ tenant_id: z.string(), scope: z.string(), aborted: z.boolean() }),
});

/** What test.wait saw: ctx.signal.aborted when it finished waiting. */
const waited: boolean[] = [];

const errors: unknown[] = [];
function makeApp(opts: { apiKeys?: { key: string; tenant: string | null }[] } = {}) {
  return buildApp({
    routes: { 'test.echo': echo, 'test.fail': fail, 'test.wait': wait, 'test.patchy': patchy },
    handlers: {
      'test.patchy': async (input: Record<string, unknown>) => ({ got: input }),
      'test.echo': async (input: { n: number; kind: string }) => ({ n: input.n, kind: input.kind }),
      'test.fail': async (input: { how: string }) => {
        if (input.how === 'lore') throw new LoreError('invalid_state', 'run is ended', { state: 'ended' });
        if (input.how === 'bug') throw new TypeError('boom: secret internals');
        return { ok: 'yes' } as never;
      },
      'test.wait': async (input: { ms: number }, ctx: CallContext) => {
        // Waits `ms`, or until the caller disconnects when it is sooner.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, input.ms);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        waited.push(ctx.signal.aborted);
        return { aborted: ctx.signal.aborted };
      },
    },
    bodyLimit: 64 * 1024,
    apiKeys: opts.apiKeys ?? [],
    validateResponses: true,
    metrics: new Metrics(),
    openapi: () => ({}),
    log: { info() {}, warn() {}, error: (o: unknown) => errors.push(o) },
    guard: { bindHost: '127.0.0.1', allowedHosts: [] },
  });
}

const post = (app: ReturnType<typeof makeApp>, url: string, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url, payload: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { 'content-type': 'application/json', ...headers } });

function assertEnvelope(res: { statusCode: number; json(): any; headers: Record<string, unknown> }, status: number, code: string) {
  assert.equal(res.statusCode, status);
  const body = res.json();
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
  assert.equal(typeof body.error.retryable, 'boolean');
  assert.equal(typeof body.error.details, 'object');
  assert.equal(body.request_id, res.headers['x-request-id']);
  return body;
}

describe('HTTP contract', () => {
  it('applies defaults, echoes tenant and scope, accepts unknown top-level fields and lists them in warnings', async () => {
    const res = await post(makeApp(), '/v1/test/echo', { n: 1, unknown_field: { deep: true } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      tenant_id: 'default',
      scope: 'default',
      n: 1,
      kind: 'a',
      warnings: [{ code: 'unknown_field', field: 'unknown_field', message: "'unknown_field' is not a field of POST /v1/test/echo; it was ignored" }],
    });
    const clean = await post(makeApp(), '/v1/test/echo', { n: 1 });
    assert.equal(clean.json().warnings, undefined, 'no warnings key when nothing was ignored');
  });

  it('an unknown key inside a closed object is validation_failed naming the key and the accepted keys', async () => {
    const body = assertEnvelope(await post(makeApp(), '/v1/test/patchy', { patch: { name: 'x', step_patches: [] } }), 422, 'validation_failed');
    assert.deepEqual(body.error.details.issues, [
      { path: 'patch.step_patches', message: "unknown key 'step_patches' in patch; accepted: name, steps", key: 'step_patches', accepted: ['name', 'steps'] },
    ]);
    const nested = assertEnvelope(await post(makeApp(), '/v1/test/patchy', { patch: { steps: [{ op: 'a', at: 1 }] } }), 422, 'validation_failed');
    assert.equal(nested.error.details.issues[0].path, 'patch.steps.0.at');
    assert.deepEqual(nested.error.details.issues[0].accepted, ['op']);
    // A wrong type as well: the request does not parse, so it is invalid_request listing both.
    const mixed = assertEnvelope(await post(makeApp(), '/v1/test/patchy', { limit: 'x', patch: { nope: 1 } }), 400, 'invalid_request');
    assert.deepEqual(mixed.error.details.issues.map((i: { path: string }) => i.path).sort(), ['limit', 'patch.nope']);
    // Records stay open: any key is data there.
    assert.equal((await post(makeApp(), '/v1/test/patchy', { meta: { anything: 1 } })).statusCode, 200);
  });

  it('a JSON null body is invalid_request, not an empty request', async () => {
    const body = assertEnvelope(await post(makeApp(), '/v1/test/patchy', 'null'), 400, 'invalid_request');
    assert.match(body.error.message, /not null/);
  });

  it('nesting deeper than the documented limit is invalid_request, never 500', async () => {
    // Written as text: JSON.stringify of 10,000 levels would overflow this test's own stack.
    const deep = `{"meta": ${'{"d":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    const body = assertEnvelope(await post(makeApp(), '/v1/test/patchy', deep), 400, 'invalid_request');
    assert.equal(body.error.details.limit_depth, 64);
    let fine: unknown = 1;
    for (let i = 0; i < 60; i++) fine = { d: fine };
    assert.equal((await post(makeApp(), '/v1/test/patchy', { meta: fine })).statusCode, 200);
  });

  it('a __proto__ key anywhere is invalid_request', async () => {
    assertEnvelope(await post(makeApp(), '/v1/test/patchy', '{"meta": {"__proto__": {"polluted": true}}}'), 400, 'invalid_request');
    assertEnvelope(await post(makeApp(), '/v1/test/patchy', '{"__proto__": {"n": 1}}'), 400, 'invalid_request');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('a GET alias reads the query string as the request, typed as the fields expect, with path parameters', async () => {
    const res = await makeApp().inject({ method: 'GET', url: '/v1/test/things/t-1/patchy?limit=7&full=true&tags=a&scope=repo&include_meta=true' });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.scope, 'repo');
    assert.deepEqual({ thing_id: body.got.thing_id, limit: body.got.limit, full: body.got.full, tags: body.got.tags }, { thing_id: 't-1', limit: 7, full: true, tags: ['a'] });
    assert.deepEqual(
      body.warnings.map((w: { field: string }) => w.field),
      ['include_meta'],
    );
    assertEnvelope(await makeApp().inject({ method: 'GET', url: '/v1/test/things/t-1/patchy?limit=many' }), 400, 'invalid_request');
  });

  it('serves aliases exactly like the canonical path', async () => {
    const res = await post(makeApp(), '/v1/test/echo-alias', { n: 2, tenant_id: 'acme', scope: 'repo' });
    assert.deepEqual(res.json(), { tenant_id: 'acme', scope: 'repo', n: 2, kind: 'a' });
  });

  it('malformed JSON is invalid_request, never 500', async () => {
    assertEnvelope(await post(makeApp(), '/v1/test/echo', '{"n": 1,'), 400, 'invalid_request');
  });

  it('wrong types, missing fields and bad enums list every issue with its path', async () => {
    const body = assertEnvelope(await post(makeApp(), '/v1/test/echo', { kind: 'c', tenant_id: '!bad' }), 400, 'invalid_request');
    const paths = body.error.details.issues.map((i: { path: string }) => i.path).sort();
    assert.deepEqual(paths, ['kind', 'n', 'tenant_id']);
    const wrongType = assertEnvelope(await post(makeApp(), '/v1/test/echo', { n: 'one' }), 400, 'invalid_request');
    assert.equal(wrongType.error.details.issues[0].path, 'n');
  });

  it('bad caller ids are rejected', async () => {
    const body = assertEnvelope(await post(makeApp(), '/v1/test/echo', { n: 1, id: 'has space' }), 400, 'invalid_request');
    assert.equal(body.error.details.issues[0].path, 'id');
  });

  it('a JSON array or scalar body is invalid_request', async () => {
    assertEnvelope(await post(makeApp(), '/v1/test/echo', [1, 2]), 400, 'invalid_request');
    assertEnvelope(await post(makeApp(), '/v1/test/echo', '42'), 400, 'invalid_request');
  });

  it('an empty body reports the missing fields', async () => {
    const body = assertEnvelope(await post(makeApp(), '/v1/test/echo', ''), 400, 'invalid_request');
    assert.equal(body.error.details.issues[0].path, 'n');
  });

  it('a non-JSON content type is unsupported_media_type', async () => {
    const res = await makeApp().inject({ method: 'POST', url: '/v1/test/echo', payload: 'n=1', headers: { 'content-type': 'text/plain' } });
    const body = assertEnvelope(res, 415, 'unsupported_media_type');
    assert.deepEqual(body.error.details.accepted, ['application/json']);
  });

  it('a body over the limit is payload_too_large', async () => {
    const big = JSON.stringify({ n: 1, pad: 'x'.repeat(5 * 1024 * 1024) });
    const body = assertEnvelope(await post(makeApp(), '/v1/test/echo', big), 413, 'payload_too_large');
    assert.match(body.error.message, /LORE_BODY_LIMIT/);
  });

  it('a field over its byte limit is payload_too_large, multi-byte text counted in bytes', async () => {
    const body = assertEnvelope(await post(makeApp(), '/v1/test/echo', { n: 1, text: 'é'.repeat(600) }), 413, 'payload_too_large');
    assert.equal(body.error.details.issues[0].path, 'text');
    assert.equal((await post(makeApp(), '/v1/test/echo', { n: 1, text: 'é'.repeat(500) })).statusCode, 200);
  });

  it('unknown routes and methods are not_found with the envelope', async () => {
    const body = assertEnvelope(await post(makeApp(), '/v1/nope', {}), 404, 'not_found');
    assert.match(body.error.message, /POST \/v1\/nope/);
    assertEnvelope(await makeApp().inject({ method: 'GET', url: '/v1/test/echo' }), 404, 'not_found');
  });

  it('domain errors keep their code, status and details', async () => {
    const body = assertEnvelope(await post(makeApp(), '/v1/test/fail', { how: 'lore' }), 409, 'invalid_state');
    assert.deepEqual(body.error.details, { state: 'ended' });
    assert.equal(body.error.retryable, false);
  });

  it('a bug is a generic 500 internal; the cause is logged, not leaked', async () => {
    errors.length = 0;
    const body = assertEnvelope(await post(makeApp(), '/v1/test/fail', { how: 'bug' }), 500, 'internal');
    assert.doesNotMatch(body.error.message, /secret internals/);
    assert.equal(errors.length, 1);
  });

  it('a response that breaks its own contract is caught when validation is on', async () => {
    errors.length = 0;
    assertEnvelope(await post(makeApp(), '/v1/test/fail', { how: 'bad-output' }), 500, 'internal');
    assert.equal(errors.length, 1);
  });

  it('echoes a caller x-request-id and generates one otherwise', async () => {
    const mine = await post(makeApp(), '/v1/test/echo', { n: 1 }, { 'x-request-id': 'req-42' });
    assert.equal(mine.headers['x-request-id'], 'req-42');
    const generated = await post(makeApp(), '/v1/test/echo', { n: 1 });
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  it('API keys: missing is unauthorized, a key bound to another tenant is forbidden', async () => {
    const app = makeApp({
      apiKeys: [
        { key: 'k-any', tenant: null },
        { key: 'k-acme', tenant: 'acme' },
      ],
    });
    assertEnvelope(await post(app, '/v1/test/echo', { n: 1 }), 401, 'unauthorized');
    assertEnvelope(await post(app, '/v1/test/echo', { n: 1 }, { authorization: 'Bearer wrong' }), 401, 'unauthorized');
    assertEnvelope(await post(app, '/v1/test/echo', { n: 1, tenant_id: 'other' }, { authorization: 'Bearer k-acme' }), 403, 'forbidden');
    assert.equal((await post(app, '/v1/test/echo', { n: 1, tenant_id: 'acme' }, { authorization: 'Bearer k-acme' })).statusCode, 200);
    assert.equal((await post(app, '/v1/test/echo', { n: 1, tenant_id: 'other' }, { authorization: 'Bearer k-any' })).statusCode, 200);
  });

  it('metrics count requests per route and status', async () => {
    const app = makeApp();
    await post(app, '/v1/test/echo', { n: 1 });
    await post(app, '/v1/test/echo', { n: 'x' });
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(text, /lore_http_requests_total\{method="POST",route="\/v1\/test\/echo",status="200"\} 1/);
    assert.match(text, /lore_http_requests_total\{method="POST",route="\/v1\/test\/echo",status="400"\} 1/);
    assert.match(text, /lore_http_request_duration_seconds_count\{method="POST",route="\/v1\/test\/echo"\} 2/);
  });

  it('ctx.signal aborts only when the caller goes away, not once the request body is read', async () => {
    const app = makeApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const send = (ms: number, hangUpAfterMs?: number) =>
        new Promise<{ status: number; body: string } | 'hung up'>((resolve, reject) => {
          const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/test/wait', headers: { 'content-type': 'application/json' } }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', (err) => (hangUpAfterMs === undefined ? reject(err) : resolve('hung up')));
          req.end(JSON.stringify({ ms }));
          if (hangUpAfterMs !== undefined) setTimeout(() => req.destroy(), hangUpAfterMs);
        });

      // A caller that waits for its answer: the handler never sees an abort (the request's own
      // 'close' fires as soon as its body is read, well before the answer).
      const answered = await send(150);
      assert.notEqual(answered, 'hung up');
      assert.equal((answered as { status: number }).status, 200);
      assert.deepEqual(JSON.parse((answered as { body: string }).body).aborted, false);

      // A caller that hangs up mid-request: the handler's signal aborts (long before its 30 s wait).
      waited.length = 0;
      assert.equal(await send(30_000, 100), 'hung up');
      for (let i = 0; i < 200 && waited.length === 0; i += 1) await new Promise((r) => setTimeout(r, 25));
      assert.deepEqual(waited, [true]);
    } finally {
      await app.close();
    }
  });
});
