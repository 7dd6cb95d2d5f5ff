import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { NODE_MEMORY_ENV, NODE_MEMORY_FLAGS } from '../../src/local/node-flags';
import { freePort } from '../../src/local/ports';
import { cli, repoRoot } from '../cli';

const USAGE = `Starts a real Lore ('node bin/lore.mjs start') for the HTTP benchmarks in docs/benchmarks.md:
its own data dir, fixed or free ports, prints the API URL and the API process id (for
loadgen's --pid), and stays up until Ctrl+C (then stops Lore and its children).

  node --import tsx bench/memory/run-lore.ts [--data-dir DIR] [--port 21101] [--keep]
       [--env KEY=VALUE ...] [--log FILE]

--port P uses P..P+3 for the API, Temporal, the Temporal UI and the MongoDB-compatible server
(pick ports below 32768 so they cannot clash with ephemeral ports). --keep keeps the data dir.
--log FILE writes Lore's output (API, worker, supervised servers) to FILE every 2 s.`;

const { values: opts } = cli(USAGE, {
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  keep: { type: 'boolean', default: false },
  env: { type: 'string', multiple: true, default: [] },
  log: { type: 'string' },
});
const env: Record<string, string> = {};
for (const kv of opts.env) {
  const [k, ...v] = kv.split('=');
  if (k) env[k] = v.join('=');
}
const dataDir = opts['data-dir'] ?? mkdtempSync(join(tmpdir(), 'lore-bench-'));
const base = opts.port ? Number(opts.port) : null;
const ports = base
  ? { api: base, temporal: base + 1, temporalUi: base + 2, mongo: base + 3 }
  : { api: await freePort(), temporal: await freePort(), temporalUi: await freePort(), mongo: await freePort() };

const t0 = Date.now();
const proc = spawn(process.execPath, [...NODE_MEMORY_FLAGS, 'bin/lore.mjs', 'start'], {
  cwd: repoRoot,
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    ...NODE_MEMORY_ENV,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...(process.env.LORE_BIN_DIR ? { LORE_BIN_DIR: process.env.LORE_BIN_DIR } : {}),
    LORE_DATA_DIR: dataDir,
    LORE_PORT: String(ports.api),
    LORE_TEMPORAL_PORT: String(ports.temporal),
    LORE_TEMPORAL_UI_PORT: String(ports.temporalUi),
    LORE_MONGO_PORT: String(ports.mongo),
    LORE_LIFECYCLE_INTERVAL: 'off',
    LORE_EMBEDDINGS: 'none', // lexical unless --env LORE_EMBEDDINGS=… asks
    ...env,
  },
});
let out = '';
const keep = (c: Buffer) => {
  out = (out + c.toString('utf8')).slice(-200_000);
};
proc.stdout.on('data', keep);
proc.stderr.on('data', keep);
const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
let dead = false;
void exited.then(() => (dead = true));

const url = `http://127.0.0.1:${ports.api}`;
const deadline = Date.now() + 600_000;
for (;;) {
  if (dead) throw new Error(`lore exited before it was ready:\n${out.slice(-4000)}`);
  if (Date.now() > deadline) {
    proc.kill('SIGKILL');
    throw new Error(`lore was not ready within 600 s:\n${out.slice(-4000)}`);
  }
  const up = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.status === 200,
    () => false,
  );
  if (up) break;
  await new Promise((r) => setTimeout(r, 500));
}
process.stdout.write(`lore up in ${((Date.now() - t0) / 1000).toFixed(1)} s\nurl ${url}\npid ${proc.pid}\ndata ${dataDir}\n`);
const writeLog = () => {
  if (opts.log) writeFileSync(opts.log, out);
};
if (opts.log) setInterval(writeLog, 2000).unref();
const stop = async () => {
  writeLog();
  if (!dead) {
    proc.kill('SIGTERM'); // lore start stops the servers it supervises
    const t = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(t);
  }
  if (!opts.keep && !opts['data-dir']) rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
await exited;
process.stderr.write(`lore exited:\n${out.slice(-3000)}\n`);
process.exit(1);
