/**
 * Exploration of the token-alignment check (token-alignment.ts; tried 2026-11-23, not kept): for
 * every dense-led first action a replay gave without task_kind (`simulate.ts --dense-led FILE`),
 * several alignment variants between the query and the answering workflow's phrasings, labelled
 * right / WRONG / UNSEEN; then, for each variant and each floor just above an unseen task's value,
 * how many unseen answers it removes and how many right ones it costs.
 *
 *   node --import tsx bench/learning/simulate.ts --workflows /tmp/wf-s1.json,… --set test --dense-led /tmp/dl-test.json
 *   node --import tsx bench/learning/align-explore.ts /tmp/dl-test.json /tmp/dl-fresh.json
 *
 * Variants: R / P / F: idf-weighted recall (query side), precision (family side) and F1 of raw
 * token cosines; Rc / Fc: the same on centred vectors (Fc is tokenAlignment); S3 / M3: mean and
 * minimum centred alignment of the query's three highest-idf pieces; B: centred recall against
 * the best single phrasing.
 *
 * --cost: instead, what the check would add to a kickoff, per dense-led answer in the files: the
 * query's token vectors (one model run, which could replace the pooled one), the workflow's
 * phrasings' token vectors when not cached (one model run each), and the alignment itself.
 */
import { readFileSync } from 'node:fs';
import { createOnnxEmbedder } from '../../src/retrieval/embedders/onnx';
import { FAMILIES, FRESH, UNSEEN, UNSEEN_FRESH } from './families';
import { pieceIdf, tokenAlignment, tokenCache, tokenizerOf, type TokenVectors } from './token-alignment';

const emb = createOnnxEmbedder({ provider: 'onnx', model: process.env.LORE_EMBEDDINGS_MODEL, moduleDir: process.env.LORE_EMBEDDINGS_LOCAL_DIR });
const tokens = tokenCache(emb);
const tok = await tokenizerOf(process.env.LORE_EMBEDDINGS_MODEL!);
const truth = new Map<string, string | null>();
for (const f of FAMILIES) for (const t of [...f.test, ...(FRESH[f.kind] ?? [])]) truth.set(t, f.file);
for (const u of [...UNSEEN, ...UNSEEN_FRESH]) truth.set(u.text, null);

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const unit = (v: Float32Array) => {
  const n = Math.sqrt(dot(v, v)) || 1;
  return v.map((x) => x / n);
};
/** idf-weighted mean of each `from` vector's best cosine to `to`. */
const directed = (from: Float32Array[], pieces: string[], to: Float32Array[], idf: (p: string) => number) => {
  let s = 0;
  let w = 0;
  from.forEach((v, i) => ((s += idf(pieces[i]!) * Math.max(...to.map((u) => dot(v, u)))), (w += idf(pieces[i]!))));
  return w > 0 ? s / w : 0;
};
const f1 = (r: number, p: number) => (r + p > 0 ? (2 * r * p) / (r + p) : 0);

if (process.argv.includes('--cost')) {
  const recs = process.argv.slice(2).filter((a) => !a.startsWith('--')).flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as { seed: string; text: string; goals: string[] }[]);
  const idf = pieceIdf(tok, (JSON.parse(readFileSync(recs[0]!.seed, 'utf8')).workflows as { goals: string[] }[]).map((w) => w.goals));
  await emb.embed(['warm up']);
  const t = { pooled: 0, query: 0, family: 0, align: 0, n: 0, runs: 0 };
  const seen = new Set<string>();
  for (const r of recs.slice(0, 60)) {
    if (seen.has(r.text)) continue;
    seen.add(r.text);
    let t0 = performance.now();
    await emb.embed([r.text]);
    t.pooled += performance.now() - t0;
    t0 = performance.now();
    const q = await emb.embedTokens!(r.text);
    t.query += performance.now() - t0;
    t0 = performance.now();
    const fam = [];
    for (const g of r.goals) fam.push(await emb.embedTokens!(g));
    t.family += performance.now() - t0;
    t.runs += r.goals.length;
    const tv = (e: typeof q) => ({ pieces: e.tokens.map((x) => x.piece), vectors: e.tokens.map((x) => x.vector) });
    t0 = performance.now();
    tokenAlignment(tv(q), fam.map(tv), idf);
    t.align += performance.now() - t0;
    t.n += 1;
  }
  const ms = (x: number) => `${(x / t.n).toFixed(1)} ms`;
  console.log(`${t.n} queries: pooled vector ${ms(t.pooled)}, query token vectors ${ms(t.query)}, family token vectors (cold, ${(t.runs / t.n).toFixed(1)} phrasings) ${ms(t.family)}, alignment ${(t.align / t.n).toFixed(2)} ms`);
  process.exit(0);
}

const rows: Record<string, any>[] = [];
const idfBySeed = new Map<string, (p: string) => number>();
for (const file of process.argv.slice(2)) {
  for (const r of JSON.parse(readFileSync(file, 'utf8')) as { seed: string; text: string; answer: string; goals: string[] }[]) {
    if (!idfBySeed.has(r.seed)) idfBySeed.set(r.seed, pieceIdf(tok, (JSON.parse(readFileSync(r.seed, 'utf8')).workflows as { goals: string[] }[]).map((w) => w.goals)));
    const idf = idfBySeed.get(r.seed)!;
    const q = await tokens(r.text);
    const fam: TokenVectors[] = await Promise.all(r.goals.map(tokens));
    const fp = fam.flatMap((f) => f.pieces);
    const all = [...q.vectors, ...fam.flatMap((f) => f.vectors)];
    const mean = new Float32Array(all[0]!.length);
    for (const v of all) for (let i = 0; i < v.length; i += 1) mean[i]! += v[i]! / all.length;
    const centre = (vs: Float32Array[]) => vs.map((v) => unit(v.map((x, i) => x - mean[i]!)));
    const [qu, fu, qc, fc] = [q.vectors.map(unit), fam.flatMap((f) => f.vectors.map(unit)), centre(q.vectors), centre(fam.flatMap((f) => f.vectors))];
    const R = directed(qu, q.pieces, fu, idf);
    const P = directed(fu, fp, qu, idf);
    const Rc = directed(qc, q.pieces, fc, idf);
    const salient = q.pieces.map((_, i) => i).filter((i) => idf(q.pieces[i]!) > 0).sort((a, b) => idf(q.pieces[b]!) - idf(q.pieces[a]!)).slice(0, 3);
    const al = salient.map((i) => Math.max(...fc.map((u) => dot(qc[i]!, u))));
    let B = -1;
    let at = 0;
    for (const f of fam) (B = Math.max(B, directed(qc, q.pieces, fc.slice(at, at + f.vectors.length), idf))), (at += f.vectors.length);
    const t = truth.get(r.text);
    rows.push({
      set: file,
      label: t === undefined ? '?' : t === null ? 'UNSEEN' : t === r.answer ? 'right' : 'WRONG',
      text: r.text,
      R, P, F: f1(R, P), Rc, Fc: tokenAlignment(q, fam, idf),
      S3: al.length ? al.reduce((a, b) => a + b, 0) / al.length : 0, M3: al.length ? Math.min(...al) : 0, B,
    });
  }
}
const sets = [...new Set(rows.map((r) => r.set))];
for (const key of ['R', 'P', 'F', 'Rc', 'Fc', 'S3', 'M3', 'B']) {
  const unseen = [...new Set(rows.filter((r) => r.label === 'UNSEEN').map((r) => r[key] as number))].sort((a, b) => a - b);
  for (const floor of [-Infinity, ...unseen.map((u) => u + 1e-6)]) {
    const lost = sets.map((s) => `${rows.filter((r) => r.set === s && r.label === 'right' && r[key] < floor).length}/${rows.filter((r) => r.set === s && r.label === 'right').length}`);
    const u = rows.filter((r) => r.label === 'UNSEEN' && r[key] >= floor).length;
    const w = rows.filter((r) => r.label === 'WRONG' && r[key] >= floor).length;
    console.log(`${key} floor ${floor === -Infinity ? '-' : floor.toFixed(3)}: unseen answered ${u}, right lost ${lost.join(' ')}, wrong kept ${w}`);
  }
}
process.exit(0);
