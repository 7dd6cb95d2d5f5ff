import { extractExecution, EXECUTION_SLOT } from '../../src/domain/memory/extract';
import { deriveSummary } from '../../src/domain/memory/text';
import { Database } from '../../src/store/database';
import { NodeStore, type NodeContent } from '../../src/store/memory/nodes';
import { cli } from '../cli';
import { AREAS as LOADGEN_AREAS, MODULES as LOADGEN_MODULES } from '../retrieval/loadgen-docs';

const USAGE = `Brings a scope to a node count fast for read benchmarks: inserts loadgen-shaped execution nodes
straight through the node store (with the same deterministic extraction the write path runs),
500 per batch, bypassing the HTTP write path and its listeners. Restart Lore afterwards so its
in-process indexes load them; learning does not learn from them (they are background nodes).

  MONGODB_URI=mongodb://127.0.0.1:27018/?directConnection=true node --import tsx bench/learning/fill-store.ts --scope S --count 70000 [--db lore]`;

const { values: opts } = cli(USAGE, { scope: { type: 'string' }, tenant: { type: 'string' }, count: { type: 'string' }, prefix: { type: 'string' }, db: { type: 'string' } });
const arg = (k: keyof typeof opts, d: string) => opts[k] ?? d;
const SCOPE = arg('scope', 'perf');
const TENANT = arg('tenant', 'default');
const COUNT = Number(arg('count', '70000'));
const PREFIX = arg('prefix', 'fillstore');

// loadgen's first areas and modules (bench/retrieval/loadgen-docs.ts); the problems and verbs are this tool's own.
const AREAS: string[] = LOADGEN_AREAS.slice(0, 20);
const MODULES: string[] = LOADGEN_MODULES.slice(0, 12);
const PROBLEMS = [
  'retry backoff',
  'pagination cursor',
  'CSV export encoding',
  'JWT refresh',
  'cache invalidation',
  'webhook signature check',
  'timezone date parsing',
  'memory leak',
  'race condition',
  'upload size limit',
  'flaky integration test',
  'locale fallback',
];
const VERBS = ['fix', 'add', 'refactor', 'debug', 'speed up', 'upgrade'];

function content(i: number): NodeContent {
  const area = AREAS[(i * 7) % AREAS.length]!;
  const mod = MODULES[(i * 13) % MODULES.length]!;
  const problem = PROBLEMS[(i * 5) % PROBLEMS.length]!;
  const verb = VERBS[i % VERBS.length]!;
  const file = `src/${area}/${mod}.ts`;
  const title = `${verb} ${problem} in ${area} ${mod}`;
  const text = `Run s${i}: ${verb} ${problem} in ${file} (${area} ${mod}). Steps: read ${file}, then edited it, then ran npm test. Outcome: ${i % 4 === 0 ? 'failed' : 'all tests passed'}.`;
  const slots: Record<string, unknown> = {
    task_kind: `${verb.replace(/ /g, '_')}_${area}`,
    file_path: file,
    tool_sequence: ['read', 'edit', 'test'],
    outcome_status: i % 4 === 0 ? 'failure' : 'success',
  };
  slots[EXECUTION_SLOT] = extractExecution({ title, text, slots });
  return { client_id: `${PREFIX}-${i}`, type: 'event', title, text, summary: deriveSummary(text), slots, actor: 'fill', tags: [] };
}

const db = await Database.connect(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27018/?directConnection=true', arg('db', 'lore'));
const nodes = new NodeStore(db).in({ tenant_id: TENANT, scope: SCOPE });
const t0 = Date.now();
for (let b = 0; b < COUNT; b += 500) {
  await nodes.insert(
    Array.from({ length: Math.min(500, COUNT - b) }, (_, k) => content(b + k)),
    new Date(),
  );
  if ((b / 500) % 20 === 19) process.stderr.write(`inserted ${b + 500}/${COUNT} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
}
await db.close();
console.log(JSON.stringify({ inserted: COUNT, seconds: (Date.now() - t0) / 1000 }));
process.exit(0);
