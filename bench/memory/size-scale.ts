import { readFileSync } from 'node:fs';
import { Database } from '../../src/store/database';
import { allCollections } from '../../src/store/collections';
import { ensureMongoLauncherJar, startMongoServer } from '../../src/local/mongo-server';
import { freePort } from '../../src/local/ports';
import { cli, numOr } from '../cli';
import { descendants } from '../../src/local/process-tree';
import { lorePorts, startBenchLore, type BenchLore } from '../lore-process';
import { fillHookStore, NODES_PER_DAY } from './hook-fill';
import { hookSession } from './hook-records';

const USAGE = `Restart, writes, recall and memory of one Lore as its store grows (docs/benchmarks.md, "A year of
hook traffic"). One data dir, filled in steps with hook-shaped memory (hook-records.ts: sessions,
their prompt and tool-call events, the hooks' execution writes; ${NODES_PER_DAY} nodes a day, time running
backwards) straight through the store with Lore stopped (hook-fill.ts); after each step Lore is
started on it and measured:

  restart   spawn → GET /health answers → a recall answers → /health says every index is ready
  recall    --queries recall_text requests at concurrency 1 (p50, p95, API CPU per request)
  writes    hook-shaped writes through HTTP (sessions/events/append, memory/write) at concurrency 8
            for --writes requests: writes/s, p50, p95, API and store CPU per write
  mixed     recalls at concurrency 1 for --seconds alone, then as long again with writes at
            concurrency 4: recall p95 without and with writes
  rss       the API's and the store server's resident memory (after start, after the load)
  kill      a marker written, kill -9 of the whole tree, start again: restart times, and whether
            the marker is recalled first
  clean     a clean stop and a start again: restart times

  node --import tsx bench/memory/size-scale.ts --data-dir /tmp/lore-size --sizes 1000,100000,1000000 \\
       [--hot] [--queries 300] [--writes 2000] [--seconds 30] [--port 24100] [--phases LIST]
       [--env KEY=VALUE ...] [--node-arg FLAG ...]   (e.g. --node-arg=--cpu-prof --node-arg=--cpu-prof-dir=/tmp/prof)

--hot fills every node hot and undecided; by default nodes older than 6 h are as the forgetting
operator leaves them (aged: most of a year is archived). Prints one JSON line per phase.`;

const { values: opts } = cli(USAGE, {
  'data-dir': { type: 'string' },
  sizes: { type: 'string', default: '1000,100000,1000000' },
  hot: { type: 'boolean', default: false },
  queries: { type: 'string' },
  writes: { type: 'string' },
  seconds: { type: 'string' },
  port: { type: 'string' },
  phases: { type: 'string', default: 'restart,recall,writes,mixed,kill,clean' },
  env: { type: 'string', multiple: true, default: [] },
  'node-arg': { type: 'string', multiple: true, default: [] },
});
if (!opts['data-dir']) throw new Error('--data-dir is required');
const dataDir = opts['data-dir'];
const sizes = opts.sizes.split(',').map(Number);
const queries = numOr(opts.queries, 300);
const writes = numOr(opts.writes, 2000);
const seconds = numOr(opts.seconds, 30);
const phases = new Set(opts.phases.split(','));
const env: Record<string, string> = {};
for (const kv of opts.env) {
  const [k, ...v] = kv.split('=');
  if (k) env[k] = v.join('=');
}
const tenant = 'default';
const scope = 'shop';
const NOW = Date.parse('2026-12-01T12:00:00Z');
const aged = !opts.hot;
/** Sessions written over HTTP are new in every run (a repeated session would be deduplicated: cheaper than a write). */
const RUN = Date.now() % 1_000_000_000;
let label = '';

const r2 = (x: number) => Math.round(x * 100) / 100;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? r2(s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!) : null;
};
const emit = (phase: string, data: Record<string, unknown>) => console.log(JSON.stringify({ phase, label, ...data }));
const cpuMs = (p: number | null) => {
  if (!p) return 0;
  try {
    const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
};
const statusMb = (p: number | null, field: 'VmRSS' | 'VmHWM') => {
  if (!p) return null;
  const m = readFileSync(`/proc/${p}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  return m ? Math.round(Number(m[1]) / 1024) : null;
};
const rssMb = (p: number | null) => statusMb(p, 'VmRSS');
/** The process's peak resident memory so far. */
const peakMb = (p: number | null) => statusMb(p, 'VmHWM');
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const serverPidOf = (apiPid: number) =>
  descendants(apiPid).find((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('lore-mongo-launcher');
    } catch {
      return false;
    }
  }) ?? null;

async function post(url: string, path: string, body: unknown): Promise<{ ms: number; status: number; body: Record<string, unknown> }> {
  const t0 = performance.now();
  let res: Response;
  try {
    res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch (err) {
    process.stderr.write(
      `${new Date().toISOString()} ${path} failed after ${Math.round(performance.now() - t0)} ms: ${(err as Error).message} (${String((err as { cause?: unknown }).cause)})\n`,
    );
    throw err;
  }
  const text = await res.text();
  const ms = performance.now() - t0;
  if (ms > 5000) process.stderr.write(`${new Date().toISOString()} slow: ${path} ${res.status} in ${Math.round(ms)} ms\n`);
  return { ms: performance.now() - t0, status: res.status, body: JSON.parse(text) as Record<string, unknown> };
}

async function pool(c: number, task: (i: number) => Promise<number | null>, until: (i: number) => boolean): Promise<number[]> {
  const lat: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      for (let i = next++; !until(i); i = next++) {
        const ms = await task(i);
        if (ms !== null) lat.push(ms);
      }
    }),
  );
  return lat;
}

/** A recall query a developer of the filled project would ask: a prompt of an earlier session, or an error line. */
function query(k: number, filledSessions: number): string {
  const s = hookSession(1, (k * 7919) % Math.max(1, filledSessions), 0);
  const prompt = s.nodes.find((n) => n.text.startsWith('UserPromptSubmit: '));
  const failure = s.nodes.find((n) => n.text.includes('PostToolUseFailure'));
  if (k % 3 === 2 && failure) return failure.text.replace(/^.*exit 1, /, '');
  return (prompt?.text ?? 'retry backoff').replace('UserPromptSubmit: ', '');
}

/** Writes answered before their learning (the scope's learned state was still loading: warning learning_deferred). */
let deferred = 0;
const countDeferred = (body: Record<string, unknown>) => {
  if (((body.warnings as { code: string }[] | undefined) ?? []).some((w) => w.code === 'learning_deferred')) deferred += 1;
};

/** Posts the nodes of new hook sessions the way the hooks and an agent host would (sessions/events/append, memory/write). */
function writer(url: string, seed: number) {
  const queue: (() => Promise<number>)[] = [];
  let session = 0;
  const refill = () => {
    const s = hookSession(seed, session++, NOW);
    // Events need their session (an append to an unknown session is 404): the first event to run
    // creates it, and the others (run beside it by other workers) wait for that.
    let created: Promise<void> | null = null;
    const ensureSession = () =>
      (created ??= post(url, '/v1/memory/sessions/create', { tenant_id: tenant, scope, session_id: s.sessionId }).then((r) => {
        if (r.status !== 200) throw new Error(`sessions/create: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      }));
    for (const n of s.nodes) {
      if (n.kind === 'session') continue; // created before its first event (ensureSession)
      if (n.kind === 'session_event') {
        const ev = n.slots.session_event_v1 as { event_id: string; event_type: string; metadata: Record<string, unknown> };
        queue.push(async () => {
          await ensureSession();
          const r = await post(url, '/v1/memory/sessions/events/append', {
            tenant_id: tenant,
            scope,
            session_id: s.sessionId,
            event_id: ev.event_id,
            event_type: ev.event_type === 'prompt' ? 'note' : 'tool_call',
            input_text: n.text,
            tags: n.tags,
            metadata: ev.metadata,
          });
          if (r.status !== 200) throw new Error(`events/append: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
          countDeferred(r.body);
          return r.ms;
        });
      } else {
        queue.push(async () => {
          const r = await post(url, '/v1/memory/write', { tenant_id: tenant, scope, client_id: n.clientId, tags: n.tags, execution: n.execution });
          if (r.status !== 200) throw new Error(`memory/write: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
          countDeferred(r.body);
          return r.ms;
        });
      }
    }
  };
  return () => {
    if (queue.length === 0) refill();
    return queue.shift()!();
  };
}

async function fill(target: number): Promise<{ nodes: number; archived: number; seconds: number }> {
  const jar = await ensureMongoLauncherJar();
  const h = await startMongoServer({ jarPath: jar, port: await freePort(), dbFile: `${dataDir}/mongo.mv.db` });
  try {
    const db = await Database.connect(h.uri, 'lore');
    await db.ensureIndexes(allCollections);
    const r = await fillHookStore({ db, tenant, scope, target, seed: 1, now: NOW, aged, log: (l) => process.stderr.write(`${l}\n`) });
    await db.close();
    return { nodes: r.nodes, archived: r.archived, seconds: r.seconds };
  } finally {
    await h.stop();
    await h.exited;
  }
}

interface Started {
  lore: BenchLore;
  healthS: number;
  recallS: number;
  readyS: number;
  recallHits: number;
  firstRecallId: string | null;
}

/** Starts Lore and times it: /health answered, a recall answered, every index ready. */
async function start(marker?: string): Promise<Started> {
  const ports = await lorePorts(opts.port ? Number(opts.port) : undefined);
  const t0 = performance.now();
  const lore = await startBenchLore({ dataDir, ports, pollMs: 50, env: { LORE_DATA_DIR: dataDir, ...env }, nodeArgs: opts['node-arg'] });
  const healthS = (performance.now() - t0) / 1000;
  const r = await post(lore.url, '/v1/memory/recall_text', { tenant_id: tenant, scope, query_text: marker ?? 'flaky retry backoff test', limit: 5 });
  const recallS = (performance.now() - t0) / 1000;
  const results = (r.body.results as { id: string; text?: string }[] | undefined) ?? [];
  for (;;) {
    const h = (await (await fetch(`${lore.url}/health`)).json()) as { indexes?: { status: string } };
    if (h.indexes?.status === 'ready') break;
    await new Promise((res) => setTimeout(res, 100));
  }
  return { lore, healthS: r2(healthS), recallS: r2(recallS), readyS: r2((performance.now() - t0) / 1000), recallHits: results.length, firstRecallId: results[0]?.id ?? null };
}

const indexLog = (lore: BenchLore) =>
  lore
    .output()
    .split('\n')
    .filter((l) => /recall index|forgetting view|learning/.test(l) && /loaded|snapshot|caught up|ms/.test(l))
    .slice(-6);

for (const size of sizes) {
  label = `${size}${aged ? ' aged' : ' hot'}`;
  const f = await fill(size);
  emit('fill', { nodes: f.nodes, archived: f.archived, seconds: f.seconds, load: load() });
  const filledSessions = Math.round(f.nodes / 110);
  let s = await start();
  const apiPid = s.lore.pid;
  let serverPid = serverPidOf(apiPid);
  emit('restart', {
    nodes: f.nodes,
    health_s: s.healthS,
    recall_s: s.recallS,
    ready_s: s.readyS,
    recall_hits: s.recallHits,
    api_rss_mb: rssMb(apiPid),
    server_rss_mb: rssMb(serverPid),
    log: indexLog(s.lore),
    load: load(),
  });
  try {
    if (phases.has('recall')) {
      const url = s.lore.url;
      await pool(
        1,
        async (i) => (await post(url, '/v1/memory/recall_text', { tenant_id: tenant, scope, query_text: query(100_000 + i, filledSessions), limit: 10 })).ms,
        (i) => i >= 20,
      );
      const c0 = cpuMs(apiPid);
      const s0 = cpuMs(serverPid);
      const lat = await pool(
        1,
        async (i) => (await post(url, '/v1/memory/recall_text', { tenant_id: tenant, scope, query_text: query(i, filledSessions), limit: 10 })).ms,
        (i) => i >= queries,
      );
      emit('recall', {
        nodes: f.nodes,
        n: lat.length,
        p50: pct(lat, 0.5),
        p95: pct(lat, 0.95),
        api_cpu_ms: r2((cpuMs(apiPid) - c0) / queries),
        server_cpu_ms: r2((cpuMs(serverPid) - s0) / queries),
        load: load(),
      });
    }
    if (phases.has('writes')) {
      const next = writer(s.lore.url, RUN + 2 * sizes.indexOf(size));
      deferred = 0;
      const c0 = cpuMs(apiPid);
      const s0 = cpuMs(serverPid);
      const t0 = performance.now();
      const lat = await pool(
        8,
        () => next(),
        (i) => i >= writes,
      );
      const secs = (performance.now() - t0) / 1000;
      emit('writes', {
        nodes: f.nodes,
        n: lat.length,
        per_s: r2(lat.length / secs),
        p50: pct(lat, 0.5),
        p95: pct(lat, 0.95),
        api_cpu_ms: r2((cpuMs(apiPid) - c0) / lat.length),
        server_cpu_ms: r2((cpuMs(serverPid) - s0) / lat.length),
        learning_deferred: deferred,
        load: load(),
      });
    }
    if (phases.has('mixed')) {
      const url = s.lore.url;
      const recallFor = async (ms: number, offset: number) => {
        const end = performance.now() + ms;
        return pool(
          1,
          async (i) => (await post(url, '/v1/memory/recall_text', { tenant_id: tenant, scope, query_text: query(offset + i, filledSessions), limit: 10 })).ms,
          () => performance.now() > end,
        );
      };
      const alone = await recallFor(seconds * 1000, 200_000);
      let stop = false;
      let written = 0;
      const next = writer(url, RUN + 2 * sizes.indexOf(size) + 1);
      const w = pool(
        4,
        async () => {
          written += 1;
          return next();
        },
        () => stop,
      );
      const t0 = performance.now();
      const during = await recallFor(seconds * 1000, 300_000);
      stop = true;
      await w;
      emit('mixed', {
        nodes: f.nodes,
        alone: { n: alone.length, p50: pct(alone, 0.5), p95: pct(alone, 0.95) },
        with_writes: { n: during.length, p50: pct(during, 0.5), p95: pct(during, 0.95) },
        p95_ratio: r2((pct(during, 0.95) ?? 0) / (pct(alone, 0.95) ?? 1)),
        writes_per_s: r2(written / ((performance.now() - t0) / 1000)),
        load: load(),
      });
    }
    emit('rss', { nodes: f.nodes, api_rss_mb: rssMb(apiPid), api_peak_mb: peakMb(apiPid), server_rss_mb: rssMb(serverPid), server_peak_mb: peakMb(serverPid) });
    if (phases.has('kill')) {
      const marker = `kill marker zq${size.toString(36)}x${Date.now().toString(36)}`;
      const m = await post(s.lore.url, '/v1/memory/write', { tenant_id: tenant, scope, input_text: `${marker}: written just before a kill -9` });
      const markerId = (m.body.nodes as { id: string }[])[0]!.id;
      await s.lore.killHard();
      s = await start(marker);
      serverPid = serverPidOf(s.lore.pid);
      emit('kill', {
        nodes: f.nodes,
        health_s: s.healthS,
        recall_s: s.recallS,
        ready_s: s.readyS,
        marker_recalled_first: s.firstRecallId === markerId,
        api_rss_mb: rssMb(s.lore.pid),
        log: indexLog(s.lore),
        load: load(),
      });
    }
    if (phases.has('clean')) {
      const t0 = performance.now();
      await s.lore.stop();
      const stopS = r2((performance.now() - t0) / 1000);
      s = await start();
      emit('clean', {
        nodes: f.nodes,
        stop_s: stopS,
        health_s: s.healthS,
        recall_s: s.recallS,
        ready_s: s.readyS,
        api_rss_mb: rssMb(s.lore.pid),
        server_rss_mb: rssMb(serverPidOf(s.lore.pid)),
        log: indexLog(s.lore),
        load: load(),
      });
    }
  } catch (err) {
    process.stderr.write(`${(err as Error).stack}\nLore's output:\n${s.lore.output().slice(-6000)}\n`);
    throw err;
  } finally {
    const t0 = performance.now();
    await s.lore.stop();
    emit('stop', { seconds: r2((performance.now() - t0) / 1000) });
  }
}
process.exit(0);
