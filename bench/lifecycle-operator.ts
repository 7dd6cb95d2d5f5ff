import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { ManualClock } from '../src/model/clock';
import { loadConfig } from '../src/config';
import { NodeStore, type NodeContent } from '../src/store/memory/nodes';
import { allCollections } from '../src/store/collections';
import { Database } from '../src/store/database';
import { scopeRef } from '../src/store/scope';
import { cli, numOr } from './cli';
import { localServers, startLocalLore } from './harness';

const USAGE = `Cost of the lifecycle operator and of the forgetting summary at scale.

  node --import tsx bench/lifecycle-operator.ts [--nodes 100000] [--summary-only]

One scope of N event nodes (default 100 000, ~200-byte payloads) inserted straight through the
node store, then the real API + an in-process worker on the local servers (or the ones named by
LORE_BENCH_MONGODB_URI / LORE_BENCH_TEMPORAL_ADDRESS), sharing a ManualClock:
  1. start-up: time until the forgetting view is built (first summary answered);
  2. run over fresh nodes (every node gets its first decision: one slot write each);
  3. the same run again at the same clock (read-only pass: every decision stands);
  4. 100 days later: every node archived (cold-store insert + read-back + node update each);
  5. forgetting summary latency (what planning pays), p50/p95 over 300 calls after one warm-up.
With --summary-only, steps 2-4 are skipped (start-up and summary latency only).`;

const { values: opts } = cli(USAGE, { nodes: { type: 'string' }, 'summary-only': { type: 'boolean', default: false } });
const N = numOr(opts.nodes, 100_000);
const SUMMARY_ONLY = opts['summary-only'];
const DAY = 86_400_000;

const ms = (t0: number) => Math.round(performance.now() - t0);
function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
}

const services = await localServers();
const dbName = `bench_lifecycle_${randomBytes(3).toString('hex')}`;
const ref = scopeRef('bench', 'lifecycle');
const clock = new ManualClock('2026-01-01T00:00:00.000Z');

// Seed directly through the store (the write path's cost is not what is measured here).
{
  const config = loadConfig({ ...process.env, MONGODB_URI: services.mongoUri, MONGODB_DB: dbName });
  const db = await Database.connect(config.mongo.uri!, config.mongo.database);
  await db.ensureIndexes(allCollections);
  const nodes = new NodeStore(db).in(ref);
  const t0 = performance.now();
  for (let start = 0; start < N; start += 1000) {
    const batch: NodeContent[] = [];
    for (let i = start; i < Math.min(N, start + 1000); i += 1) {
      const text = `Deployment note ${i}: the release train ran step ${i % 7} of the rollout in region ${i % 13}; checks passed after a retry of the smoke suite. ${'x'.repeat(60)}`;
      batch.push({ client_id: `n-${i}`, type: 'event', text, summary: text.slice(0, 80), actor: 'bench' });
    }
    await nodes.insert(batch, clock.now());
  }
  console.log(`seeded ${N} nodes in ${ms(t0)} ms`);
  await db.close();
}

const t0 = performance.now();
const api = await startLocalLore({ worker: true, clock, env: { MONGODB_DB: dbName } });
const startMs = ms(t0);
const t1 = performance.now();
const first = await api.modules.lifecycle.services.forgettingSummary(ref);
console.log(`API start ${startMs} ms (recall index included); forgetting view ready ${ms(t1)} ms later; node_count ${first.node_count}`);

async function run(label: string) {
  const t = performance.now();
  const res = await api.post('/v1/memory/lifecycle/run', { ...ref, max_nodes: N, wait_ms: 600_000 });
  if (res.status !== 200) throw new Error(`${label}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  // Past the route's longest wait the run goes on: wait for the workflow itself.
  const body = res.body.status === 'completed' ? res.body : await api.engine.result<any>(res.body.workflow_id);
  const took = ms(t);
  const c = body.counts;
  console.log(
    `${label}: ${took} ms for ${body.examined} nodes (${Math.round((body.examined / took) * 1000)} nodes/s); ` +
      `applied ${c.outcomes.applied}, unchanged ${c.outcomes.unchanged}, demoted ${c.moves.demoted}, archived ${c.moves.archived}; load average ${loadavg()[0]!.toFixed(1)}`,
  );
}

if (!SUMMARY_ONLY) {
  await run('run 1, fresh nodes (first decision each)');
  await run('run 2, same clock (every decision stands)');
  clock.advance(100 * DAY);
  await run('run 3, 100 days later (archive everything)');
}

// The first call after a run applies every change the run made; planning pays the steady state.
const tc = performance.now();
await api.modules.lifecycle.services.forgettingSummary(ref);
console.log(`first summary after the runs (catches up ${N}+ node changes): ${ms(tc)} ms`);
const lat: number[] = [];
for (let i = 0; i < 300; i += 1) {
  const t = performance.now();
  await api.modules.lifecycle.services.forgettingSummary(ref);
  lat.push(performance.now() - t);
}
const s = await api.modules.lifecycle.services.forgettingSummary(ref);
console.log(`forgetting summary at ${s.node_count} nodes: p50 ${pct(lat, 0.5).toFixed(2)} ms, p95 ${pct(lat, 0.95).toFixed(2)} ms (tier_counts ${JSON.stringify(s.tier_counts)})`);
const lr = await api.post('/v1/memory/lifecycle/summary', ref);
console.log(`lifecycle/summary over HTTP: ${lr.status}`);

await api.close();
process.exit(0);
