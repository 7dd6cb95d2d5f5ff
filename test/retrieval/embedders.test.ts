import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEmbedder, EmbeddingError, embedderConfigFrom } from '../../src/retrieval/embedders/index';

// The stub lives in the shared folder beside the repository (or where LORE_HASH_EMBEDDER says).
const HASH_EMBEDDER = [
  process.env.LORE_HASH_EMBEDDER,
  fileURLToPath(new URL('../../../shared/bench/hash-embedder.mjs', import.meta.url)),
  '/work/shared/bench/hash-embedder.mjs',
].find((p): p is string => Boolean(p) && fs.existsSync(p as string));

async function freePort(): Promise<number> {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

let child: ChildProcess | undefined;
let hashUrl = '';

// Where the shared stub is not beside the clone, a minimal OpenAI-compatible server of our own
// stands in (same protocol: POST /embeddings {model, input} -> {data: [{index, embedding}]}).
const INLINE_STUB = `
import http from "node:http";
const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
const dim = Number(process.argv[process.argv.indexOf("--dim") + 1]);
const embed = (t) => { const v = new Array(dim).fill(0); for (const w of String(t).toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)) { let h = 0; for (const c of w) h = (h * 31 + c.charCodeAt(0)) >>> 0; v[h % dim] += 1; } const n = Math.hypot(...v) || 1; return v.map((x) => x / n); };
http.createServer((req, res) => { const b = []; req.on("data", (c) => b.push(c)); req.on("end", () => {
  if (req.method !== "POST" || !["/embeddings", "/v1/embeddings"].includes(req.url)) { res.writeHead(404).end("{}"); return; }
  const body = JSON.parse(Buffer.concat(b).toString()); const input = Array.isArray(body.input) ? body.input : [body.input];
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: input.map((t, index) => ({ object: "embedding", index, embedding: embed(t) })) }));
}); }).listen(port, "127.0.0.1", () => process.stderr.write("hash-embedder on " + port + "\\n"));
`;

before(async () => {
  const port = await freePort();
  const script = HASH_EMBEDDER ? [HASH_EMBEDDER] : ['--input-type=module', '-e', INLINE_STUB, '--'];
  child = spawn(process.execPath, [...script, '--port', String(port), '--dim', '64'], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('hash-embedder did not start')), 10_000);
    child!.stderr!.on('data', (d: Buffer) => {
      if (String(d).includes('hash-embedder on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child!.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hash-embedder exited ${code}`));
    });
  });
  hashUrl = `http://127.0.0.1:${port}`;
});

after(() => {
  child?.removeAllListeners('exit');
  child?.kill('SIGTERM');
});

interface Fake {
  url: string;
  requests: unknown[];
  close: () => Promise<void>;
}

/** A local HTTP server whose handler decides each answer. */
async function fakeServer(handler: (body: any, n: number, res: http.ServerResponse) => void): Promise<Fake> {
  const requests: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      requests.push({ url: req.url, body, auth: req.headers.authorization });
      handler(body, requests.length, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const json = (res: http.ServerResponse, status: number, obj: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
};

const cos = (a: Float32Array, b: Float32Array): number => {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    d += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return d / Math.sqrt(na * nb);
};

test('none gives no embedder; env config is parsed and validated', async () => {
  assert.equal(await createEmbedder({ provider: 'none' }), null);
  assert.deepEqual(embedderConfigFrom({ provider: 'none', url: null, model: null, apiKey: null }), { provider: 'none' });
  const c = embedderConfigFrom({ provider: 'openai', url: 'http://x/v1', model: null, apiKey: 'k' });
  assert.deepEqual(c, { provider: 'openai', baseUrl: 'http://x/v1', apiKey: 'k' });
  await assert.rejects(createEmbedder({ provider: 'magic' as never }), EmbeddingError);
});

test('openai client against the hash-embedder stub: vectors, order, batching', async () => {
  const e = await createEmbedder({ provider: 'openai', baseUrl: hashUrl, model: 'hash', batchSize: 2 });
  assert.ok(e);
  const texts = ['retry backoff in payments', 'pagination cursor bug', 'retry backoff for payments client', 'lunch', 'bug: cursor pagination'];
  const v = await e.embed(texts);
  assert.equal(v.length, 5);
  assert.equal(e.dim, 64);
  for (const x of v) assert.equal(x.length, 64);
  assert.ok(cos(v[0]!, v[2]!) > cos(v[0]!, v[3]!), 'lexically similar texts are closer');
  assert.ok(cos(v[1]!, v[4]!) > 0.99, 'same bag of words');
  assert.deepEqual(await e.embed([]), []);
});

test('openai client: sends model, auth, dimensions; honours data[].index order', async () => {
  const fake = await fakeServer((body, _n, res) => {
    const rows = (body.input as string[]).map((t, i) => ({ index: i, embedding: [t.length, i] })).reverse();
    json(res, 200, { data: rows });
  });
  try {
    const e = (await createEmbedder({ provider: 'openai', baseUrl: `${fake.url}/v1/`, model: 'm1', apiKey: 'sk-test', dimensions: 2 }))!;
    const v = await e.embed(['a', 'bbb']);
    assert.deepEqual([...v[0]!], [1, 0]);
    assert.deepEqual([...v[1]!], [3, 1]);
    const req = fake.requests[0] as { url: string; body: any; auth: string };
    assert.equal(req.url, '/v1/embeddings');
    assert.deepEqual(req.body, { model: 'm1', input: ['a', 'bbb'], dimensions: 2 });
    assert.equal(req.auth, 'Bearer sk-test');
  } finally {
    await fake.close();
  }
});

test('openai client: HTTP 500 is retried, then a clear error', async () => {
  const fake = await fakeServer((_b, _n, res) => json(res, 500, { error: { message: 'boom' } }));
  try {
    const e = (await createEmbedder({ provider: 'openai', baseUrl: fake.url, retries: 2 }))!;
    await assert.rejects(e.embed(['x']), (err: unknown) => {
      assert.ok(err instanceof EmbeddingError);
      assert.equal(err.code, 'http');
      assert.equal(err.status, 500);
      assert.match(err.message, /HTTP 500.*boom/);
      return true;
    });
    assert.equal(fake.requests.length, 3, '1 try + 2 retries');
  } finally {
    await fake.close();
  }
});

test('openai client: a 500 followed by success recovers; 400 is not retried', async () => {
  const flaky = await fakeServer((body, n, res) =>
    n === 1 ? json(res, 503, {}) : json(res, 200, { data: (body.input as string[]).map((_, i) => ({ index: i, embedding: [1, 2] })) }),
  );
  const bad = await fakeServer((_b, _n, res) => json(res, 400, { error: 'bad model' }));
  try {
    const e = (await createEmbedder({ provider: 'openai', baseUrl: flaky.url }))!;
    assert.equal((await e.embed(['x'])).length, 1);
    assert.equal(flaky.requests.length, 2);
    const e2 = (await createEmbedder({ provider: 'openai', baseUrl: bad.url, retries: 3 }))!;
    await assert.rejects(e2.embed(['x']), (err: unknown) => err instanceof EmbeddingError && err.status === 400);
    assert.equal(bad.requests.length, 1);
  } finally {
    await flaky.close();
    await bad.close();
  }
});

test('openai client: timeout gives a timeout error', async () => {
  const slow = await fakeServer(() => {
    /* never answers */
  });
  try {
    const e = (await createEmbedder({ provider: 'openai', baseUrl: slow.url, timeoutMs: 150, retries: 1 }))!;
    const t0 = Date.now();
    await assert.rejects(e.embed(['x']), (err: unknown) => err instanceof EmbeddingError && err.code === 'timeout' && /150 ms/.test(err.message));
    assert.ok(Date.now() - t0 < 5000);
    assert.equal(slow.requests.length, 2);
  } finally {
    await slow.close();
  }
});

test('openai client: malformed responses and unreachable hosts', async () => {
  const junk = await fakeServer((_b, n, res) => (n === 1 ? json(res, 200, { nope: true }) : json(res, 200, { data: [{ index: 0, embedding: ['a'] }] })));
  try {
    const e = (await createEmbedder({ provider: 'openai', baseUrl: junk.url }))!;
    await assert.rejects(e.embed(['x']), (err: unknown) => err instanceof EmbeddingError && err.code === 'bad_response');
    await assert.rejects(e.embed(['x']), (err: unknown) => err instanceof EmbeddingError && err.code === 'bad_response');
  } finally {
    await junk.close();
  }
  const port = await freePort();
  const e = (await createEmbedder({ provider: 'openai', baseUrl: `http://127.0.0.1:${port}`, retries: 0 }))!;
  await assert.rejects(e.embed(['x']), (err: unknown) => err instanceof EmbeddingError && err.code === 'network');
});

test('ollama client against a local /api/embed server', async () => {
  const fake = await fakeServer((body, _n, res) => {
    if (body.model !== 'nomic-embed-text') return json(res, 404, { error: `model "${body.model}" not found` });
    json(res, 200, { model: body.model, embeddings: (body.input as string[]).map((t) => [t.length, 1, 0]) });
  });
  try {
    const e = (await createEmbedder({ provider: 'ollama', baseUrl: fake.url, batchSize: 2 }))!;
    const v = await e.embed(['a', 'bb', 'ccc']);
    assert.deepEqual(
      v.map((x) => x[0]),
      [1, 2, 3],
    );
    assert.equal(e.dim, 3);
    assert.equal(fake.requests.length, 2, 'batched 2 + 1');
    assert.equal((fake.requests[0] as { url: string }).url, '/api/embed');
    const wrong = (await createEmbedder({ provider: 'ollama', baseUrl: fake.url, model: 'nope' }))!;
    await assert.rejects(wrong.embed(['a']), (err: unknown) => err instanceof EmbeddingError && err.status === 404 && /not found/.test(err.message));
  } finally {
    await fake.close();
  }
});

test('ollama client: 500 and timeout', async () => {
  const broken = await fakeServer((_b, _n, res) => json(res, 500, { error: 'llama runner crashed' }));
  const slow = await fakeServer(() => {});
  try {
    const e = (await createEmbedder({ provider: 'ollama', baseUrl: broken.url, retries: 1 }))!;
    await assert.rejects(e.embed(['a']), (err: unknown) => err instanceof EmbeddingError && err.status === 500 && /crashed/.test(err.message));
    assert.equal(broken.requests.length, 2);
    const s = (await createEmbedder({ provider: 'ollama', baseUrl: slow.url, timeoutMs: 100, retries: 0 }))!;
    await assert.rejects(s.embed(['a']), (err: unknown) => err instanceof EmbeddingError && err.code === 'timeout');
  } finally {
    await broken.close();
    await slow.close();
  }
});

test('local provider: a clear error when the optional package is missing', async (t) => {
  const { localEmbedderAvailable } = await import('../../src/retrieval/embedders/index');
  if (await localEmbedderAvailable()) {
    t.skip('optional package installed');
    return;
  }
  const e = (await createEmbedder({ provider: 'local' }))!;
  await assert.rejects(e.embed(['hello']), (err: unknown) => err instanceof EmbeddingError && err.code === 'unavailable' && /@energetic-ai/.test(err.message));
});
