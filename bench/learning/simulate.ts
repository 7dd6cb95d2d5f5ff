import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createOnnxEmbedder } from '../../src/retrieval/embedders/onnx';
import { createLocalEmbedder } from '../../src/retrieval/embedders/local';
import { FamilyIndex, unitVector } from '../../src/domain/learning/family-index';
import { familyQuery } from '../../src/domain/learning/family';
import { voteFiles } from '../../src/domain/learning/file-vote';
import { firstActionOf } from '../../src/domain/learning/first-action';
import type { WorkflowMatch } from '../../src/domain/learning/matches';
import { taskRequest, taskText } from '../../src/domain/learning/request';
import { THRESHOLDS } from '../../src/domain/learning/score';
import { TermStats } from '../../src/domain/learning/similarity';
import { denseProfileFor, workflowEmbeddingTexts } from '../../src/domain/learning/vectors';
import type { WorkflowSlot } from '../../src/domain/learning/workflow-model';
import { FAMILIES, FRESH, FRESH2, UNSEEN, UNSEEN_FRESH, UNSEEN_FRESH2 } from './families';
import { cli } from '../cli';

const USAGE = `Offline replay of the quality benchmark's query phase (bench/learning/quality.ts), for working
on the decision rule without re-running the write phase: loads the workflows a quality run
learned ('quality.ts --dump FILE' writes them with their term counts and steps), embeds their
phrasings and the queries with the configured encoder (cached in --cache), rebuilds the scope's
learning index with the code in src/ (FamilyIndex, the DenseProfile of the encoder, the
planner's ordering and firstActionOf), and asks every held-out phrasing and unseen task with and
without task_kind. Recall of single executions (the memory family's full-text index) is not
replayed: on the 9 dumps checked, the figures without task_kind matched quality.ts's exactly;
with task_kind they can be one or two queries lower (recall answers thumbnail queries, whose
family never became a workflow).

  LORE_EMBEDDINGS_LOCAL_DIR=<node_modules with onnxruntime-node> LORE_EMBEDDINGS_MODEL=<all-MiniLM-L6-v2 .onnx> \
    node --import tsx bench/learning/simulate.ts --workflows /tmp/wf-s1.json,/tmp/wf-s2.json [--cache /tmp/vec.json] [--set test|fresh]

--set test (default): FAMILIES[].test and UNSEEN (the phrasings the constants were tuned on);
--set fresh: FRESH and UNSEEN_FRESH (not used for tuning until 2026-11-23; bench/learning/families.ts);
--set fresh2: FRESH2 and UNSEEN_FRESH2 (the third set; evaluate only a frozen rule).
--verbose: print every miss and every answered unseen task.
--cv: 2-fold check of the dense floors (below). --features FILE: per-query signals of every family.
--lexical: queries without their vector (what LORE_EMBEDDINGS=none answers on the same workflows).
--every-move-settled: treat every workflow's first move as settled (the rule before settledFirstMove).
--cos-floor X / --lead-floor Y: other floors than the profile's; --cv --grid: every floor pair in-sample.
--scale S: the profile's four constants times S (an encoder whose hub-corrected scores spread
  S times as wide as MiniLM's; how the catalog's other models were calibrated, score.ts).`;

const { values: opts } = cli(USAGE, {
  workflows: { type: 'string' },
  set: { type: 'string' },
  cache: { type: 'string' },
  encoder: { type: 'string' },
  explain: { type: 'string' },
  features: { type: 'string' },
  scale: { type: 'string' },
  'cos-floor': { type: 'string' },
  'lead-floor': { type: 'string' },
  verbose: { type: 'boolean' },
  cv: { type: 'boolean' },
  grid: { type: 'boolean' },
  lexical: { type: 'boolean' },
  'every-move-settled': { type: 'boolean' },
});
const arg = (k: keyof typeof opts) => (opts[k] as string | undefined) ?? null;
const flag = (k: keyof typeof opts) => opts[k] === true;
const files = (arg('workflows') ?? '').split(',').filter(Boolean);
if (files.length === 0) throw new Error('--workflows FILE[,FILE…] (quality.ts --dump)');
const SET = arg('set') ?? 'test';
const CACHE = arg('cache');
const ENCODER = arg('encoder') ?? 'onnx';
const VERBOSE = flag('verbose');
/**
 * --cv: a 2-fold check of the dense rule's two floors (DenseProfile cosFloor, leadFloor; the spans
 * as shipped): fitted on the held-out phrasings of half the families and half the unseen tasks
 * (no more unseen tasks answered than the words alone answer, on every dump; then the most right
 * answers on the worst dump), scored on the other half. Without task_kind, --set test only.
 */
const CV = flag('cv');
const CV_COS = [0.06, 0.08, 0.1, 0.12, 0.14, 0.16, 0.18, 0.2, 0.22, 0.24];
const CV_LEAD = [0, 0.02, 0.04, 0.06, 0.08, 0.1];
interface CvRun {
  file: string;
  qs: { text: string; file: string | null; fold: number }[];
  lexical: (string | null)[];
  grid: { cosFloor: number; leadFloor: number }[];
  answers: (string | null)[][];
}
const cvData: CvRun[] = [];
/** Print the top workflows with their signals for every query containing this text. */
const EXPLAIN = arg('explain');
/** Write per-query features (every family's lexical and dense parts) to this JSON file, for rule analysis. */
const FEATURES = arg('features');
const features: unknown[] = [];

interface Dumped {
  id: string;
  goal: string;
  goals: string[];
  task_kind: string | null;
  target_files: string[];
  state: 'candidate' | 'stable';
  steps: { tool: string | null; file_path: string | null }[];
  term_counts: Record<string, number>;
  samples: number;
  promotion_ready?: boolean;
}

const emb =
  ENCODER === 'onnx'
    ? createOnnxEmbedder({ provider: 'onnx', model: process.env.LORE_EMBEDDINGS_MODEL, moduleDir: process.env.LORE_EMBEDDINGS_LOCAL_DIR })
    : createLocalEmbedder({ provider: 'local', moduleDir: process.env.LORE_EMBEDDINGS_LOCAL_DIR });
const shipped = denseProfileFor(emb);
/** --cos-floor / --lead-floor: try other floors than the encoder profile's (exploration). */
const scale = Number(arg('scale') ?? 1);
const profile = {
  ...shipped,
  cosFloor: Number(arg('cos-floor') ?? shipped.cosFloor * scale),
  cosSpan: shipped.cosSpan * scale,
  leadFloor: Number(arg('lead-floor') ?? shipped.leadFloor * scale),
  leadSpan: shipped.leadSpan * scale,
  defaultBaseline: shipped.defaultBaseline * scale,
};
const cache: Record<string, number[]> = CACHE && existsSync(CACHE) ? JSON.parse(readFileSync(CACHE, 'utf8')) : {};
async function vectors(texts: string[]): Promise<Map<string, Float32Array>> {
  const missing = [...new Set(texts.filter((t) => !cache[t]))];
  if (missing.length > 0) {
    const t0 = Date.now();
    // One text per call: a quantized model's output depends on what it is batched with (vectors.ts).
    for (const t of missing) cache[t] = Array.from((await emb.embed([t]))[0]!);
    console.error(`embedded ${missing.length} texts in ${Date.now() - t0} ms`);
    if (CACHE) writeFileSync(CACHE, JSON.stringify(cache));
  }
  return new Map(texts.map((t) => [t, unitVector(cache[t]!)]));
}

const queries =
  SET === 'fresh'
    ? { held: FAMILIES.flatMap((f) => (FRESH[f.kind] ?? []).map((text) => ({ f, text }))), unseen: UNSEEN_FRESH }
    : SET === 'fresh2'
      ? { held: FAMILIES.flatMap((f) => (FRESH2[f.kind] ?? []).map((text) => ({ f, text }))), unseen: UNSEEN_FRESH2 }
      : { held: FAMILIES.flatMap((f) => f.test.map((text) => ({ f, text }))), unseen: UNSEEN };
const CANDIDATES = ['read', 'edit', 'test', 'bash', 'grep'];
const noRules = { matched: [], prefer: [], deny: [], shadow_prefer: [], shadow_deny: [] };

type Slot = WorkflowSlot;
const slotOf = (w: Dumped): Slot =>
  ({
    goal: w.goal,
    goals: w.goals,
    task_kind: w.task_kind,
    target_files: w.target_files,
    steps: w.steps.map((s) => ({ tool: s.tool, file_path: s.file_path ?? null })),
    promotion_state: w.state,
    // --every-move-settled: as if every workflow's first move were settled (the rule before first-action.ts's settledFirstMove).
    promotion_ready: flag('every-move-settled') || (w.promotion_ready ?? false),
    term_counts: w.term_counts,
    samples: w.samples,
    first_steps: {},
    counts: { observations: w.samples, successes: w.samples, failures: 0, partials: 0, unresolved_failures: 0 },
    active_playbook_ids: [],
    provenance_ids: [],
  }) as unknown as Slot;

async function run(file: string) {
  const dumped = (JSON.parse(readFileSync(file, 'utf8')).workflows as Dumped[]).filter((w) => w.term_counts);
  if (dumped.length === 0) throw new Error(`${file}: no term counts (dump with the current quality.ts)`);
  const texts = new Map(dumped.map((w) => [w.id, workflowEmbeddingTexts(slotOf(w))]));
  const qtexts = [...queries.held.map((q) => q.text), ...queries.unseen.map((u) => u.text)];
  const V = await vectors([...[...texts.values()].flat(), ...qtexts.map((t) => taskText(taskRequest({ query_text: t })))]);
  type Entry = { node: { id: string; tier: string }; slot: Slot };
  const stats = new TermStats();
  const index = new FamilyIndex<Entry>(stats, (w) => `${w.slot.steps[0]?.tool ?? ''}|${w.slot.steps[0]?.file_path ?? w.slot.target_files[0] ?? ''}`);
  index.denseProfile = profile;
  for (const w of dumped) {
    const slot = slotOf(w);
    index.put(w.id, { task_kind: w.task_kind, term_counts: w.term_counts, samples: w.samples, files: w.target_files }, { node: { id: w.id, tier: 'hot' }, slot });
    const vs = texts.get(w.id)!.map((t) => V.get(t)!);
    index.setVectors(w.id, vs, vs.length > 1 ? vs.slice(0, -1) : vs);
  }
  const ask = (text: string, kind: string | null, dense = !flag('lexical')) => {
    const r = taskRequest({ query_text: text, context: kind ? { task_kind: kind } : {}, candidates: CANDIDATES });
    const q = { ...familyQuery(r), vector: dense ? (V.get(taskText(r)) ?? null) : null };
    const stateBonus = (w: Entry) => (w.slot.promotion_state === 'stable' ? 0.05 : 0);
    const workflows = index
      .search(q, { minScore: THRESHOLDS.relevant })
      .map((h) => ({ entry: h.doc, score: h.score, signals: h.signals }))
      .sort((a, b) => b.score + stateBonus(b.entry) - (a.score + stateBonus(a.entry)) || (a.entry.node.id < b.entry.node.id ? -1 : 1))
      .slice(0, 10) as unknown as WorkflowMatch[];
    if (EXPLAIN && text.includes(EXPLAIN)) {
      console.error(`${text}${kind ? ` [${kind}]` : ''}`);
      for (const w of workflows.slice(0, 4)) {
        const sg = w.signals;
        const r3 = (x: number | null | undefined) => (x == null ? null : Math.round(x * 1000) / 1000);
        console.error(
          `  ${r3(w.score)} lex ${r3(sg.lexical)} dense ${r3(sg.dense)} runner-up ${r3(sg.dense_baseline)} ${sg.kind} "${w.entry.slot.goal}" ${w.entry.slot.target_files[0]}`,
        );
      }
    }
    // Workflows alone (no past tasks: the dump holds learned workflows only), as file-vote.ts weighs them.
    const vote = voteFiles({ tasks: [], workflows, allowed: () => true, nameMatch: () => 0 });
    const fa = firstActionOf({ request: r, vote, patterns: [], policies: [], rules: noRules });
    return fa;
  };
  if (FEATURES) {
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    const sets = [
      ...FAMILIES.flatMap((f) => f.test.map((text) => ({ set: 'test', text, file: f.file as string | null, kind: f.kind }))),
      ...FAMILIES.flatMap((f) => (FRESH[f.kind] ?? []).map((text) => ({ set: 'fresh', text, file: f.file as string | null, kind: f.kind }))),
      ...UNSEEN.map((u) => ({ set: 'unseen', text: u.text, file: null, kind: u.kind })),
      ...UNSEEN_FRESH.map((u) => ({ set: 'unseen_fresh', text: u.text, file: null, kind: u.kind })),
    ];
    const qv = await vectors(sets.map((q) => q.text));
    const all = dumped.map((w) => ({ w, vs: texts.get(w.id)!.map((t) => V.get(t)!) }));
    for (const q of sets) {
      const r = taskRequest({ query_text: q.text, candidates: CANDIDATES });
      const hits = index.search({ ...familyQuery(r), vector: qv.get(q.text)! }, { minScore: -1 });
      const byId = new Map(hits.map((h) => [h.id, h]));
      features.push({
        seed: file,
        set: q.set,
        text: q.text,
        file: q.file,
        families: all.map(({ w, vs }) => {
          const h = byId.get(w.id);
          const v = qv.get(q.text)!;
          const single = vs.length > 1 ? vs.slice(0, -1) : vs;
          return {
            file: w.steps[0]?.file_path ?? w.target_files[0] ?? '',
            key: `${w.steps[0]?.tool ?? ''}|${w.steps[0]?.file_path ?? w.target_files[0] ?? ''}`,
            stable: w.state === 'stable',
            settled: w.state === 'stable' || !!w.promotion_ready,
            kind: w.task_kind,
            lex: h?.signals.lexical ?? 0,
            s: h?.signals.dense ?? null,
            max: Math.max(...vs.map((x) => dot(v, x))),
            singles: single.map((x) => dot(v, x)),
          };
        }),
      });
    }
  }
  if (CV) {
    // Every (cosFloor, leadFloor) of the grid through the real index; decisions without task_kind.
    const qs = [
      ...FAMILIES.flatMap((f, fi) => f.test.map((text) => ({ text, file: f.file as string | null, fold: fi % 2 }))),
      ...UNSEEN.map((u, ui) => ({ text: u.text, file: null as string | null, fold: ui % 2 })),
    ];
    const lexical = qs.map((q) => ask(q.text, null, false)?.file_path ?? null);
    const grid = CV_COS.flatMap((cosFloor) => CV_LEAD.map((leadFloor) => ({ cosFloor, leadFloor })));
    const answers = grid.map((g) => {
      index.denseProfile = { ...profile, name: `${profile.name}-cv`, cosFloor: g.cosFloor, leadFloor: g.leadFloor };
      const a = qs.map((q) => ask(q.text, null)?.file_path ?? null);
      index.denseProfile = profile;
      return a;
    });
    cvData.push({ file, qs, lexical, grid, answers });
  }
  const out = { with_kind: { file: 0, tool: 0, any: 0 }, without_kind: { file: 0, tool: 0, any: 0 }, unseen_null: { with_kind: 0, without_kind: 0 } };
  for (const { f, text } of queries.held) {
    for (const [bucket, kind] of [
      [out.with_kind, f.kind],
      [out.without_kind, null],
    ] as const) {
      const fa = ask(text, kind);
      if (fa) bucket.any += 1;
      if (fa?.file_path === f.file) bucket.file += 1;
      if (fa?.selected_tool === f.first) bucket.tool += 1;
      if (VERBOSE && fa?.file_path !== f.file) console.error(`miss${kind ? ' [kind]' : ''}: ${text} -> ${fa ? `${fa.selected_tool} ${fa.file_path} (${fa.relevance})` : 'null'}`);
    }
  }
  for (const u of queries.unseen) {
    for (const [key, kind] of [
      ['with_kind', u.kind],
      ['without_kind', null],
    ] as const) {
      const fa = ask(u.text, kind);
      if (!fa) out.unseen_null[key] += 1;
      else if (VERBOSE) console.error(`unseen hit${kind ? ' [kind]' : ''}: ${u.text} -> ${fa.selected_tool} ${fa.file_path} (${fa.relevance}) "${fa.rationale}"`);
    }
  }
  const n = queries.held.length;
  const r3 = (x: number, d: number) => Math.round((x / d) * 1000) / 1000;
  return {
    file,
    workflows: dumped.length,
    with_kind: `${r3(out.with_kind.file, n)} / ${r3(out.with_kind.tool, n)}`,
    without_kind: `${r3(out.without_kind.file, n)} / ${r3(out.without_kind.tool, n)} (${r3(out.without_kind.any, n)})`,
    unseen_null: `${r3(out.unseen_null.with_kind, queries.unseen.length)} / ${r3(out.unseen_null.without_kind, queries.unseen.length)}`,
  };
}

for (const f of files) console.log(JSON.stringify({ set: SET, profile: profile.name, ...(await run(f)) }));
if (FEATURES) writeFileSync(FEATURES, JSON.stringify(features));
if (CV) {
  const tally = (run: CvRun, a: (string | null)[], fold: number) => {
    const t = { right: 0, wrong: 0, n: 0, unseen: 0, unseenN: 0 };
    run.qs.forEach((q, i) => {
      if (q.fold !== fold) return;
      if (q.file) {
        t.n += 1;
        if (a[i] === q.file) t.right += 1;
        else if (a[i]) t.wrong += 1;
      } else {
        t.unseenN += 1;
        if (a[i]) t.unseen += 1;
      }
    });
    return t;
  };
  if (flag('grid')) {
    // The whole grid on both folds together (exploration; not a held-out figure).
    cvData[0]!.grid.forEach((g, gi) => {
      const t = cvData.map((run) =>
        [0, 1]
          .map((fold) => tally(run, run.answers[gi]!, fold))
          .reduce((a, b) => ({ right: a.right + b.right, wrong: a.wrong + b.wrong, n: a.n + b.n, unseen: a.unseen + b.unseen, unseenN: a.unseenN + b.unseenN })),
      );
      console.log(`grid cos ${g.cosFloor} lead ${g.leadFloor}: ${t.map((x) => `${x.right}/${x.n} w${x.wrong} u${x.unseen}`).join('  ')}`);
    });
  }
  const total = { right: 0, wrong: 0, n: 0, unseen: 0, unseenN: 0 };
  for (const fold of [0, 1]) {
    let best: { g: number; key: [number, number] } | null = null;
    cvData[0]!.grid.forEach((_, g) => {
      const t = cvData.map((run) => tally(run, run.answers[g]!, fold));
      if (t.some((x, i) => x.unseen > tally(cvData[i]!, cvData[i]!.lexical, fold).unseen)) return;
      const key: [number, number] = [Math.min(...t.map((x) => x.right)), t.reduce((s2, x) => s2 + x.right - x.wrong, 0)];
      if (!best || key[0] > best.key[0] || (key[0] === best.key[0] && key[1] > best.key[1])) best = { g, key };
    });
    const chosen = best as { g: number; key: [number, number] } | null;
    if (!chosen) {
      console.log(JSON.stringify({ cv_fit_on_fold: fold, fitted: null }));
      continue;
    }
    const test = cvData.map((run) => tally(run, run.answers[chosen.g]!, 1 - fold));
    test.forEach((x) => ((total.right += x.right), (total.wrong += x.wrong), (total.n += x.n), (total.unseen += x.unseen), (total.unseenN += x.unseenN)));
    console.log(
      JSON.stringify({
        cv_fit_on_fold: fold,
        fitted: cvData[0]!.grid[chosen.g],
        scored_on_other_fold: test.map((x) => `${x.right}/${x.n} right, ${x.wrong} wrong, unseen answered ${x.unseen}/${x.unseenN}`),
      }),
    );
  }
  console.log(
    JSON.stringify({
      cv_total: `${total.right}/${total.n} right (${(total.right / Math.max(1, total.n)).toFixed(3)}), ${total.wrong} wrong, unseen answered ${total.unseen}/${total.unseenN} (null ${(1 - total.unseen / Math.max(1, total.unseenN)).toFixed(3)})`,
    }),
  );
}
process.exit(0);
