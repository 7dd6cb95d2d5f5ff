import { readFileSync } from 'node:fs';
import { makeItem, writeSlots } from '../retrieval/loadgen-docs';
import { cli } from '../cli';

const USAGE = `Write throughput of batched writes through HTTP: loadgen's nodes (bench/retrieval/loadgen-docs,
the same fields as loadgen.mjs --payload plain sends), '--batch' of them per POST
/v1/memory/write ('nodes[]'), '--concurrency' requests in flight. loadgen.mjs measures one node
per request; this is the path for importing many executions at once (docs/benchmarks.md).

  node --import tsx bench/memory/batch-write.ts --base-url http://127.0.0.1:21401 \
       [--nodes 3000] [--batch 200] [--concurrency 2] [--seed 5] [--scope NAME] [--pid API_PID]

Prints one JSON line: nodes/s, request latency percentiles, and with --pid the API process's
CPU per node (from /proc).`;

const { values: opts } = cli(USAGE, {
  'base-url': { type: 'string' },
  nodes: { type: 'string' },
  batch: { type: 'string' },
  concurrency: { type: 'string' },
  seed: { type: 'string' },
  scope: { type: 'string' },
  pid: { type: 'string' },
});
const opt = (name: keyof typeof opts, def?: string) => opts[name] ?? def;
const baseUrl = opt('base-url', 'http://127.0.0.1:3001')!.replace(/\/+$/, '');
const total = Number(opt('nodes', '3000'));
const batch = Math.min(200, Math.max(1, Number(opt('batch', '200'))));
const concurrency = Math.max(1, Number(opt('concurrency', '2')));
const seed = Number(opt('seed', '5'));
const scope = opt('scope', `batch-s${seed}-${Date.now().toString(36)}`)!;
const pid = opt('pid');
// Item numbers far from loadgen's (its 0..N-1), so a batch run never collides with a preloaded scope's client ids.
const first = 10_000_000 * seed;

function node(i: number) {
  const item = makeItem(i);
  return {
    client_id: `batch:${scope}:${i}`,
    type: 'event',
    title: item.title,
    text_summary: item.summary,
    producer_agent_id: 'bench-agent',
    slots: writeSlots(item),
  };
}

const cpuMs = () => {
  if (!pid) return 0;
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ticks of 10 ms
};

const requests: number[][] = [];
for (let at = 0; at < total; at += batch) requests.push(Array.from({ length: Math.min(batch, total - at) }, (_, k) => first + at + k));

const latencies: number[] = [];
let next = 0;
const cpu0 = cpuMs();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < requests.length) {
      const ids = requests[next++]!;
      const started = performance.now();
      const res = await fetch(`${baseUrl}/v1/memory/write`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: 'default', scope, actor: 'bench-agent', nodes: ids.map(node) }),
      });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`write: ${res.status} ${body.slice(0, 300)}`);
      latencies.push(performance.now() - started);
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
const cpu = cpuMs() - cpu0;
latencies.sort((a, b) => a - b);
const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]! * 100) / 100;
console.log(
  JSON.stringify({
    scope,
    nodes: total,
    batch,
    concurrency,
    seconds: Math.round(seconds * 100) / 100,
    nodes_per_s: Math.round(total / seconds),
    request_ms: { p50: pct(0.5), p95: pct(0.95), max: pct(1) },
    api_cpu_ms_per_node: pid ? Math.round((cpu / total) * 1000) / 1000 : null,
  }),
);
