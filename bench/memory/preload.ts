import { WriteInput } from '../../src/contract/families/memory';
import { RecallIndex } from '../../src/domain/memory/recall-index';
import { writeNodes, type WriteItem } from '../../src/domain/memory/write';
import { itemsFromWrite } from '../../src/domain/memory/write-request';
import { silentLog } from '../../src/log';
import { allCollections } from '../../src/store/collections';
import { Database } from '../../src/store/database';
import { NodeStore } from '../../src/store/memory/nodes';
import { scopeRef } from '../../src/store/scope';
import { makeItem, writeSlots } from '../retrieval/loadgen-docs';
import { cli } from '../cli';

const USAGE = `Preloads a scope with the load generator's nodes, fast, for the recall benchmarks at 100,000
nodes (docs/benchmarks.md). It writes through Lore's own write path (the same request mapping,
extraction and store as POST /v1/memory/write with loadgen's writeBody), straight into the
MongoDB of a stopped or running Lore, 500 nodes per store batch. Restart Lore afterwards so its
recall index is built from the store (or let catch-up find them).

  LOADGEN_SEED=1 node --import tsx bench/memory/preload.ts --mongo mongodb://127.0.0.1:21104 \
       --scope bench100k --nodes 100000 [--db lore] [--tenant default] [--from 0]

Then: node ../shared/bench/loadgen.mjs --base-url … --scope bench100k --nodes 100000 --seed 1
       --phases recall   (loadgen finds targets by the run-id marker in the text).`;

const { values: opts } = cli(USAGE, {
  mongo: { type: 'string' },
  scope: { type: 'string' },
  tenant: { type: 'string' },
  nodes: { type: 'string' },
  from: { type: 'string' },
  db: { type: 'string' },
});
const opt = (name: keyof typeof opts, def?: string) => opts[name] ?? def;
const mongo = opt('mongo', 'mongodb://127.0.0.1:21104')!;
const scope = opt('scope');
if (!scope) throw new Error(`--scope is required\n\n${USAGE}`);
const tenant = opt('tenant', 'default')!;
const n = Number(opt('nodes', '100000'));
const from = Number(opt('from', '0'));
if (!scope) throw new Error('--scope is required (the same as loadgen --scope)');

// loadgen.mjs writeBody(item) with --payload plain and the default --agent-id bench-agent.
function writeBody(item: ReturnType<typeof makeItem>) {
  const slots = writeSlots(item);
  return {
    tenant_id: tenant,
    scope,
    actor: 'bench-agent',
    input_text: `${item.title}. ${item.summary}`,
    memory_lane: 'shared',
    nodes: [{ client_id: `bench:${scope}:${item.i}`, type: 'event', title: item.title, text_summary: item.summary, slots, producer_agent_id: 'bench-agent' }],
    edges: [],
  };
}

const db = await Database.connect(mongo, opt('db', 'lore')!);
await db.ensureIndexes(allCollections);
const store = new NodeStore(db);
const deps = { store, index: new RecallIndex(), applyLocal: () => {}, now: () => new Date(), listeners: [], log: silentLog };
const ref = scopeRef(tenant, scope);
const t0 = Date.now();
const BATCH = 500;
for (let at = from; at < n; at += BATCH) {
  const items: WriteItem[] = [];
  for (let i = at; i < Math.min(n, at + BATCH); i += 1) items.push(...itemsFromWrite(WriteInput.parse(writeBody(makeItem(i)))).items);
  await writeNodes(deps, ref, 'bench-agent', items);
  if ((at / BATCH) % 20 === 0) process.stderr.write(`  ${at + items.length}/${n} in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
}
process.stderr.write(`preloaded ${n - from} nodes into ${tenant}/${scope} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
await db.close();
