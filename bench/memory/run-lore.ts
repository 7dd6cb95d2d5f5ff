// Starts a real Lore (`node bin/lore.mjs start`) for the HTTP benchmarks in docs/benchmarks.md:
// its own data dir, fixed or free ports, prints the API URL and the API process id (for
// loadgen's --pid), and stays up until Ctrl+C (then stops Lore and its children).
//
//   node --import tsx bench/memory/run-lore.ts [--data-dir DIR] [--port 21101] [--keep]
//        [--env KEY=VALUE ...] [--log FILE]
//
// --port P uses P..P+3 for the API, Temporal, the Temporal UI and the MongoDB-compatible server
// (pick ports below 32768 so they cannot clash with ephemeral ports). --keep keeps the data dir.
// --log FILE writes Lore's output (API, worker, supervised servers) to FILE every 2 s.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allocatePorts, startLore } from '../../test/e2e/lore-process';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const env: Record<string, string> = {};
args.forEach((a, i) => {
  if (a === '--env') {
    const [k, ...v] = (args[i + 1] ?? '').split('=');
    if (k) env[k] = v.join('=');
  }
});
const dataDir = opt('data-dir') ?? mkdtempSync(join(tmpdir(), 'lore-bench-'));
const base = opt('port') ? Number(opt('port')) : null;
const ports = base ? { api: base, temporal: base + 1, temporalUi: base + 2, mongo: base + 3 } : await allocatePorts();
const t0 = Date.now();
const lore = await startLore({ dataDir, ports, env, timeoutMs: 600_000 });
process.stdout.write(`lore up in ${((Date.now() - t0) / 1000).toFixed(1)} s\nurl ${lore.url}\npid ${lore.pid}\ndata ${dataDir}\n`);
const logFile = opt('log');
const writeLog = () => {
  if (logFile) writeFileSync(logFile, lore.output());
};
if (logFile) setInterval(writeLog, 2000).unref();
const stop = async () => {
  writeLog();
  await lore.stop();
  if (!args.includes('--keep') && !opt('data-dir')) rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
await lore.exited;
process.stderr.write(`lore exited:\n${lore.output().slice(-3000)}\n`);
process.exit(1);
