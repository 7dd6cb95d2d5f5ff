import { MongoClient } from 'mongodb';
import { nodesCollection } from '../../src/store/memory/nodes';
import { vectorCacheCollection } from '../../src/store/memory/vector-cache';
import { cli } from '../cli';
import { startBenchLore } from '../lore-process';

const USAGE = `How long a restart takes to full node vectors (docs/benchmarks.md, "Embeddings: write cost and
restart"): starts a real Lore ('bin/lore.mjs start', default encoder unless --env says otherwise)
on an existing data dir, then polls /health until the recall index is ready and no node waits
for its vector. Prints one JSON line: nodes in the store, vector cache entries, seconds to the
API answering, seconds to full vectors, and the encoder's counters (computed vs read back).

  node --import tsx bench/memory/vector-restart.ts --data-dir DIR [--drop-cache] [--env KEY=VALUE ...]

--drop-cache empties the vector cache first (one start and stop of Lore): the start then
computes every vector, as every start did before the cache existed.`;

const { values: opts } = cli(USAGE, { 'data-dir': { type: 'string' }, 'drop-cache': { type: 'boolean', default: false }, env: { type: 'string', multiple: true, default: [] } });
const env: Record<string, string> = { LORE_EMBEDDINGS: '' };
for (const kv of opts.env) {
  const [k, ...v] = kv.split('=');
  if (k) env[k] = v.join('=');
}
const dataDir = opts['data-dir'];
if (!dataDir) throw new Error('--data-dir is required (a Lore data dir holding the nodes)');

async function withMongo<T>(port: number, fn: (db: ReturnType<MongoClient['db']>) => Promise<T>): Promise<T> {
  const client = await MongoClient.connect(`mongodb://127.0.0.1:${port}/?directConnection=true`);
  try {
    return await fn(client.db(env.MONGODB_DB || 'lore'));
  } finally {
    await client.close();
  }
}

if (opts['drop-cache']) {
  const lore = await startBenchLore({ dataDir, env: { ...env, LORE_EMBEDDINGS: 'none' } });
  await withMongo(lore.ports.mongo, (db) => db.collection(vectorCacheCollection.name).deleteMany({}));
  await lore.stop();
}

const t0 = Date.now();
const lore = await startBenchLore({ dataDir, env });
const upS = (Date.now() - t0) / 1000;
let maxPending = 0;
for (;;) {
  const h = (await (await fetch(`${lore.url}/health`)).json()) as { indexes: { status: string }; embeddings: { status: string; pending?: number } & Record<string, unknown> };
  maxPending = Math.max(maxPending, h.embeddings.pending ?? 0);
  if (h.embeddings.status !== 'on') throw new Error(`the encoder is not on: ${JSON.stringify(h.embeddings)}`);
  if (h.indexes.status === 'ready' && h.embeddings.pending === 0) break;
  await new Promise((r) => setTimeout(r, 250));
}
const vectorsS = (Date.now() - t0) / 1000;
const counts = await withMongo(lore.ports.mongo, async (db) => ({
  nodes: await db.collection(nodesCollection.name).countDocuments({}),
  cache_entries: await db.collection(vectorCacheCollection.name).countDocuments({}),
}));
const line =
  lore
    .output()
    .split('\n')
    .find((l) => l.includes('vectors complete')) ?? null;
await lore.stop();
process.stdout.write(
  `${JSON.stringify({ ...counts, up_s: upS, full_vectors_s: vectorsS, max_pending: maxPending, log: line?.replace(/^.*vectors complete/, 'vectors complete') ?? null, loadavg: (await import('node:os')).loadavg().map((x) => +x.toFixed(1)) })}\n`,
);
process.exit(0);
