import { cli, numOr } from '../cli';

const USAGE = `What a Lore answers in its first seconds after a (re)start, while its start-up builds run
(docs/benchmarks.md, "Task start at scale"; docs/design.md, "Start-up builds").
Waits until GET /health answers, then for --seconds runs --writers concurrent single writes into
--scope, and every second one planning/context and one kickoff request, and prints per second:
writes, how many carried the warning learning_deferred, write p50 and max, the task starts'
latencies and whether their uncertainty said the scope was loading, and /health's index states.
Start it just before (or right after) starting Lore, e.g. with bench/memory/run-lore.ts.

  node --import tsx bench/memory/start-probe.ts --base-url http://127.0.0.1:23110 --scope s100k [--seconds 12] [--writers 8]`;

const { values: opts } = cli(USAGE, {
  'base-url': { type: 'string', default: 'http://127.0.0.1:3001' },
  scope: { type: 'string' },
  seconds: { type: 'string' },
  writers: { type: 'string' },
});
if (!opts.scope) throw new Error('--scope is required');
const base = opts['base-url'];
const scope = opts.scope;
const seconds = numOr(opts.seconds, 12);
const writers = numOr(opts.writers, 8);

const post = async (path: string, body: unknown) => {
  const started = Date.now();
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  return { ms: Date.now() - started, status: res.status, json };
};
const health = async () => {
  const h = (await (await fetch(`${base}/health`)).json()) as { indexes?: Record<string, { status?: string }> & { status?: string } };
  const i = h.indexes ?? {};
  return `${i.status} (recall ${i.recall?.status}, learning ${i.learning?.status}, forgetting ${i.forgetting?.status})`;
};
const loading = (json: Record<string, unknown>) => ((json.uncertainty as { reasons?: string[] } | undefined)?.reasons ?? []).some((r) => /still loading/.test(r));

const waitStart = Date.now();
for (;;) {
  const up = await fetch(`${base}/health`).then(
    (r) => r.ok || r.status === 503,
    () => false,
  );
  if (up) break;
  await new Promise((r) => setTimeout(r, 100));
}
process.stdout.write(`/health answered after ${((Date.now() - waitStart) / 1000).toFixed(1)} s of waiting: ${await health()}\n`);

const t0 = Date.now();
type Second = { writes: number[]; deferred: number; starts: string[]; health: string };
const perSecond = new Map<number, Second>();
const at = (ms: number) => {
  const k = Math.floor((ms - t0) / 1000);
  let s = perSecond.get(k);
  if (!s) perSecond.set(k, (s = { writes: [], deferred: 0, starts: [], health: '' }));
  return s;
};
let n = 0;
async function writer(): Promise<void> {
  while (Date.now() - t0 < seconds * 1000) {
    const i = n++;
    const started = Date.now();
    const area = ['payments', 'auth', 'billing', 'search'][i % 4];
    const r = await post('/v1/memory/write', {
      tenant_id: 'default',
      scope,
      execution: {
        goal: `fix the retry timeout in the ${area} worker ${i % 50}`,
        task_kind: 'bugfix',
        run_id: `start-probe-${t0}-${i}`,
        steps: [
          { tool: 'read', file_path: `src/${area}/w${i % 50}.ts` },
          { tool: 'edit', file_path: `src/${area}/w${i % 50}.ts` },
        ],
        target_files: [`src/${area}/w${i % 50}.ts`],
        outcome: 'success',
      },
    });
    const s = at(started);
    s.writes.push(r.ms);
    if (((r.json.warnings as { code: string }[] | undefined) ?? []).some((w) => w.code === 'learning_deferred')) s.deferred += 1;
  }
}
async function taskStarts(): Promise<void> {
  const q = { tenant_id: 'default', scope, query_text: 'fix the retry timeout in the payments worker', context: { task_kind: 'bugfix' } };
  while (Date.now() - t0 < seconds * 1000) {
    const started = Date.now();
    const h = await health();
    const p = await post('/v1/memory/planning/context', q);
    const k = await post('/v1/memory/kickoff/recommendation', q);
    const s = at(started);
    s.health = h;
    s.starts.push(`planning ${p.ms} ms${loading(p.json) ? ' (loading)' : ''}, kickoff ${k.ms} ms${loading(k.json) ? ' (loading)' : ''}`);
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
  }
}
await Promise.all([...Array.from({ length: writers }, () => writer()), taskStarts()]);
for (const [k, s] of [...perSecond].sort((a, b) => a[0] - b[0])) {
  const w = [...s.writes].sort((a, b) => a - b);
  const writes = w.length > 0 ? `${w.length} writes (${s.deferred} learning_deferred), p50 ${w[Math.floor(w.length / 2)]} ms, max ${w[w.length - 1]} ms` : 'no write finished';
  process.stdout.write(`s${k}: ${writes}${s.starts.length > 0 ? ` | ${s.starts.join('; ')} | ${s.health}` : ''}\n`);
}
process.stdout.write(`after: ${await health()}\n`);
