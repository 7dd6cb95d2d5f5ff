import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syncWorkspace } from '../src/sandbox/isolation/workspace';
import { cli, numOr } from './cli';

const USAGE = `What a workspace costs each sandbox run (docs/sandbox.md, "Workspaces"): syncWorkspace over a
synthetic project of N files (2 KiB each, 25 per directory), as root with an owner (uid isolation).

  node --import tsx bench/workspace-sync.ts [--files 5000] [--rounds 5]

Per round: the first copy, a re-sync with nothing changed (what every later run pays), and a
re-sync after the host edited 10 files. Prints the median of the rounds in ms.`;

const { values: opts } = cli(USAGE, { files: { type: 'string' }, rounds: { type: 'string' } });
const N = numOr(opts.files, 5000);
const ROUNDS = numOr(opts.rounds, 5);
const owner = process.getuid?.() === 0 ? { uid: 1_000_123, gid: 1_000_123 } : null;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const timed = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

const times = { first: [] as number[], unchanged: [] as number[], edited: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  const root = mkdtempSync(join(tmpdir(), 'lore-ws-bench-'));
  const src = join(root, 'project');
  const work = join(root, 'work');
  mkdirSync(work);
  for (let d = 0; d < Math.ceil(N / 25); d++) {
    mkdirSync(join(src, `d${d}`), { recursive: true });
    for (let f = 0; f < 25 && d * 25 + f < N; f++) writeFileSync(join(src, `d${d}`, `f${f}.js`), `// ${d}/${f}\n${'x'.repeat(2048)}`);
  }
  times.first.push(await timed(() => syncWorkspace(src, work, owner)));
  times.unchanged.push(await timed(() => syncWorkspace(src, work, owner)));
  for (let i = 0; i < 10; i++) writeFileSync(join(src, `d${i % Math.ceil(N / 25)}`, `f${i}.js`), `edited ${i}`);
  times.edited.push(await timed(() => syncWorkspace(src, work, owner)));
  rmSync(root, { recursive: true, force: true });
}
console.log(
  `${N} files, ${ROUNDS} rounds, median ms: first copy ${median(times.first).toFixed(0)}, nothing changed ${median(times.unchanged).toFixed(0)}, 10 files edited ${median(times.edited).toFixed(0)}`,
);
