import { performance } from 'node:perf_hooks';
import { uuidv7 } from '../src/model/ids';
import { TemporalEngine } from '../src/engine/temporal-engine';
import { cli, numOr } from './cli';

const USAGE = `Temporal round trip through a running Lore's worker: start → activity (MongoDB write + read) →
result, measured from the client. Start Lore first ('npm start'), then:

  node --import tsx bench/engine-roundtrip.ts [--address 127.0.0.1:7233] [--n 200] [--concurrency 1] [--phase roundtrip|start]

--phase start measures only the workflow start (the client's StartWorkflowExecution until the
server has persisted it); the runs still complete on the worker, and are awaited afterwards.`;

const { values: opts } = cli(USAGE, {
  address: { type: 'string', default: '127.0.0.1:7233' },
  n: { type: 'string' },
  concurrency: { type: 'string' },
  'task-queue': { type: 'string', default: 'lore' },
  phase: { type: 'string', default: 'roundtrip' },
  namespace: { type: 'string', default: 'default' },
});
const address = opts.address;
const n = numOr(opts.n, 200);
const concurrency = numOr(opts.concurrency, 1);
const taskQueue = opts['task-queue'];
const phase = opts.phase;
if (phase !== 'roundtrip' && phase !== 'start') throw new Error(`--phase roundtrip|start, not ${phase}`);

const engine = await TemporalEngine.connect({
  address,
  namespace: opts.namespace,
  taskQueue,
  observer: { workflowStarted() {}, workflowFailed() {} },
});
const started: string[] = [];
const ids: string[] = [];
const once = async () => {
  const id = uuidv7();
  ids.push(`bench-probe/${id}`);
  const req = { workflowType: 'roundTripWorkflow', workflowId: `bench-probe/${id}`, args: [id], labels: { tenant_id: 'bench', scope: 'roundtrip', kind: 'pack_import' as const } };
  const t0 = performance.now();
  if (phase === 'start') {
    await engine.start(req);
    const ms = performance.now() - t0;
    started.push(req.workflowId);
    return ms;
  }
  await engine.execute(req);
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
for (const id of started) await engine.result(id, 120_000); // every started run completed on the worker

// Where a round trip goes (roundtrip phase only: in the start phase runs queue up behind each
// other), from the histories of the last (up to) 50 runs: medians of server-side event times.
const num = (v: unknown) => (v && typeof v === 'object' && 'toNumber' in v ? (v as { toNumber(): number }).toNumber() : Number(v ?? 0));
const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => num(t?.seconds) * 1000 + (t?.nanos ?? 0) / 1e6;
const spans: Record<string, number[]> = {};
for (const id of phase === 'roundtrip' ? ids.slice(-50) : []) {
  const events = (await engine.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const at = (pred: (e: (typeof events)[number]) => unknown, from = 0) => {
    const i = events.findIndex((e, k) => k >= from && pred(e));
    return { i, t: i >= 0 ? ms(events[i]!.eventTime) : NaN };
  };
  const start = at((e) => e.workflowExecutionStartedEventAttributes);
  const wft1 = at((e) => e.workflowTaskStartedEventAttributes);
  const actSched = at((e) => e.activityTaskScheduledEventAttributes);
  const actStart = at((e) => e.activityTaskStartedEventAttributes);
  const actDone = at((e) => e.activityTaskCompletedEventAttributes);
  const wft2 = at((e) => e.workflowTaskStartedEventAttributes, actDone.i);
  const end = at((e) => e.workflowExecutionCompletedEventAttributes);
  const add = (k: string, v: number) => (spans[k] ??= []).push(v);
  add('start→first workflow task picked up', wft1.t - start.t);
  add('workflow task → activity scheduled', actSched.t - wft1.t);
  add('activity scheduled → picked up', actStart.t - actSched.t);
  add('activity run (MongoDB write + read) → completed', actDone.t - actStart.t);
  add('activity completed → second workflow task picked up', wft2.t - actDone.t);
  add('second workflow task → workflow completed', end.t - wft2.t);
  add('server side: start → completed', end.t - start.t);
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const breakdown = Object.fromEntries(Object.entries(spans).map(([k, v]) => [k, Number(med(v).toFixed(1))]));
console.log(
  JSON.stringify({
    phase: phase === 'start' ? 'temporal_workflow_start' : 'temporal_round_trip',
    n,
    concurrency,
    p50_ms: Number(q(0.5)),
    p95_ms: Number(q(0.95)),
    max_ms: Number(lat[lat.length - 1]!.toFixed(1)),
    per_s: Number((n / wall).toFixed(1)),
    ...(phase === 'roundtrip' ? { median_server_ms: breakdown } : {}),
  }),
);
await engine.close();
