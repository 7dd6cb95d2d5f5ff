import { readFileSync, writeFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { FamilyIndex, type FamilyQuery } from '../../src/domain/learning/family-index';
import { observationQuery } from '../../src/domain/learning/distill';
import { observationOf } from '../../src/domain/learning/observe';
import { THRESHOLDS } from '../../src/domain/learning/score';
import { workflowClass, workflowSignature, type Learned } from '../../src/domain/learning/scope-state';
import { TermStats } from '../../src/domain/learning/similarity';
import type { WorkflowSlot } from '../../src/domain/learning/workflow-model';
import { EXECUTION_SLOT, extractExecution } from '../../src/domain/memory/extract';
import type { StoredNode } from '../../src/store/memory/nodes';
import { makeItem, writeSlots } from '../retrieval/loadgen-docs';
import { cli } from '../cli';

const USAGE = `The learning family index's search, offline, on the workflows a real Lore learned: loads them
from a dump (or straight from a Lore's MongoDB), builds the index as a scope does
(src/domain/learning/family-index.ts) over the first 10 %, 25 %, 50 % and all of them, and times
the searches a write and a task start run for loadgen-shaped executions (distillation's merge
search; the planner's live and archived searches). Prints one JSON line per size: µs per search
and the mean number of hits.

  node --import tsx bench/learning/family-search.ts --mongo mongodb://127.0.0.1:21104/?directConnection=true --scope S [--dump FILE]
  node --import tsx bench/learning/family-search.ts --workflows FILE [--queries 2000] [--seed 9]`;

const { values: opts } = cli(USAGE, {
  mongo: { type: 'string' },
  db: { type: 'string' },
  tenant: { type: 'string' },
  scope: { type: 'string' },
  dump: { type: 'string' },
  workflows: { type: 'string' },
  queries: { type: 'string' },
  seed: { type: 'string' },
});
const opt = (name: keyof typeof opts, def?: string) => opts[name] ?? def;
if (!opts.mongo && !opts.workflows) throw new Error(`--mongo or --workflows is required\n\n${USAGE}`);

type Dumped = { id: string; tier: string; slot: WorkflowSlot };
let workflows: Dumped[];
if (opt('mongo')) {
  const client = await MongoClient.connect(opt('mongo')!);
  const col = client.db(opt('db', 'lore')).collection<{ _id: string; tier: string; slots: Record<string, unknown> }>('memory_nodes');
  workflows = [];
  let after = '';
  for (;;) {
    const page = await col
      .find({ tenant_id: opt('tenant', 'default')!, scope: opt('scope')!, kind: 'workflow', _id: { $gt: after } })
      .sort({ _id: 1 })
      .limit(500)
      .toArray();
    for (const d of page) workflows.push({ id: d._id, tier: d.tier, slot: d.slots.workflow_v1 as WorkflowSlot });
    if (page.length < 500) break;
    after = page[page.length - 1]!._id;
  }
  await client.close();
  if (opt('dump')) writeFileSync(opt('dump')!, JSON.stringify(workflows));
} else {
  workflows = JSON.parse(readFileSync(opt('workflows')!, 'utf8')) as Dumped[];
}

// Loadgen-shaped executions (bench/retrieval/loadgen-docs.ts), as learning observes them.
const queries: FamilyQuery[] = [];
const seed = Number(opt('seed', '9'));
for (let i = 0; queries.length < Number(opt('queries', '2000')); i += 1) {
  const item = makeItem(seed * 1_000_000 + i);
  const ex = extractExecution({ title: item.title, text: item.summary, summary: item.summary, slots: writeSlots(item) });
  const node = {
    id: `q${i}`,
    type: 'event',
    kind: null,
    slots: { [EXECUTION_SLOT]: ex },
    title: item.title,
    summary: item.summary,
    revision: 1,
    updated_at: new Date().toISOString(),
  } as unknown as StoredNode;
  const o = observationOf(node);
  if (o) queries.push(observationQuery(o));
}

const SEARCHES = {
  merge: { minScore: THRESHOLDS.merge, merge: true, limit: 1 },
  'planner live': { minScore: THRESHOLDS.relevant, limit: 10, include: (c: string) => c.startsWith('live:'), boost: (c: string) => (c.endsWith(':stable') ? 0.05 : 0) },
  'planner archived': { minScore: THRESHOLDS.relevant, limit: 10, include: (c: string) => c.startsWith('archive:'), boost: (c: string) => (c.endsWith(':stable') ? 0.05 : 0) },
};

const time = (fn: () => void) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};

for (const share of [0.1, 0.25, 0.5, 1]) {
  const subset = workflows.slice(0, Math.round(workflows.length * share));
  const index = new FamilyIndex<Learned<WorkflowSlot>>(new TermStats(), (w) => `${w.slot.steps[0]?.tool ?? ''}|${w.slot.steps[0]?.file_path ?? ''}`, workflowClass);
  for (const w of subset) {
    const value = { node: { id: w.id, tier: w.tier } as Learned<WorkflowSlot>['node'], slot: w.slot };
    index.put(w.id, workflowSignature(w.slot), value);
  }
  const row: Record<string, string> = { families: String(subset.length) };
  for (const [name, search] of Object.entries(SEARCHES)) {
    let hits = 0;
    for (const q of queries.slice(0, 50)) hits += index.search(q, search).length;
    const indexed = time(() => queries.forEach((q) => index.search(q, search)));
    row[name] = `${((indexed * 1000) / queries.length).toFixed(0)} µs (${(hits / 50).toFixed(1)} hits)`;
  }
  console.log(JSON.stringify(row));
}
