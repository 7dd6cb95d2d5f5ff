import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configureIdRange, detectIsolation, prepareWorkdir, runIsolated, type RunLimits } from '../src/sandbox/isolation/index';
import { cli, numOr } from './cli';

const USAGE = `Per-command overhead of sandbox isolation.

  node --import tsx bench/sandbox-overhead.ts [--n 50]

Wall time of running 'true' N times (default 50), sequentially, measured from the call to the
resolved outcome: direct child_process.spawn('true') vs runIsolated with isolation 'none' vs
isolation 'bubblewrap'. Prints median / p95 / mean / min / max in ms.`;

const { values: opts } = cli(USAGE, { n: { type: 'string' } });
const N = numOr(opts.n, 50);
configureIdRange({ min: 490000, max: 499999 });

const limits: RunLimits = {
  wallMs: 30_000,
  cpuSeconds: 10,
  memoryBytes: 512 * 1024 * 1024,
  maxProcesses: 64,
  maxFileBytes: 64 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
};

function direct(): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn('true', [], { stdio: ['ignore', 'pipe', 'pipe'] });
    c.once('error', reject);
    c.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
  });
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  return { median: q(0.5), p95: q(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length, min: s[0]!, max: s.at(-1)! };
}

async function measure(fn: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < 3; i++) await fn(); // warm-up
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

const t0 = performance.now();
const info = await detectIsolation();
const probeMs = performance.now() - t0;
const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'lore-bench-'));
await fsp.chmod(root, 0o711);
try {
  const wd = await prepareWorkdir(root, 'bench');
  const viaRunner = (isolation: 'bubblewrap' | 'none') => async () => {
    const r = await runIsolated({ argv: ['true'], workdir: wd.hostPath, limits, isolation }, { onOutput: () => undefined });
    if (r.status !== 'succeeded') throw new Error(`${isolation}: ${r.status} ${r.reason} ${r.stderr_tail}`);
  };
  const rows: [string, number[]][] = [
    ['direct spawn(true)', await measure(direct)],
    ["isolation 'none'", await measure(viaRunner('none'))],
  ];
  if (info.kind === 'bubblewrap') rows.push(["isolation 'bubblewrap'", await measure(viaRunner('bubblewrap'))]);

  console.log(
    `host: ${os.cpus().length} cpus, node ${process.version}, isolation probe: ${info.kind} ${info.version ?? ''} (uid isolation: ${info.uid_isolation}), probe took ${probeMs.toFixed(0)} ms`,
  );
  console.log(`N = ${N} sequential runs of \`true\` each (after 3 warm-up runs); wall ms per run\n`);
  const head = ['variant', 'median', 'p95', 'mean', 'min', 'max'];
  const lines = rows.map(([name, xs]) => {
    const s = stats(xs);
    return [name, ...[s.median, s.p95, s.mean, s.min, s.max].map((v) => v.toFixed(1))];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(fmt(l));
  const base = stats(rows[0]![1]).median;
  console.log('');
  for (const [name, xs] of rows.slice(1)) console.log(`${name}: +${(stats(xs).median - base).toFixed(1)} ms median over direct spawn`);
} finally {
  await fsp.rm(root, { recursive: true, force: true });
}
