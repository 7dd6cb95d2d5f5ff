import { readFileSync } from 'node:fs';
import { makeItem, makeNlQuery, writeSlots } from '../retrieval/loadgen-docs';
import { cli } from '../cli';

const HEADER = `Does a write, a recall and a task start cost the same in a large store as in a small one?
(docs/benchmarks.md, "Task start at scale"). Drives a
running Lore over HTTP with loadgen's executions (bench/retrieval/loadgen-docs, the bodies
loadgen.mjs sends), phase by phase, and prints one JSON line per phase:

  preload  brings the scope to --nodes nodes with batched writes (200 nodes per POST, two in
           flight; learned like any write), skipping what the scope already holds
  writes   --writes single-node writes at --concurrency 8: writes/s, latency, API (and with
           --server-pid the local MongoDB-compatible server's) CPU per write
  reads    --queries recalls, kickoffs and planning requests at concurrency 1, one after the
           other: latency and API CPU per request
  mixed    recalls at concurrency 1 for --seconds alone, then as long again while single writes
           run at concurrency 4: recall p95 without and with writes, and the writes' rate
  first    waits until GET /health says the indexes are ready, then times the first planning
           request and --queries more (the first one after a restart, against warm ones)
  rss      the API's (and the server's) resident memory

  node --import tsx bench/memory/scale.ts --base-url http://127.0.0.1:21501 --pid <API pid> \
       [--server-pid <server pid>] --scope S [--phases preload,writes,reads,mixed,rss] [--nodes 100000]
       [--writes 2000] [--queries 300] [--seconds 60] [--seed 1] [--label TEXT]

The API process id is printed by bench/memory/run-lore.ts; the server's is its java child.
Item numbers: preload uses 0.., single writes 50 000 000 + (seed × 1 000 000).., so phases and
repeated runs never collide on a client id.`;

const HELP = `Options:
  --base-url URL      Lore's API (default http://127.0.0.1:3001)
  --pid PID           the API process (CPU and RSS from /proc)
  --server-pid PID    the local MongoDB-compatible server (optional)
  --scope NAME        the scope (required)
  --phases LIST       preload,writes,reads,mixed,first,rss (default preload,writes,reads,mixed,rss)
  --nodes N           preload target (default 100000)
  --writes N          single writes in the writes phase (default 2000)
  --concurrency C     writes phase concurrency (default 8)
  --queries Q         requests per read route (default 300)
  --seconds S         mixed: seconds of recalls alone, then as many with writes (default 60)
  --seed S            item stream of the single writes (default 1)
  --label TEXT        copied into every line
`;

const { values: opts } = cli(`${HEADER}\n${HELP}`, {
  'base-url': { type: 'string' },
  pid: { type: 'string' },
  'server-pid': { type: 'string' },
  scope: { type: 'string' },
  phases: { type: 'string' },
  nodes: { type: 'string' },
  writes: { type: 'string' },
  concurrency: { type: 'string' },
  queries: { type: 'string' },
  seconds: { type: 'string' },
  seed: { type: 'string' },
  label: { type: 'string' },
});
const opt = (name: keyof typeof opts, def?: string) => opts[name] ?? def;
const baseUrl = opt('base-url', 'http://127.0.0.1:3001')!.replace(/\/+$/, '');
const pid = opt('pid');
const serverPid = opt('server-pid');
const scope = opt('scope');
if (!scope) throw new Error('--scope is required');
const phases = opt('phases', 'preload,writes,reads,mixed,rss')!.split(',');
const target = Number(opt('nodes', '100000'));
const writes = Number(opt('writes', '2000'));
const concurrency = Number(opt('concurrency', '8'));
const queries = Number(opt('queries', '300'));
const seconds = Number(opt('seconds', '60'));
const seed = Number(opt('seed', '1'));
const label = opt('label') ?? null;
const tenant = 'default';
const WRITE_BASE = 50_000_000 + seed * 1_000_000;

const cpuMs = (p: string | undefined) => {
  if (!p) return 0;
  const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ticks of 10 ms
};
const rssMb = (p: string | undefined) => {
  if (!p) return null;
  const m = readFileSync(`/proc/${p}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return m ? Math.round(Number(m[1]) / 1024) : null;
};
const r2 = (x: number) => Math.round(x * 100) / 100;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? r2(s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!) : null;
};
const emit = (phase: string, data: Record<string, unknown>) => console.log(JSON.stringify({ phase, scope, label, ...data }));

async function post(path: string, body: unknown): Promise<{ ms: number; body: Record<string, unknown> }> {
  const t0 = performance.now();
  const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
  return { ms: performance.now() - t0, body: JSON.parse(text) as Record<string, unknown> };
}

const nodeOf = (i: number, prefix: string) => {
  const item = makeItem(i);
  return {
    client_id: `${prefix}:${scope}:${i}`,
    type: 'event',
    title: item.title,
    text_summary: item.summary,
    producer_agent_id: 'bench-agent',
    owner_agent_id: 'bench-agent',
    memory_lane: 'shared',
    slots: writeSlots(item),
  };
};
// loadgen.mjs writeBody (--payload plain).
const writeBody = (i: number) => {
  const item = makeItem(i);
  return {
    tenant_id: tenant,
    scope,
    actor: 'bench-agent',
    input_text: `${item.title}. ${item.summary}`,
    memory_lane: 'shared',
    producer_agent_id: 'bench-agent',
    owner_agent_id: 'bench-agent',
    nodes: [nodeOf(i, 'bench')],
    edges: [],
  };
};
// A task of one of the preloaded executions, asked the way loadgen.mjs asks (a paraphrase, its goal and task_kind).
const taskOf = (k: number) => {
  const item = makeItem((k * 7919) % Math.max(1, Math.min(preloaded(), target)));
  return { query_text: makeNlQuery(item, k), context: { goal: item.goal, task_kind: item.taskKind } };
};
const recallBody = (k: number) => ({ tenant_id: tenant, scope, consumer_agent_id: 'bench-agent', query_text: taskOf(k).query_text, limit: 10 });
const planningBody = (k: number) => ({
  tenant_id: tenant,
  scope,
  consumer_agent_id: 'bench-agent',
  ...taskOf(k),
  tool_candidates: ['read', 'edit', 'test', 'bash'],
  return_layered_context: false,
});
const kickoffBody = (k: number) => ({ tenant_id: tenant, scope, consumer_agent_id: 'bench-agent', ...taskOf(k), candidates: ['read', 'edit', 'test', 'bash'] });

let preloadedCount = 0;
const preloaded = () => preloadedCount;

/** How many nodes the scope holds: the preload's own client ids, found by probing (writes are idempotent by client id). */
async function countPreloaded(): Promise<number> {
  // Binary search on "is preload:<i> stored?" through a recall-free lookup: nodes/find by client_id.
  const exists = async (i: number) => {
    const r = await post('/v1/memory/find', { tenant_id: tenant, scope, client_id: `preload:${scope}:${i}`, limit: 1 });
    return ((r.body.nodes as unknown[] | undefined) ?? []).length > 0;
  };
  if (!(await exists(0))) return 0;
  let lo = 0;
  let hi = target;
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (await exists(mid)) lo = mid;
    else hi = mid;
  }
  return hi;
}

async function pool(n: number, c: number, task: (i: number) => Promise<number>, until?: () => boolean): Promise<number[]> {
  const lat: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n && !(until?.() ?? false)) lat.push(await task(next++));
    }),
  );
  return lat;
}

async function measured<T>(fn: () => Promise<T>) {
  const c0 = cpuMs(pid);
  const s0 = cpuMs(serverPid);
  const t0 = performance.now();
  const value = await fn();
  return { value, seconds: (performance.now() - t0) / 1000, apiCpuMs: cpuMs(pid) - c0, serverCpuMs: cpuMs(serverPid) - s0 };
}

for (const phase of phases) {
  if (phase === 'preload') {
    preloadedCount = await countPreloaded();
    const from = preloadedCount;
    const m = await measured(async () => {
      const batches: number[][] = [];
      for (let at = from; at < target; at += 200) batches.push(Array.from({ length: Math.min(200, target - at) }, (_, k) => at + k));
      return pool(
        batches.length,
        2,
        async (b) => (await post('/v1/memory/write', { tenant_id: tenant, scope, actor: 'bench-agent', nodes: batches[b]!.map((i) => nodeOf(i, 'preload')) })).ms,
      );
    });
    preloadedCount = target;
    emit('preload', {
      from,
      to: target,
      seconds: r2(m.seconds),
      nodes_per_s: Math.round((target - from) / Math.max(0.001, m.seconds)),
      api_cpu_ms_per_node: target > from ? r2(m.apiCpuMs / (target - from)) : null,
    });
  } else {
    if (preloadedCount === 0) preloadedCount = await countPreloaded();
  }
  if (phase === 'writes') {
    const m = await measured(() => pool(writes, concurrency, async (i) => (await post('/v1/memory/write', writeBody(WRITE_BASE + i))).ms));
    const lat = m.value;
    const tenth = Math.max(1, Math.floor(lat.length / 10));
    emit('writes', {
      nodes_before: preloadedCount,
      writes,
      concurrency,
      writes_per_s: r2(writes / m.seconds),
      p50: pct(lat, 0.5),
      p95: pct(lat, 0.95),
      p50_first_last_tenth: [pct(lat.slice(0, tenth), 0.5), pct(lat.slice(-tenth), 0.5)],
      api_cpu_ms_per_write: r2(m.apiCpuMs / writes),
      server_cpu_ms_per_write: serverPid ? r2(m.serverCpuMs / writes) : null,
    });
  }
  if (phase === 'reads') {
    for (const [route, body] of [
      ['recall_text', recallBody],
      ['kickoff/recommendation', kickoffBody],
      ['planning/context', planningBody],
    ] as const) {
      await pool(20, 1, async (k) => (await post(`/v1/memory/${route}`, body(100_000 + k))).ms); // warm-up, not measured
      const m = await measured(() => pool(queries, 1, async (k) => (await post(`/v1/memory/${route}`, body(k))).ms));
      emit('reads', { route, nodes: preloadedCount, queries, p50: pct(m.value, 0.5), p95: pct(m.value, 0.95), api_cpu_ms_per_request: r2(m.apiCpuMs / queries) });
    }
  }
  if (phase === 'mixed') {
    const recallFor = async (ms: number, offset: number) => {
      const end = performance.now() + ms;
      return pool(
        1_000_000,
        1,
        async (k) => (await post('/v1/memory/recall_text', recallBody(offset + k))).ms,
        () => performance.now() > end,
      );
    };
    const alone = await recallFor(seconds * 1000, 200_000);
    let stop = false;
    let written = 0;
    const writer = pool(
      1_000_000,
      4,
      async (i) => {
        written += 1;
        return (await post('/v1/memory/write', writeBody(WRITE_BASE + 500_000 + i))).ms;
      },
      () => stop,
    );
    const t0 = performance.now();
    const during = await recallFor(seconds * 1000, 300_000);
    stop = true;
    const writeLat = await writer;
    emit('mixed', {
      nodes: preloadedCount,
      recall_alone: { n: alone.length, p50: pct(alone, 0.5), p95: pct(alone, 0.95) },
      recall_with_writes: { n: during.length, p50: pct(during, 0.5), p95: pct(during, 0.95) },
      p95_ratio: r2((pct(during, 0.95) ?? 0) / (pct(alone, 0.95) ?? 1)),
      writes: { n: written, per_s: r2(written / ((performance.now() - t0) / 1000)), p50: pct(writeLat, 0.5), p95: pct(writeLat, 0.95) },
    });
  }
  if (phase === 'first') {
    const t0 = performance.now();
    for (;;) {
      const h = (await (await fetch(`${baseUrl}/health`)).json()) as { indexes?: { status: string } };
      if (h.indexes?.status === 'ready') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const waited = (performance.now() - t0) / 1000;
    const first = await measured(() => post('/v1/memory/planning/context', planningBody(0)));
    const warm = await measured(() => pool(queries, 1, async (k) => (await post('/v1/memory/planning/context', planningBody(k + 1))).ms));
    emit('first', {
      nodes: preloadedCount,
      waited_for_ready_s: r2(waited),
      first_ms: r2(first.value.ms),
      first_api_cpu_ms: first.apiCpuMs,
      warm_p50: pct(warm.value, 0.5),
      warm_p95: pct(warm.value, 0.95),
      warm_api_cpu_ms_per_request: r2(warm.apiCpuMs / queries),
    });
  }
  if (phase === 'rss') emit('rss', { nodes: preloadedCount, api_rss_mb: rssMb(pid), server_rss_mb: rssMb(serverPid) });
}
