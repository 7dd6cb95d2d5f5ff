import { performance } from 'node:perf_hooks';
import { taskTerms } from '../../src/domain/learning/similarity';
import { startLocalLore } from '../harness';
import { cli } from '../cli';
import { FAMILIES, FRESH, FRESH2, MORE_FAMILIES, UNSEEN, UNSEEN_FRESH, UNSEEN_FRESH2, sharedKind, unseenKind, type Family } from './families';
import { AREAS, MODULES, PROBLEMS, mulberry32 } from './noise-vocabulary';

const USAGE = `Learning benchmark, task start (docs/benchmarks.md, "Learning: task start"; issue 28): does a
task start phrased differently from the training get the learned first move, when task kinds
are shared (bugfix, feature, …: several families per kind) and the evidence is what agents send?

  node --import tsx bench/learning/task-start.ts [--mode execution|text] [--noise 2000] [--seed 1] [--embeddings onnx|none]

- 42 task families (families.ts FAMILIES + MORE_FAMILIES), each learned from 3 successful
  executions (one per training phrasing) amid '--noise' unrelated writes that use the same
  shared kinds, tools and areas (and fail or half-succeed sometimes).
- '--mode execution': every write is an 'execution' object (goal, task_kind, steps, outcome);
  '--mode text': every write is 'input_text' only, a narrative naming the task, the tools it
  used on which files and the result ("fix X: read a.ts, then edited a.ts; run_tests: 9 passed").
  Text writes state no task kind (agents that send text rarely do; '--text-kind' prefixes "[kind]").
- Queried at /v1/memory/kickoff/recommendation with every held-out phrasing (families.ts 'test',
  FRESH, FRESH2; those whose max Jaccard to a training phrasing is above --max-jaccard, default
  0.15, are left out), with and without the family's shared task_kind; with each family's first
  training phrasing verbatim (trained); and with every unseen task (UNSEEN*, with a plausible
  shared kind and without).
- Reported: file@1 / tool@1 (first_action's file and tool are the family's), the unseen tasks'
  null rate, and the mean over held-out phrasings of their max Jaccard similarity to the
  family's training phrasings (learning's own terms: stems, stop words out).

--embeddings picks LORE_EMBEDDINGS for the in-process API (default: the product default, onnx
where it runs; 'npx lore models install' fetches the model). 'none' is the lexical fallback.`;

const { values: opts } = cli(USAGE, {
  mode: { type: 'string' },
  noise: { type: 'string' },
  seed: { type: 'string' },
  embeddings: { type: 'string' },
  'text-kind': { type: 'boolean' },
  'max-jaccard': { type: 'string' },
  settle: { type: 'boolean' },
});
const args = new Map(Object.entries(opts).map(([k, v]) => [k, String(v)]));
const MODE = args.get('mode') ?? 'execution';
const NOISE = Number(args.get('noise') ?? 2000);
const SEED = Number(args.get('seed') ?? 1);
const EMBEDDINGS = args.get('embeddings') ?? 'onnx';
const TEXT_KIND = opts['text-kind'] === true;
const MAX_JACCARD = Number(args.get('max-jaccard') ?? 0.15);
const SETTLE = opts.settle === true;
if (MODE !== 'execution' && MODE !== 'text') throw new Error('--mode execution|text');

const CANDIDATES = ['read', 'edit', 'apply_patch', 'run_tests', 'bash', 'grep'];
/** The families' tool names as agents name them. */
const toolName = (t: string) => (t === 'test' ? 'run_tests' : t);

const rnd = mulberry32(SEED);
const pick = <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)]!;

interface Exec {
  goal: string;
  kind: string;
  file: string;
  tools: string[];
  outcome: 'success' | 'failure' | 'partial';
  run_id: string;
}

/** One tool used, as an agent's narrative says it. */
function narrate(tool: string, file: string | null, i: number): string {
  switch (tool) {
    case 'read':
      return `read ${file ?? 'the module'}`;
    case 'edit':
      return file ? `edited ${file}` : 'edited the code';
    case 'apply_patch':
      return `patched ${file ?? 'it'} with apply_patch`;
    case 'grep':
      return `grepped ${file ?? 'the tree'} for the call sites`;
    case 'bash':
      return file ? `used bash to reproduce it against ${file}` : 'bash: `npm run build`';
    case 'run_tests':
      return file ? `run_tests on ${file}` : `run_tests: ${5 + (i % 7)} passed`;
    default:
      return `${tool} ${file ?? ''}`.trim();
  }
}

const OUTCOME_TEXT = { success: 'Outcome: success, all green.', failure: 'Outcome: failed, tests still red.', partial: 'Outcome: partial, one test still failing.' };

function writeBody(e: Exec, id: { tenant_id: string; scope: string }) {
  // The first step and every edit name the file; the others do not (as in loadgen.mjs).
  const steps = e.tools.map((t, i) => ({ tool: t, file_path: i === 0 || t === 'edit' || t === 'apply_patch' ? e.file : undefined }));
  if (MODE === 'execution') {
    return { ...id, execution: { goal: e.goal, task_kind: e.kind, run_id: e.run_id, steps, target_files: [e.file], outcome: e.outcome } };
  }
  const told = steps.map((s, i) => narrate(s.tool, s.file_path ?? null, i)).join(', then ');
  return { ...id, input_text: `${TEXT_KIND ? `[${e.kind}] ` : ''}${e.goal}: ${told}. ${OUTCOME_TEXT[e.outcome]}` };
}

// Verbs with the shared kinds they imply, and the tools (areas, modules, problems: noise-vocabulary.ts).
const VERBS: [string, string][] = [
  ['fix', 'bugfix'],
  ['debug', 'bugfix'],
  ['add', 'feature'],
  ['refactor', 'refactor'],
  ['speed up', 'perf'],
  ['remove', 'chore'],
  ['upgrade', 'chore'],
  ['add tests for', 'test'],
];
const TOOLS = [
  ['read', 'edit', 'run_tests'],
  ['bash', 'read', 'apply_patch', 'run_tests'],
  ['grep', 'read', 'edit', 'bash', 'run_tests'],
  ['read', 'run_tests', 'apply_patch', 'run_tests'],
  ['edit', 'run_tests'],
];
const OUTCOMES = ['success', 'success', 'success', 'partial', 'failure'] as const;

function noiseExec(i: number): Exec {
  const [verb, kind] = pick(VERBS);
  const area = pick(AREAS);
  const mod = pick(MODULES);
  return { goal: `${verb} ${pick(PROBLEMS)} in ${area} ${mod}`, kind, file: `src/${area}/${mod}.ts`, tools: pick(TOOLS), outcome: pick(OUTCOMES), run_id: `noise-${i}` };
}

const jaccard = (a: Set<string>, b: Set<string>) => {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter += 1;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
};

async function main() {
  const api = await startLocalLore({ env: { LORE_EMBEDDINGS: EMBEDDINGS } });
  const sim = api.modules.learning.services.similarity();
  if (EMBEDDINGS !== 'none' && !sim.dense) throw new Error(`--embeddings ${EMBEDDINGS}: ${sim.problem ?? 'no dense similarity'}`);
  const id = { tenant_id: 'bench', scope: `task-start-${MODE}-${SEED}-${Date.now().toString(36)}` };
  const families: Family[] = [...FAMILIES, ...MORE_FAMILIES];
  const t0 = performance.now();
  try {
    const training = families.flatMap((f, fi) =>
      f.train.map((goal, k): Exec => ({ goal, kind: sharedKind(f.kind), file: f.file, tools: [f.first, ...f.rest].map(toolName), outcome: 'success', run_id: `train-${fi}-${k}` })),
    );
    const every = Math.max(1, Math.floor(NOISE / training.length));
    let noise = 0;
    const post = async (body: unknown) => {
      const r = await api.post('/v1/memory/write', body);
      if (r.status !== 200) throw new Error(`write: ${r.status} ${JSON.stringify(r.body)}`);
    };
    for (const t of training) {
      for (let j = 0; j < every && noise < NOISE; j += 1) await post(writeBody(noiseExec(noise++), id));
      await post(writeBody(t, id));
    }
    while (noise < NOISE) await post(writeBody(noiseExec(noise++), id));
    await api.modules.learning.services.idle();
    const writeS = (performance.now() - t0) / 1000;
    // --settle: the past tasks' own vectors have caught up too (time passes before the next task).
    let settleS = 0;
    if (SETTLE) {
      const t1 = performance.now();
      while ((api.modules.memory.services.encoder().status.pending ?? 0) > 0) await new Promise((r) => setTimeout(r, 500));
      settleS = (performance.now() - t1) / 1000;
    }

    const ask = async (text: string, kind: string | null) => {
      const r = await api.post('/v1/memory/kickoff/recommendation', { ...id, query_text: text, context: kind ? { task_kind: kind } : {}, candidates: CANDIDATES });
      if (r.status !== 200) throw new Error(`kickoff: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.first_action as { file_path: string | null; selected_tool: string | null } | null;
    };
    // Held-out phrasings that share almost no words with the family's training ones: those whose
    // max Jaccard to a training phrasing is above --max-jaccard (default 0.15) are left out.
    const maxOverlap = (f: Family, text: string) => {
      const q = new Set(taskTerms(text));
      return Math.max(...f.train.map((t) => jaccard(q, new Set(taskTerms(t)))));
    };
    const allHeld = families.flatMap((f) => [...f.test, ...(FRESH[f.kind] ?? []), ...(FRESH2[f.kind] ?? [])].map((text) => ({ f, text })));
    const held = allHeld.filter(({ f, text }) => maxOverlap(f, text) <= MAX_JACCARD);
    const score = async (qs: { f: Family; text: string }[], withKind: boolean) => {
      let file = 0;
      let tool = 0;
      for (const { f, text } of qs) {
        const fa = await ask(text, withKind ? sharedKind(f.kind) : null);
        if (fa?.file_path === f.file) file += 1;
        if (fa?.selected_tool === toolName(f.first)) tool += 1;
        if (process.env.BENCH_VERBOSE && fa?.file_path !== f.file)
          console.error(`miss${withKind ? ' [kind]' : ''}: ${text} -> ${fa ? `${fa.selected_tool} ${fa.file_path}` : 'null'} (want ${f.file})`);
      }
      return { file_at_1: round(file / qs.length), tool_at_1: round(tool / qs.length) };
    };
    const unseen = [...UNSEEN, ...UNSEEN_FRESH, ...UNSEEN_FRESH2];
    const nullRate = async (withKind: boolean) => {
      let nulls = 0;
      for (const u of unseen) {
        const fa = await ask(u.text, withKind ? unseenKind(u.text) : null);
        if (fa === null) nulls += 1;
        else if (process.env.BENCH_VERBOSE) console.error(`unseen answered${withKind ? ' [kind]' : ''}: ${u.text} -> ${fa.selected_tool} ${fa.file_path}`);
      }
      return round(nulls / unseen.length);
    };
    const overlap = held.map(({ f, text }) => maxOverlap(f, text));
    const result = {
      bench: 'learning-task-start',
      mode: MODE,
      text_kind: MODE === 'text' ? TEXT_KIND : undefined,
      embeddings: EMBEDDINGS,
      families: families.length,
      kinds_used: [...new Set(families.map((f) => sharedKind(f.kind)))].length,
      noise_writes: NOISE,
      held_out_queries: held.length,
      held_out_left_out: allHeld.length - held.length,
      mean_max_jaccard: round(overlap.reduce((a, b) => a + b, 0) / overlap.length),
      with_task_kind: await score(held, true),
      without_task_kind: await score(held, false),
      trained_phrasing: await score(
        families.map((f) => ({ f, text: f.train[0]! })),
        false,
      ),
      unseen: { queries: unseen.length, null_with_kind: await nullRate(true), null_without_kind: await nullRate(false) },
      settle_s: SETTLE ? Math.round(settleS) : undefined,
      write_phase_s: Math.round(writeS),
    };
    console.log(JSON.stringify(result));
  } finally {
    await api.close();
  }
}

const round = (x: number) => Math.round(x * 1000) / 1000;

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
