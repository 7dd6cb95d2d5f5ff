import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_MEMORY_ENV, NODE_MEMORY_FLAGS } from '../src/local/node-flags';
import { freePort } from '../src/local/ports';
import { cli, numOr } from './cli';
import { localServers } from './harness';

const USAGE = `What tracing costs an API process: start-up time (spawn → "is up"), RSS once up, and the
latency of writes and recalls, with tracing off and on (spans exported to a local OTLP receiver
that discards them). Starts its own MongoDB-compatible and Temporal servers; the API processes
alternate off/on so drift on a shared machine falls on both.

  node --import tsx bench/tracing-overhead.ts [--rounds 4] [--requests 300]`;

const { values: opts } = cli(USAGE, { rounds: { type: 'string' }, requests: { type: 'string' } });
const ROUNDS = numOr(opts.rounds, 4);
const REQUESTS = numOr(opts.requests, 300);
const LORE_BIN = fileURLToPath(new URL('../bin/lore.mjs', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'lore-bench-tracing-'));
const services = await localServers();
let spansReceived = 0;
const sink = http.createServer((req, res) => {
  let n = 0;
  req.on('data', (c: Buffer) => (n += c.length));
  req.on('end', () => {
    spansReceived += n > 0 ? 1 : 0;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function round(tracing: boolean, i: number) {
  const port = await freePort();
  const env = {
    ...NODE_MEMORY_ENV,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LORE_DATA_DIR: dir,
    TEMPORAL_ADDRESS: services.temporalAddress,
    MONGODB_URI: services.mongoUri,
    MONGODB_DB: `bench_tracing_${i}`,
    LORE_PORT: String(port),
    LORE_LIFECYCLE_INTERVAL: 'off',
    LORE_LOG_LEVEL: 'warn',
    ...(tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl } : {}),
  };
  const t0 = performance.now();
  const child = spawn(process.execPath, [...NODE_MEMORY_FLAGS, LORE_BIN, 'start', '--role', 'api'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (out += b));
  while (!out.includes('is up (role api)')) {
    if (child.exitCode !== null) throw new Error(out);
    await new Promise((r) => setTimeout(r, 20));
  }
  const startMs = performance.now() - t0;
  const rssUp = rssMb(child.pid!);
  const base = `http://127.0.0.1:${port}`;
  const post = async (path: string, body: unknown) => {
    const t = performance.now();
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return performance.now() - t;
  };
  const writes: number[] = [];
  const recalls: number[] = [];
  for (let k = 0; k < REQUESTS; k += 1) {
    writes.push(await post('/v1/memory/write', { scope: 'bench', input_text: `deployment note ${k}: the release train ran step ${k % 7} of the rollout` }));
    recalls.push(await post('/v1/memory/recall_text', { scope: 'bench', query_text: `release train step ${k % 7}` }));
  }
  const rssAfter = rssMb(child.pid!);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { tracing, startMs, rssUp, rssAfter, write: [pct(writes, 50), pct(writes, 95)], recall: [pct(recalls, 50), pct(recalls, 95)] };
}

const rows = [];
for (let i = 0; i < ROUNDS * 2; i += 1) rows.push(await round(i % 2 === 1, i));
for (const r of rows) {
  console.log(
    `${r.tracing ? 'on ' : 'off'}  start ${r.startMs.toFixed(0)} ms  rss up ${r.rssUp.toFixed(1)} MB, after ${REQUESTS}+${REQUESTS} requests ${r.rssAfter.toFixed(1)} MB  ` +
      `write p50/p95 ${r.write.map((x) => x.toFixed(2)).join('/')} ms  recall p50/p95 ${r.recall.map((x) => x.toFixed(2)).join('/')} ms`,
  );
}
console.log(`span batches received: ${spansReceived}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
sink.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
