import { readFileSync, readdirSync } from 'node:fs';
import { cli } from './cli';

const USAGE = `What runs/get with wait_ms costs and how soon it answers (docs/benchmarks.md, "Waiting for a
run"), against a real Lore started with bench/memory/run-lore.ts:

  node --import tsx bench/memory/run-lore.ts --port 21401 &      # prints url and pid
  node --import tsx bench/run-waits.ts --url http://127.0.0.1:21401 --pid <pid> [--runs 20]

1. Latency: --runs times, start a run of a one-approval automation and at once wait for
   'paused_or_done'; the time from the pause being written (the node's approval.requested_at, the
   worker's clock, same machine) to the answer.
2. Cost: 50 clients each wait 30 s ('until: done') on a paused run that does not change, first
   50 runs of one scope, then 50 runs of 50 scopes (no batching possible); the CPU time of the API
   process and of the MongoDB-compatible server over those 30 s, against 30 s with nobody waiting.`;

const { values } = cli(USAGE, { url: { type: 'string' }, pid: { type: 'string' }, runs: { type: 'string', default: '20' } });
if (!values.url || !values.pid) throw new Error(`--url and --pid are required\n\n${USAGE}`);
const base = values.url;
const apiPid = Number(values.pid);
const TICKS = 100; // USER_HZ

async function post(path: string, body: Record<string, unknown>) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

/** The MongoDB-compatible server: the java process below the API. */
function mongoPid(): number | null {
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === apiPid && readFileSync(`/proc/${e}/cmdline`, 'utf8').includes('mongo-launcher')) return Number(e);
    } catch {
      /* gone */
    }
  }
  return null;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  return { n: s.length, p50: Math.round(q(0.5)), p95: Math.round(q(0.95)), max: Math.round(s.at(-1)!) };
};

const graph = { nodes: [{ node_id: 'gate', kind: 'approval', approval_key: 'go' }], edges: [] };
const stamp = Date.now().toString(36);
const scopeOf = (i: number) => ({ tenant_id: 'bench', scope: `waits-${stamp}-${i}` });

async function pausedRuns(scopes: { tenant_id: string; scope: string }[]): Promise<{ who: { tenant_id: string; scope: string }; run_id: string }[]> {
  const out = [];
  for (const who of scopes) {
    await post('/v1/automations/create', { ...who, automation_id: 'gate', graph }).catch(() => undefined);
    const { run_id } = await post('/v1/automations/run', { ...who, automation_id: 'gate' });
    out.push({ who, run_id });
  }
  for (const r of out) await post('/v1/automations/runs/get', { ...r.who, run_id: r.run_id, wait_ms: 30_000, until: 'paused_or_done' });
  return out;
}

// 1. How soon after the pause the answer comes.
const one = scopeOf(0);
await post('/v1/automations/create', { ...one, automation_id: 'gate', graph });
const afterPause: number[] = [];
const fromRun: number[] = [];
for (let i = 0; i < Number(values.runs); i++) {
  const t0 = Date.now();
  const { run_id } = await post('/v1/automations/run', { ...one, automation_id: 'gate' });
  const r = await post('/v1/automations/runs/get', { ...one, run_id, include_nodes: true, wait_ms: 30_000, until: 'paused_or_done' });
  const t1 = Date.now();
  if (r.run.status !== 'paused') throw new Error(JSON.stringify(r));
  afterPause.push(t1 - Date.parse(r.run.nodes[0].approval.requested_at));
  fromRun.push(t1 - t0);
}
console.log(`answer after the pause was written (ms): ${JSON.stringify(stats(afterPause))}`);
console.log(`answer after automations/run (ms):      ${JSON.stringify(stats(fromRun))}`);

// 2. What 50 waiting clients cost.
const mongo = mongoPid();
async function measure(label: string, waiters: { who: object; run_id: string }[]) {
  const api0 = cpuMs(apiPid);
  const m0 = mongo ? cpuMs(mongo) : 0;
  const t0 = Date.now();
  if (waiters.length === 0) await new Promise((r) => setTimeout(r, 30_000));
  else {
    const answers = await Promise.all(waiters.map((w) => post('/v1/automations/runs/get', { ...w.who, run_id: w.run_id, wait_ms: 30_000, until: 'done' })));
    if (answers.some((a) => a.wait.met || a.run.status !== 'paused')) throw new Error('a run changed');
  }
  const secs = (Date.now() - t0) / 1000;
  const api = (cpuMs(apiPid) - api0) / secs;
  const m = mongo ? (cpuMs(mongo) - m0) / secs : NaN;
  console.log(`${label}: API ${api.toFixed(1)} ms CPU/s, MongoDB server ${m.toFixed(1)} ms CPU/s over ${secs.toFixed(1)} s`);
}
const sameScope = await pausedRuns(Array.from({ length: 50 }, () => scopeOf(1)));
const manyScopes = await pausedRuns(Array.from({ length: 50 }, (_, i) => scopeOf(100 + i)));
await measure('nobody waiting              ', []);
await measure('50 waiters, 50 runs, 1 scope ', sameScope);
await measure('50 waiters, 50 runs, 50 scopes', manyScopes);
await measure('nobody waiting              ', []);
for (const r of [...sameScope, ...manyScopes]) await post('/v1/automations/runs/cancel', { ...r.who, run_id: r.run_id }).catch(() => undefined);
