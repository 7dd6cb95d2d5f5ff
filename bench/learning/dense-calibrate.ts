/**
 * Calibration aid for the dense part of task similarity (score.ts, denseSimilarity): embeds the
 * learned workflows of a quality run (`quality.ts --dump FILE` writes them: the 32 families and
 * the noise workflows learned beside them) or, without --workflows, the families' training
 * phrasings alone, plus the held-out phrasings and the unseen tasks of bench/learning/families.ts.
 * Then prints, without a server:
 * - how often the best-cosine workflow (max over its phrasings) is the right family (an upper
 *   bound on what any dense-only rule gets);
 * - what the current rule accepts (0.7·dense ≥ the action threshold): right, wrong, and unseen
 *   tasks accepted (these must stay null).
 *
 *   node --import tsx bench/learning/quality.ts --noise 3000 --embeddings none --dump /tmp/wf.json
 *   LORE_EMBEDDINGS_LOCAL_DIR=/tmp/lore-emb/node_modules node --import tsx bench/learning/dense-calibrate.ts [--workflows /tmp/wf.json]
 */
import { readFileSync } from 'node:fs';
import { createLocalEmbedder } from '../../src/retrieval/embedders/local';
import { maxCosine, runnerUps, unitVector } from '../../src/domain/learning/family-index';
import { denseSimilarity, THRESHOLDS } from '../../src/domain/learning/score';
import { FAMILIES, UNSEEN } from './families';

const arg = (k: string) => {
  const i = process.argv.indexOf(`--${k}`);
  return i > 0 ? process.argv[i + 1]! : null;
};
interface Wf {
  goals: string[];
  file: string;
  key: string;
}
const dumped = arg('workflows');
const workflows: Wf[] = dumped
  ? (JSON.parse(readFileSync(dumped, 'utf8')).workflows as { goal: string; goals: string[]; target_files: string[]; first: { tool?: string; file_path?: string } | null }[]).map((w) => ({
      goals: [...new Set([w.goal, ...w.goals])],
      file: w.first?.file_path ?? w.target_files[0] ?? '',
      key: `${w.first?.tool ?? ''}|${w.first?.file_path ?? w.target_files[0] ?? ''}`,
    }))
  : FAMILIES.map((f) => ({ goals: f.train, file: f.file, key: `${f.first}|${f.file}` }));

const emb = createLocalEmbedder({ provider: 'local', moduleDir: process.env.LORE_EMBEDDINGS_LOCAL_DIR });
const texts: string[] = [];
const add = (t: string) => (texts.push(t), texts.length - 1);
const docs = workflows.map((w) => ({ ...w, idx: [...w.goals.map(add), ...(w.goals.length > 1 ? [add(w.goals.join('. '))] : [])] }));
const tests = FAMILIES.flatMap((f) => f.test.map((t) => ({ file: f.file, idx: add(t) })));
const unseen = UNSEEN.map((u) => add(u.text));
const t0 = Date.now();
const V = (await emb.embed(texts)).map((v) => unitVector(v));
console.error(`embedded ${texts.length} texts in ${Date.now() - t0} ms`);

function best(q: Float32Array) {
  const cos = new Map(docs.map((d, i) => [String(i), { cos: maxCosine(q, d.idx.map((j) => V[j]!)), key: d.key }]));
  const rivals = runnerUps(cos);
  let top = '0';
  for (const [id, c] of cos) if (c.cos > cos.get(top)!.cos) top = id;
  const c = cos.get(top)!;
  return { doc: docs[Number(top)]!, cos: c.cos, runnerUp: rivals.get(top) ?? null, accepted: 0.7 * denseSimilarity(c.cos, rivals.get(top)) >= THRESHOLDS.action };
}
const held = tests.map((t) => ({ ...best(V[t.idx]!), file: t.file }));
const un = unseen.map((i) => best(V[i]!));
console.log(
  JSON.stringify({
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
