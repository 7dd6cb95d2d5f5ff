import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../cli';
import { lorePorts, startBenchLore } from '../lore-process';

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
const t0 = Date.now();
const lore = await startBenchLore({ dataDir, env, ports: await lorePorts(opts.port ? Number(opts.port) : undefined) });
process.stdout.write(`lore up in ${((Date.now() - t0) / 1000).toFixed(1)} s\nurl ${lore.url}\npid ${lore.pid}\ndata ${dataDir}\n`);
const writeLog = () => {
  if (opts.log) writeFileSync(opts.log, lore.output());
};
if (opts.log) setInterval(writeLog, 2000).unref();
let stopping = false;
const stop = async () => {
  stopping = true;
  writeLog();
  await lore.stop();
  if (!opts.keep && !opts['data-dir']) rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
await lore.exited;
// An exit stop() asked for is stop()'s to finish (it removes the data dir); any other is a failure.
if (stopping) await new Promise(() => {});
writeLog();
process.stderr.write(`lore exited:\n${lore.output().slice(-3000)}\n`);
process.exit(1);
