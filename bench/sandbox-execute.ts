import { cli, numOr } from './cli';
import { startLocalLore } from './harness';

const USAGE = `Per-command overhead of the sandbox through the full path: HTTP (Fastify inject) → execute →
Temporal workflow → activity → bubblewrap → run record in MongoDB → response.

  node --import tsx bench/sandbox-execute.ts [--n 100]

Runs 'true' in sync mode N times (default 100) at concurrency 1 and at concurrency 4, against
the real local Temporal dev server and MongoDB-compatible server (started here, or taken from
LORE_BENCH_TEMPORAL_ADDRESS / LORE_BENCH_MONGODB_URI), with an in-process worker. Prints p50 /
p95 / mean / min / max of the request latency in ms, and the runner's own duration_ms (spawn to
exit) for comparison.`;

const { values: opts } = cli(USAGE, { n: { type: 'string' } });
const N = numOr(opts.n, 100);

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  const f = (v: number) => Number(v.toFixed(1));
  return { p50: f(q(0.5)), p95: f(q(0.95)), mean: f(s.reduce((a, b) => a + b, 0) / s.length), min: f(s[0]!), max: f(s.at(-1)!) };
}

const api = await startLocalLore({ worker: true });
try {
  const session = await api.post('/v1/memory/sandbox/sessions', { profile: 'default' });
  if (session.status !== 200) throw new Error(JSON.stringify(session.body));
  const sid = session.body.session_id as string;
  console.log(`isolation: ${session.body.session.isolation.kind} ${session.body.session.isolation.version ?? ''}`);

  const once = async () => {
    const t0 = performance.now();
    const res = await api.post('/v1/memory/sandbox/execute', { session_id: sid, mode: 'sync', action: { kind: 'command', argv: ['true'] } });
    const ms = performance.now() - t0;
    if (res.status !== 200 || res.body.run.status !== 'succeeded') throw new Error(JSON.stringify(res.body));
    return { ms, runner: res.body.run.duration_ms as number };
  };

  for (let i = 0; i < 10; i++) await once(); // warm-up: workflow bundle caches, connections, probe

  for (const concurrency of [1, 4]) {
    const lat: number[] = [];
    const runner: number[] = [];
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < N) {
          next += 1;
          const r = await once();
          lat.push(r.ms);
          runner.push(r.runner);
        }
      }),
    );
    const wall = (performance.now() - t0) / 1000;
    console.log(`concurrency ${concurrency}, ${lat.length} runs of \`true\` (sync), ${(lat.length / wall).toFixed(1)} runs/s`);
    console.log(`  request latency ms  ${JSON.stringify(stats(lat))}`);
    console.log(`  runner duration_ms  ${JSON.stringify(stats(runner))}`);
  }
} finally {
  await api.close();
}
process.exit(0);
