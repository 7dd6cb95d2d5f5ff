/**
 * Temporal round trip through a running Lore's worker: start → activity (MongoDB write + read) →
 * result, measured from the client. Start Lore first (`npm start`), then:
 *
 *   node --import tsx bench/engine-roundtrip.ts [--address 127.0.0.1:7233] [--n 200] [--concurrency 1]
 */
import { performance } from 'node:perf_hooks';
import { uuidv7 } from '../src/domain/ids';
import { TemporalEngine } from '../src/engine/temporal-engine';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : def;
};
const address = arg('address', '127.0.0.1:7233');
const n = Number(arg('n', '200'));
const concurrency = Number(arg('concurrency', '1'));
const taskQueue = arg('task-queue', 'lore');

const engine = await TemporalEngine.connect({
  address,
  namespace: arg('namespace', 'default'),
  taskQueue,
  observer: { workflowStarted() {}, workflowFailed() {} },
});
const once = async () => {
  const id = uuidv7();
  const t0 = performance.now();
  await engine.execute({ workflowType: 'roundTripWorkflow', workflowId: `bench-probe/${id}`, args: [id], labels: { tenant_id: 'bench', scope: 'roundtrip', kind: 'pack_import' } });
  return performance.now() - t0;
};
for (let i = 0; i < 5; i += 1) await once(); // warm-up
const lat: number[] = [];
let next = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < n) {
      next += 1;
      lat.push(await once());
    }
  }),
);
const wall = (performance.now() - t0) / 1000;
lat.sort((a, b) => a - b);
const q = (p: number) => lat[Math.min(lat.length - 1, Math.ceil(p * lat.length) - 1)]!.toFixed(1);
console.log(JSON.stringify({ phase: 'temporal_round_trip', n, concurrency, p50_ms: Number(q(0.5)), p95_ms: Number(q(0.95)), max_ms: Number(lat[lat.length - 1]!.toFixed(1)), per_s: Number((n / wall).toFixed(1)) }));
await engine.close();
