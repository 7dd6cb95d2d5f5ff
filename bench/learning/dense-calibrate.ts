import { readFileSync } from 'node:fs';
import { createLocalEmbedder } from '../../src/retrieval/embedders/local';
import { createOnnxEmbedder } from '../../src/retrieval/embedders/onnx';
import { FamilyIndex, unitVector } from '../../src/domain/learning/family-index';
import { denseSimilarity, THRESHOLDS } from '../../src/domain/learning/score';
import { denseProfileFor } from '../../src/domain/learning/vectors';
import { FAMILIES, UNSEEN } from './families';
import { cli } from '../cli';

const USAGE = `Calibration aid for the dense part of task similarity (score.ts, denseSimilarity): embeds the
learned workflows of a quality run ('quality.ts --dump FILE' writes them: the 32 families and
the noise workflows learned beside them) or, without --workflows, the families' training
phrasings alone, plus the held-out phrasings and the unseen tasks of bench/learning/families.ts.
Then prints, without a server:
- how often the best-cosine workflow (max over its phrasings) is the right family (an upper
  bound on what any dense-only rule gets);
- what the current rule accepts (0.7·dense ≥ the action threshold): right, wrong, and unseen
  tasks accepted (these must stay null).

The scores are the learning index's own (FamilyIndex with the encoder's DenseProfile: the best
phrasing cosine for USE, the hub-corrected score for the onnx encoder; score.ts).

  node --import tsx bench/learning/quality.ts --noise 3000 --embeddings none --dump /tmp/wf.json
  LORE_EMBEDDINGS_LOCAL_DIR=/tmp/lore-emb/node_modules node --import tsx bench/learning/dense-calibrate.ts [--workflows /tmp/wf.json]
  LORE_EMBEDDINGS_LOCAL_DIR=<node_modules with onnxruntime-node> LORE_EMBEDDINGS_MODEL=<all-MiniLM-L6-v2 .onnx> \
    node --import tsx bench/learning/dense-calibrate.ts --encoder onnx [--workflows /tmp/wf.json]`;

const { values: opts } = cli(USAGE, { workflows: { type: 'string' }, encoder: { type: 'string' } });
const arg = (k: keyof typeof opts) => opts[k] ?? null;
interface Wf {
  goals: string[];
  file: string;
  key: string;
}
const dumped = arg('workflows');
const workflows: Wf[] = dumped
  ? (JSON.parse(readFileSync(dumped, 'utf8')).workflows as { goal: string; goals: string[]; target_files: string[]; first: { tool?: string; file_path?: string } | null }[]).map(
      (w) => ({
        goals: [...new Set([w.goal, ...w.goals])],
        file: w.first?.file_path ?? w.target_files[0] ?? '',
        key: `${w.first?.tool ?? ''}|${w.first?.file_path ?? w.target_files[0] ?? ''}`,
      }),
    )
  : FAMILIES.map((f) => ({ goals: f.train, file: f.file, key: `${f.first}|${f.file}` }));

const ENCODER = arg('encoder') ?? 'local';
const emb =
  ENCODER === 'onnx'
    ? createOnnxEmbedder({ provider: 'onnx', model: process.env.LORE_EMBEDDINGS_MODEL, moduleDir: process.env.LORE_EMBEDDINGS_LOCAL_DIR })
    : createLocalEmbedder({ provider: 'local', moduleDir: process.env.LORE_EMBEDDINGS_LOCAL_DIR });
const profile = denseProfileFor(emb);
const texts: string[] = [];
const add = (t: string) => (texts.push(t), texts.length - 1);
const docs = workflows.map((w) => ({ ...w, idx: [...w.goals.map(add), ...(w.goals.length > 1 ? [add(w.goals.join('. '))] : [])] }));
const tests = FAMILIES.flatMap((f) => f.test.map((t) => ({ file: f.file, idx: add(t) })));
const unseen = UNSEEN.map((u) => add(u.text));
const t0 = Date.now();
const V = (await emb.embed(texts)).map((v) => unitVector(v));
console.error(`embedded ${texts.length} texts in ${Date.now() - t0} ms`);

// The learning index itself, without words: only the dense part decides.
const index = new FamilyIndex<number>(undefined, (i) => docs[i]!.key);
index.denseProfile = profile;
docs.forEach((d, i) => {
  index.put(String(i), { task_kind: null, term_counts: {}, samples: 1, files: [] }, i);
  const vs = d.idx.map((j) => V[j]!);
  index.setVectors(String(i), vs, vs.length > 1 ? vs.slice(0, -1) : vs);
});
function best(q: Float32Array) {
  const hits = index.search({ terms: [], task_kind: null, files: [], vector: q }, { minScore: 0 });
  let top = hits[0]!;
  for (const h of hits) if (h.signals.dense! > top.signals.dense!) top = h;
  const cos = top.signals.dense!;
  const runnerUp = top.signals.dense_baseline ?? null;
  return { doc: docs[top.doc]!, cos, runnerUp, accepted: 0.7 * denseSimilarity(cos, runnerUp, profile) >= THRESHOLDS.action };
}
const held = tests.map((t) => ({ ...best(V[t.idx]!), file: t.file }));
const un = unseen.map((i) => best(V[i]!));
console.log(
  JSON.stringify({
    encoder: emb.id,
    profile: profile.name,
    workflows: docs.length,
    held_out: held.length,
    best_cosine_is_right_family: held.filter((h) => h.doc.file === h.file).length,
    rule_accepts_right: held.filter((h) => h.accepted && h.doc.file === h.file).length,
    rule_accepts_wrong: held.filter((h) => h.accepted && h.doc.file !== h.file).length,
    unseen: un.length,
    rule_accepts_unseen: un.filter((u) => u.accepted).length,
    unseen_best_cosine: un.map((u) => Math.round(u.cos * 100) / 100),
    unseen_lead: un.map((u) => Math.round((u.cos - (u.runnerUp ?? 0)) * 1000) / 1000),
  }),
);
process.exit(0);
