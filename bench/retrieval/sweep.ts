import fs from 'node:fs';
import { loadVectorSource, resolveConfig, runBench } from './locomo-inproc';
import { cli } from '../cli';

const USAGE = `Runs many LoCoMo configurations in one process and prints one line each:
hit@10 / MRR on the tuning convs (26,30), the confirm convs (41,42,43) and the held-out
rest (44,47,48,49,50).
  node --import tsx bench/retrieval/sweep.ts '<json config>' '<json config>' ...
  node --import tsx bench/retrieval/sweep.ts --file configs.jsonl
Each config overrides the "plain" preset (PRESET=lore|baseline to change); SPLITS=tune,confirm
limits the splits.`;

const SPLITS: Record<string, string[]> = {
  tune: ['26', '30'],
  confirm: ['41', '42', '43'],
  heldout: ['44', '47', '48', '49', '50'],
};

async function main(): Promise<void> {
  const { values, positionals } = cli(USAGE, { file: { type: 'string' } }, { positionals: true });
  const configs = values.file
    ? fs
        .readFileSync(values.file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith('#'))
    : positionals;
  const splits = (process.env.SPLITS ?? 'tune,confirm,heldout').split(',');
  const ks = [1, 5, 10, 20];
  for (const c of configs) {
    const cfg = resolveConfig(process.env.PRESET ?? 'plain', c);
    const vec = await loadVectorSource(cfg);
    const parts: string[] = [];
    for (const s of splits) {
      const r = await runBench(SPLITS[s] as string[], cfg, ks, vec);
      parts.push(`${s} h10=${(r.overall['hit@10'] ?? 0).toFixed(3)} h1=${(r.overall['hit@1'] ?? 0).toFixed(3)} mrr=${(r.overall.mrr ?? 0).toFixed(3)}`);
    }
    process.stdout.write(`${parts.join(' | ')}  ${c}\n`);
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
