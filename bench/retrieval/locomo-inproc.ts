import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAnalyzer } from '../../src/retrieval/analyze';
import { DEFAULT_STOPWORDS } from '../../src/retrieval/stopwords';
import { LexicalIndex, type FeedbackOptions } from '../../src/retrieval/lexical-index';
import { hybridSearch } from '../../src/retrieval/hybrid';
import { RECALL_DEFAULTS } from '../../src/retrieval/defaults';
import { VectorIndex } from '../../src/retrieval/vector-index';
import { CAT_NAMES, finishAgg, listConversations, loadConversation, mergeAgg, newAgg, scoreQuestion, type Agg, type Conversation } from './locomo-data';
import { cli } from '../cli';

const USAGE = `In-process LoCoMo evaluation of Lore's retrieval core (same data, documents and metrics
as ../shared/bench/locomo-recall.mjs, but calling LexicalIndex directly).

  node --import tsx bench/retrieval/locomo-inproc.ts [--convs 26,30] [--k 1,5,10,20]
       [--config '{"k1":1.2,"b":0.75,...}'] [--preset NAME] [--json] [--per-question FILE]

Presets: "lore" (default: RECALL_DEFAULTS, what Lore ships), "plain" (Lore's analysis,
plain BM25), "baseline" (reproduces the benchmark's own BM25 baseline: no stemming, its
stop list, plain tokens). --config '<json>' overrides fields of the preset, e.g.
'{"vectors":{"source":"local","rrfK":5,"weights":[1,0.3],"depth":20}}' (local encoder,
needs LORE_LOCAL_EMBEDDINGS_DIR) or "source":"http://127.0.0.1:PORT" (an OpenAI-compatible
endpoint such as ../shared/bench/hash-embedder.mjs), or "source":"onnx:<model folder>" (the
onnx encoder, e.g. a model folder from 'lore models install'). Vectors are cached in
$LORE_BENCH_VEC_CACHE (default lore-vec-cache in the system's temporary folder).`;

export interface BenchConfig {
  k1: number;
  b: number;
  stem: boolean;
  stop: 'bench' | 'default' | 'none';
  compounds: boolean;
  /** "flat": the turn text as one field (what the HTTP service sees). "fields": BM25F experiment. */
  fields: 'flat' | 'fields';
  fieldWeights: { date: number; speaker: number; utterance: number; caption: number };
  feedback: FeedbackOptions | null;
  /** Sequence-context re-ranking (see src/retrieval/context.ts); null = off. */
  context: { weight: number; window: number; depth?: number; decay?: number } | null;
  /** Dense vectors fused by RRF: null = off. */
  /** Shuffle write order within blocks of this size (simulates concurrent writers). */
  jitter?: number;
  vectors: null | { source: 'local' | string; rrfK: number; weights: [number, number]; depth: number; only?: boolean; after?: boolean };
}

const BENCH_STOP = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have having he her hers him his ' +
    'how i if in into is it its itself just me my myself no nor not of off on once or our ours out over own same she should so ' +
    'some such than that the their theirs them then there these they this those through to too under until up very was we were ' +
    'what when where which while who whom why will with would you your yours yourself s t d m ll re ve'
  ).split(/\s+/),
);

const RD_FB = RECALL_DEFAULTS.search.feedback || null;
const RD_CTX = RECALL_DEFAULTS.search.context || null;

export const PRESETS: Record<string, Partial<BenchConfig>> = {
  /** The benchmark's own BM25 baseline, reproduced (no stemming, its stop list). */
  baseline: { k1: 1.2, b: 0.75, stem: false, stop: 'bench', compounds: false, feedback: null, context: null },
  /** Lore's analysis with plain BM25 (k1 1.2, b 0.75), nothing else. */
  plain: {},
  /** What Lore ships: RECALL_DEFAULTS (src/retrieval/defaults.ts). */
  lore: {
    k1: RECALL_DEFAULTS.index.k1 ?? 1.2,
    b: RECALL_DEFAULTS.index.b ?? 0.75,
    feedback: RD_FB,
    context: RD_CTX ? { weight: RD_CTX.weight ?? 0.3, window: RD_CTX.window ?? 2, decay: RD_CTX.decay, depth: RD_CTX.depth } : null,
  },
};

export const DEFAULTS: BenchConfig = {
  k1: 1.2,
  b: 0.75,
  stem: true,
  stop: 'default',
  compounds: true,
  fields: 'flat',
  fieldWeights: { date: 1, speaker: 1, utterance: 1, caption: 1 },
  feedback: null,
  context: null,
  vectors: null,
};

type Ranker = (question: string, limit: number) => string[];

interface VectorSource {
  embed(texts: string[]): Promise<Float32Array[]>;
}

async function buildRanker(conv: Conversation, cfg: BenchConfig, vec: VectorSource | null): Promise<Ranker> {
  const stopwords = cfg.stop === 'bench' ? BENCH_STOP : cfg.stop === 'none' ? new Set<string>() : DEFAULT_STOPWORDS;
  const analyzer = createAnalyzer({ stem: cfg.stem, stopwords, compounds: cfg.compounds, camelCase: cfg.compounds });
  const fieldWeights = cfg.fields === 'fields' ? cfg.fieldWeights : {};
  const index = new LexicalIndex({ k1: cfg.k1, b: cfg.b, analyzer, fieldWeights });
  const order: string[] = [];
  // Optional write-order jitter: the HTTP benchmark writes with 4 requests in flight, so the
  // service may index turns slightly out of dialogue order. Shuffle within blocks of `jitter`.
  let turns = conv.turns;
  if (cfg.jitter && cfg.jitter > 1) {
    let seed = 12345;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    turns = [...conv.turns];
    for (let i = 0; i < turns.length; i += cfg.jitter) {
      const end = Math.min(turns.length, i + cfg.jitter);
      for (let j = end - 1; j > i; j -= 1) {
        const r = i + Math.floor(rnd() * (j - i + 1));
        const tmp = turns[j] as (typeof turns)[number];
        turns[j] = turns[r] as typeof tmp;
        turns[r] = tmp;
      }
    }
  }
  for (const t of turns) {
    if (cfg.fields === 'fields') {
      index.upsert(t.dia_id, { date: t.date, speaker: t.speaker, utterance: t.utterance, caption: t.caption });
    } else {
      index.upsert(t.dia_id, { text: t.text });
    }
    order.push(t.dia_id);
  }
  let vindex: VectorIndex | null = null;
  if (cfg.vectors && vec) {
    const vecs = await vec.embed(conv.turns.map((t) => t.text));
    vindex = new VectorIndex();
    conv.turns.forEach((t, i) => vindex!.upsert(t.dia_id, vecs[i] as Float32Array));
  }
  const qcache = new Map<string, Float32Array>();
  if (cfg.vectors && vec) {
    const qs = conv.questions.map((q) => q.question);
    const qv = await vec.embed(qs);
    qs.forEach((q, i) => qcache.set(q, qv[i] as Float32Array));
  }
  const search = {
    feedback: cfg.feedback ?? false,
    context: cfg.context ? { weight: cfg.context.weight, window: cfg.context.window, decay: cfg.context.decay, depth: cfg.context.depth } : false,
  } as const;
  return (question, limit) => {
    if (vindex && cfg.vectors && cfg.vectors.only) {
      const qv = qcache.get(question);
      return qv ? vindex.search(qv, { limit }).map((h) => h.docId) : [];
    }
    if (vindex && cfg.vectors) {
      const hits = hybridSearch(
        index,
        vindex,
        { text: question, vector: qcache.get(question) ?? null, limit },
        {
          search,
          rrfK: cfg.vectors.rrfK,
          weights: cfg.vectors.weights,
          depth: cfg.vectors.depth,
        },
      );
      return hits.map((h) => h.docId);
    }
    return index.search(question, { limit, ...search }).map((h) => h.docId);
  };
}

export interface RunResult {
  overall: Record<string, number>;
  byCategory: Record<string, Record<string, number>>;
  perConv: { conv: string; turns: number; metrics: Record<string, number> }[];
  buildMs: number;
  queryP50Ms: number;
  queryP95Ms: number;
}

export async function runBench(convIds: string[], cfg: BenchConfig, ks: number[], vec: VectorSource | null, perQuestion?: string[]): Promise<RunResult> {
  const maxK = Math.max(...ks);
  const all = newAgg(ks);
  const cats: Record<number, Agg> = {};
  const perConv: RunResult['perConv'] = [];
  const lat: number[] = [];
  let buildMs = 0;
  for (const id of convIds) {
    const conv = loadConversation(id);
    const t0 = performance.now();
    const rank = await buildRanker(conv, cfg, vec);
    buildMs += performance.now() - t0;
    const agg = newAgg(ks);
    for (const q of conv.questions) {
      const t1 = performance.now();
      const ranked = rank(q.question, maxK);
      lat.push(performance.now() - t1);
      const firstHit = scoreQuestion(q, ranked, ks, agg);
      cats[q.category] ??= newAgg(ks);
      scoreQuestion(q, ranked, ks, cats[q.category] as Agg);
      perQuestion?.push(JSON.stringify({ conv: id, q: q.idx, category: q.category, question: q.question, evidence: q.evidence, first_hit: firstHit, top: ranked.slice(0, 10) }));
    }
    mergeAgg(all, agg);
    perConv.push({ conv: id, turns: conv.turns.length, metrics: finishAgg(agg, ks) });
  }
  lat.sort((a, b) => a - b);
  const pct = (p: number): number => lat[Math.min(lat.length - 1, Math.max(0, Math.ceil((p / 100) * lat.length) - 1))] ?? 0;
  return {
    overall: finishAgg(all, ks),
    byCategory: Object.fromEntries(
      Object.entries(cats)
        .sort()
        .map(([c, a]) => [c, finishAgg(a, ks)]),
    ),
    perConv,
    buildMs,
    queryP50Ms: pct(50),
    queryP95Ms: pct(95),
  };
}

export function printResult(label: string, r: RunResult, ks: number[]): void {
  const f = (x: number | undefined): string => (x ?? 0).toFixed(3);
  const head = ['conv', 'turns', 'qs', ...ks.map((k) => `hit@${k}`), 'MRR'];
  const line = (cells: (string | number)[]): string =>
    cells
      .map((c, i) =>
        String(c)
          .padStart(i === 0 ? 0 : 7)
          .padEnd(i === 0 ? 6 : 0),
      )
      .join(' ');
  process.stderr.write(`\n${label}\n${line(head)}\n`);
  for (const c of r.perConv) process.stderr.write(`${line([c.conv, c.turns, c.metrics.questions ?? 0, ...ks.map((k) => f(c.metrics[`hit@${k}`])), f(c.metrics.mrr)])}\n`);
  process.stderr.write(`${line(['ALL', r.perConv.reduce((a, c) => a + c.turns, 0), r.overall.questions ?? 0, ...ks.map((k) => f(r.overall[`hit@${k}`])), f(r.overall.mrr)])}\n`);
  for (const [c, m] of Object.entries(r.byCategory)) {
    process.stderr.write(
      `  ${`${c} ${CAT_NAMES[Number(c)] ?? ''}`.padEnd(14)} n=${String(m.questions).padStart(4)}  ${ks.map((k) => `hit@${k}=${f(m[`hit@${k}`])}`).join(' ')}  MRR=${f(m.mrr)}\n`,
    );
  }
  process.stderr.write(`  build ${r.buildMs.toFixed(0)} ms total; query p50 ${r.queryP50Ms.toFixed(3)} ms, p95 ${r.queryP95Ms.toFixed(3)} ms\n`);
}

export function resolveConfig(preset: string | undefined, json: string | undefined): BenchConfig {
  const p = PRESETS[preset ?? 'lore'];
  if (!p) throw new Error(`unknown preset ${preset}`);
  const over = json ? (JSON.parse(json) as Partial<BenchConfig>) : {};
  return { ...DEFAULTS, ...p, ...over, fieldWeights: { ...DEFAULTS.fieldWeights, ...(p.fieldWeights ?? {}), ...(over.fieldWeights ?? {}) } };
}

export async function loadVectorSource(cfg: BenchConfig): Promise<VectorSource | null> {
  if (!cfg.vectors) return null;
  const { createEmbedder } = await import('../../src/retrieval/embedders/index');
  const cacheDir = process.env.LORE_BENCH_VEC_CACHE ?? path.join(os.tmpdir(), 'lore-vec-cache');
  fs.mkdirSync(cacheDir, { recursive: true });
  const source = cfg.vectors.source;
  const embedder =
    source === 'local'
      ? await createEmbedder({ provider: 'local' })
      : source.startsWith('onnx:')
        ? await createEmbedder({ provider: 'onnx', model: source.slice(5) })
        : await createEmbedder({ provider: 'openai', baseUrl: source, model: 'bench' });
  if (!embedder) return null;
  // Cache vectors on disk by text hash: the encoder is deterministic and slow-ish.
  const { createHash } = await import('node:crypto');
  return {
    async embed(texts: string[]): Promise<Float32Array[]> {
      const key = createHash('sha256')
        .update(`${embedder.id}\n${texts.join('\n')}`)
        .digest('hex')
        .slice(0, 32);
      const file = `${cacheDir}/${key}.f32`;
      if (fs.existsSync(file)) {
        const buf = fs.readFileSync(file);
        const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
        const dim = all.length / texts.length;
        return texts.map((_, i) => all.slice(i * dim, (i + 1) * dim));
      }
      const out = await embedder.embed(texts);
      const dim = out[0]?.length ?? 0;
      const flat = new Float32Array(dim * out.length);
      out.forEach((v, i) => flat.set(v, i * dim));
      fs.writeFileSync(file, Buffer.from(flat.buffer));
      return out;
    },
  };
}

async function main(): Promise<void> {
  const S = { type: 'string' } as const;
  const { values: args } = cli(USAGE, { convs: S, k: S, config: S, preset: S, json: { type: 'boolean', default: false }, 'per-question': S });
  const ks = (args.k ?? '1,5,10,20').split(',').map(Number);
  const convIds = args.convs ? args.convs.split(',') : listConversations();
  const cfg = resolveConfig(args.preset, args.config);
  const vec = await loadVectorSource(cfg);
  const pq: string[] | undefined = args['per-question'] ? [] : undefined;
  const r = await runBench(convIds, cfg, ks, vec, pq);
  if (pq && args['per-question']) fs.writeFileSync(args['per-question'], pq.join('\n') + '\n');
  if (!args.json) printResult(`LoCoMo in-process [${args.preset ?? 'lore'}] ${JSON.stringify(cfg)}`, r, ks);
  process.stdout.write(`${JSON.stringify({ config: cfg, convs: convIds, ...r })}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  });
}
