import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { ConfigError, loadConfig, parseAllowedHosts } from '../../src/config';
import { identityFields } from '../../src/contract/common';
import { route } from '../../src/contract/route';
import { buildApp } from '../../src/http/app';
import { Metrics } from '../../src/http/metrics';
import { allowedHostPredicate, parseHost, requestGuard } from '../../src/http/request-guard';

/**
 * The HTTP layer's Host, Origin and media type checks (src/http/request-guard.ts) as functions,
 * and the answer to a body over the limit read back by real clients over real sockets: a 413 in the
 * envelope, never a reset (src/http/drain.ts).
 */

describe('LORE_ALLOWED_HOSTS', () => {
  it('takes names and addresses, normalised, with a leading dot for a domain and its subdomains', () => {
    const problems: string[] = [];
    assert.deepEqual(parseAllowedHosts(' lore-api, Lore.Example.com. ,.internal.example,10.0.0.5,::1,[fe80::1]', problems), [
      'lore-api',
      'lore.example.com',
      '.internal.example',
      '10.0.0.5',
      '[::1]',
      '[fe80::1]',
    ]);
    assert.deepEqual(problems, []);
  });

  it('refuses schemes, ports, paths and wildcards, naming the entry', () => {
    for (const bad of ['http://lore', 'lore:3001', 'lore/x', '*', '*.example.com', 'a b', 'user@lore']) {
      const problems: string[] = [];
      parseAllowedHosts(bad, problems);
      assert.equal(problems.length, 1, bad);
      assert.match(problems[0]!, /LORE_ALLOWED_HOSTS: .* is not a host name/);
    }
    assert.throws(
      () => loadConfig({ LORE_ALLOWED_HOSTS: 'http://lore-api:3001' }),
      (err: unknown) => err instanceof ConfigError && /LORE_ALLOWED_HOSTS/.test(err.message),
    );
    assert.deepEqual(loadConfig({ LORE_ALLOWED_HOSTS: 'lore-api' }).allowedHosts, ['lore-api']);
    assert.deepEqual(loadConfig({}).allowedHosts, []);
    assert.equal(loadConfig({}).requireToken, false);
    assert.equal(loadConfig({ LORE_REQUIRE_TOKEN: 'true' }).requireToken, true);
  });
});

describe('which Host names are answered', () => {
  it('parses Host headers as a browser sends them', () => {
    assert.deepEqual(parseHost('LocalHost:3001'), { hostname: 'localhost', port: '3001' });
    assert.deepEqual(parseHost('[::1]:3001'), { hostname: '[::1]', port: '3001' });
    assert.deepEqual(parseHost('localhost.'), { hostname: 'localhost', port: '' });
    for (const bad of ['', 'a b', 'evil.example/x', 'user@127.0.0.1', 'x:99999']) assert.equal(parseHost(bad), null, bad);
  });

  it('loopback bind: the loopback names only, plus what LORE_ALLOWED_HOSTS adds', () => {
    const ok = allowedHostPredicate({ bindHost: '127.0.0.1', allowedHosts: ['lore.test', '.corp.example'] });
    for (const h of ['localhost', '127.0.0.1', '[::1]', 'lore.test', 'corp.example', 'a.b.corp.example']) assert.equal(ok(h), true, h);
    for (const h of ['evil.example', 'localhost.evil.example', 'evilcorp.example', '10.0.0.5', 'lore.test.evil.example']) assert.equal(ok(h), false, h);
  });

  it('an address bind adds that address; a wildcard bind adds the machine’s own addresses', () => {
    assert.equal(allowedHostPredicate({ bindHost: '10.1.2.3', allowedHosts: [] })('10.1.2.3'), true);
    assert.equal(allowedHostPredicate({ bindHost: '10.1.2.3', allowedHosts: [] })('10.1.2.4'), false);
    const any = allowedHostPredicate({ bindHost: '0.0.0.0', allowedHosts: [] });
    assert.equal(any('127.0.0.1'), true);
    assert.equal(any('evil.example'), false);
    assert.equal(any('203.0.113.77'), false, 'an address of no interface of this machine');
  });
});

describe('the guard', () => {
  const guard = requestGuard({ bindHost: '127.0.0.1', allowedHosts: ['lore.test'] });
  const json = { 'content-type': 'application/json', 'content-length': '2' };
  const code = (req: { method: string; headers: Record<string, string> }) => guard(req)?.code ?? null;

  it('refuses a rebinding Host (421 host_not_allowed, saying how to allow a name)', () => {
    const err = guard({ method: 'POST', headers: { host: 'evil.example:3101', ...json } })!;
    assert.equal(err.code, 'host_not_allowed');
    assert.equal(err.status, 421);
    assert.match(err.message, /LORE_ALLOWED_HOSTS/);
    assert.deepEqual(err.details, { host: 'evil.example:3101', setting: 'LORE_ALLOWED_HOSTS' });
    assert.equal(code({ method: 'GET', headers: { host: 'evil.example' } }), 'host_not_allowed');
    assert.equal(code({ method: 'GET', headers: { host: 'a b' } }), 'host_not_allowed');
    assert.equal(code({ method: 'GET', headers: { host: 'localhost:3001' } }), null);
    assert.equal(code({ method: 'GET', headers: { host: 'lore.test' } }), null);
    assert.equal(code({ method: 'GET', headers: {} }), null, 'no Host header: not a browser (HTTP/1.0 tools)');
  });

  it('refuses any Origin but the page’s own (403 origin_not_allowed)', () => {
    const from = (origin: string, host = '127.0.0.1:3001') => code({ method: 'POST', headers: { host, origin, ...json } });
    assert.equal(from('http://127.0.0.1:3001'), null, 'the inspector');
    assert.equal(from('http://LOCALHOST:3001', 'localhost:3001'), null);
    assert.equal(from('https://lore.test', 'lore.test'), null, 'default ports compare equal');
    assert.equal(from('https://lore.test', '127.0.0.1:3001'), null, 'a listed name behind a proxy that rewrites Host');
    for (const o of ['https://evil.example', 'http://127.0.0.1:5173', 'http://localhost:3001', 'null', 'file://', 'chrome-extension://abc', 'not a url']) {
      assert.equal(from(o), 'origin_not_allowed', o);
    }
    assert.equal(code({ method: 'POST', headers: { origin: 'http://127.0.0.1:3001', ...json } }), 'origin_not_allowed', 'an Origin without a Host to compare with');
    assert.equal(code({ method: 'GET', headers: { host: '127.0.0.1:3001', origin: 'https://evil.example' } }), 'origin_not_allowed', 'GET too');
    // Listing localhost itself is how a local web tool on another port is let in (docs/security.md).
    const open = requestGuard({ bindHost: '127.0.0.1', allowedHosts: ['localhost'] });
    assert.equal(open({ method: 'POST', headers: { host: 'localhost:3001', origin: 'http://localhost:6274', ...json } }), null);
    assert.equal(open({ method: 'POST', headers: { host: 'localhost:3001', origin: 'http://127.0.0.1:6274', ...json } })?.code, 'origin_not_allowed');
  });

  it('without an Origin, refuses what a browser marks as coming from another site, except a top-level navigation', () => {
    const h = { host: '127.0.0.1:3001' };
    assert.equal(code({ method: 'GET', headers: { ...h, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' } }), 'origin_not_allowed', 'an <img> or <script>');
    assert.equal(code({ method: 'GET', headers: { ...h, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' } }), 'origin_not_allowed', 'another port of localhost');
    assert.equal(code({ method: 'GET', headers: { ...h, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } }), null, 'a link to the inspector');
    assert.equal(code({ method: 'POST', headers: { ...h, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', ...json } }), 'origin_not_allowed', 'a form post');
    assert.equal(code({ method: 'GET', headers: { ...h, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' } }), null);
    assert.equal(code({ method: 'GET', headers: { ...h, 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' } }), null, 'typed in the address bar');
  });

  it('takes only JSON bodies (415 unsupported_media_type): the forms a browser sends without a preflight never pass', () => {
    const post = (headers: Record<string, string>) => code({ method: 'POST', headers: { host: 'localhost', ...headers } });
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      'application/json-patch+json',
    ]) {
      assert.equal(post({ 'content-type': type, 'content-length': '10' }), 'unsupported_media_type', type);
    }
    assert.equal(post({ 'content-type': 'text/plain', 'content-length': '0' }), 'unsupported_media_type', 'an empty text/plain body too');
    assert.equal(post({ 'content-length': '10' }), 'unsupported_media_type', 'a body without a type');
    assert.equal(post({ 'transfer-encoding': 'chunked' }), 'unsupported_media_type');
    assert.equal(post({ 'content-type': 'application/json; charset=utf-8', 'content-length': '10' }), null);
    assert.equal(post({ 'content-type': 'Application/JSON', 'content-length': '10' }), null);
    assert.equal(post({}), null, 'no body at all (an empty POST is an empty request)');
    assert.equal(post({ 'content-length': '0' }), null);
    assert.equal(code({ method: 'GET', headers: { host: 'localhost', 'content-type': 'text/plain' } }), null, 'GET has no body to parse');
  });
});

const echo = route({
  name: 'test.echo',
  path: '/v1/test/echo',
  summary: 'echo',
  input: z.object({ ...identityFields, n: z.number().int() }),
  output: z.object({ tenant_id: z.string(), scope: z.string(), n: z.number() }),
});
const LIMIT = 64 * 1024;

describe('a body over the limit over a real socket: the 413 envelope is read back, never a reset', () => {
  const app = buildApp({
    routes: { 'test.echo': echo },
    handlers: { 'test.echo': async (input: { n: number }) => ({ n: input.n }) },
    bodyLimit: LIMIT,
    apiKeys: [],
    validateResponses: true,
    metrics: new Metrics(),
    openapi: () => ({}),
    log: { info() {}, warn() {}, error() {} },
    guard: { bindHost: '127.0.0.1', allowedHosts: [] },
  });
  let port = 0;
  before(async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  after(() => app.close());

  /** node:http, writing the body in pieces with pauses (a client still sending when the answer comes). */
  function slowPost(size: number, headers: Record<string, string | number>, path = '/v1/test/echo'): Promise<{ status: number; body: string } | { error: string }> {
    return new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
      const piece = Buffer.alloc(256 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        if (sent >= size) return void req.end();
        sent += piece.length;
        req.write(piece);
        setTimeout(pump, 2);
      };
      pump();
    });
  }

  const assertTooLarge = (r: { status: number; body: string } | { error: string }, what: string) => {
    assert.ok('status' in r, `${what}: ${'error' in r ? r.error : ''} instead of an answer`);
    assert.equal(r.status, 413, what);
    const env = JSON.parse(r.body);
    assert.equal(env.error.code, 'payload_too_large');
    assert.equal(env.error.details.limit_bytes, LIMIT);
  };

  it('8 MB with a content-length, sent slowly, ten times: a 413 every time (EPIPE on about one in five before)', async () => {
    for (let i = 0; i < 10; i++) assertTooLarge(await slowPost(8 * 1024 * 1024, { 'content-type': 'application/json', 'content-length': 8 * 1024 * 1024 }), `try ${i}`);
  });

  it('8 MB chunked (no length: found too large while reading)', async () => {
    for (let i = 0; i < 5; i++) assertTooLarge(await slowPost(8 * 1024 * 1024, { 'content-type': 'application/json' }), `try ${i}`);
  });

  it('8 MB refused before it is read (text/plain) or sent to an unknown route is answered too', async () => {
    const plain = await slowPost(8 * 1024 * 1024, { 'content-type': 'text/plain', 'content-length': 8 * 1024 * 1024 });
    assert.ok('status' in plain, JSON.stringify(plain));
    assert.equal(plain.status, 415);
    const nowhere = await slowPost(8 * 1024 * 1024, { 'content-type': 'application/json', 'content-length': 8 * 1024 * 1024 }, '/v1/no/such/route');
    assert.ok('status' in nowhere, JSON.stringify(nowhere));
    assert.equal(nowhere.status, 413, 'the not-found handler reads bodies too, under the same limit');
  });

  it('fetch (undici) with an 8 MB body reads the 413 too', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/test/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(8 * 1024 * 1024, 'a'),
      });
      assert.equal(res.status, 413);
      assert.equal(((await res.json()) as any).error.code, 'payload_too_large');
    }
  });

  it('a request line over Node’s header limit gets 431 headers_too_large in the envelope, not a reset, and the next request is served', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const get = (path: string) =>
        new Promise<{ status: number; body: string; connection?: string } | { error: string }>((resolve) => {
          http
            .get({ host: '127.0.0.1', port, path, agent }, (res) => {
              let body = '';
              res.on('data', (c) => (body += c));
              res.on('end', () => resolve({ status: res.statusCode!, body, connection: res.headers.connection }));
            })
            .on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
        });
      for (let i = 0; i < 5; i++) {
        const r = await get(`/v1/test/echo?n=1&pad=${'x'.repeat(70_000)}`);
        assert.ok('status' in r, `try ${i}: ${JSON.stringify(r)}`);
        assert.equal(r.status, 431);
        const env = JSON.parse(r.body);
        assert.equal(env.error.code, 'headers_too_large');
        assert.equal(env.error.details.limit_bytes, http.maxHeaderSize);
        assert.equal(r.connection, 'close', 'the client does not reuse the connection');
        const after = await get('/no/such/path');
        assert.ok('status' in after, `after ${i}: ${JSON.stringify(after)}`);
        assert.equal(after.status, 404);
      }
    } finally {
      agent.destroy();
    }
  });

  /**
   * A raw TCP connection to the app: what it received, the first socket error (EPIPE, ECONNRESET),
   * and `closed`, which settles when the server has closed it (bounded, so a stuck connection
   * fails the test instead of stalling the suite: not a timing assertion).
   */
  async function rawConnection() {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const seen = { received: '', failure: null as string | null };
    socket.on('data', (c) => (seen.received += c));
    socket.on('error', (e: NodeJS.ErrnoException) => (seen.failure = e.code ?? e.message));
    let timer: NodeJS.Timeout | undefined;
    const closed = Promise.race([
      new Promise((r) => socket.once('close', r)),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the connection neither answered nor closed: ${seen.received.slice(0, 200)}`)), 60_000))),
    ]).finally(() => {
      clearTimeout(timer);
      socket.destroy();
    });
    return { socket, seen, closed };
  }

  it('bytes that are not HTTP get a 400 envelope and a clean close', async () => {
    const { socket, seen, closed } = await rawConnection();
    socket.write('\u0000\u0001 this is not http at all\r\n\r\n');
    socket.write(Buffer.alloc(256 * 1024, 'z'));
    await closed;
    assert.equal(seen.failure, null);
    assert.match(seen.received, /^HTTP\/1.1 400 /);
    assert.match(seen.received, /"code":"invalid_request"/);
  });

  it('over a raw socket: the whole answer, then a clean close (FIN, not RST)', async () => {
    const { socket, seen, closed } = await rawConnection();
    socket.write(`POST /v1/test/echo HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${4 * 1024 * 1024}\r\n\r\n`);
    const piece = Buffer.alloc(64 * 1024, 'a');
    for (let sent = 0; sent < 4 * 1024 * 1024 && !socket.destroyed && seen.failure === null; sent += piece.length) {
      if (!socket.write(piece)) await Promise.race([new Promise((r) => socket.once('drain', r)), closed.catch(() => {})]);
    }
    await closed;
    assert.equal(seen.failure, null);
    assert.match(seen.received, /^HTTP\/1.1 413/);
    assert.match(seen.received, /connection: close/i);
    assert.match(seen.received, /"code":"payload_too_large"/);
  });
});
