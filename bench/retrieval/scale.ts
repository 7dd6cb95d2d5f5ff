import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { LexicalIndex, type SearchOptions } from '../../src/retrieval/lexical-index';
import { VectorIndex } from '../../src/retrieval/vector-index';
import { RECALL_DEFAULTS } from '../../src/retrieval/defaults';
import { hashSeed, makeItem, makeNlQuery, mulberry32 } from './loadgen-docs';
import { cli } from '../cli';

const USAGE = `Scale benchmark for the retrieval core: N loadgen-like documents in one LexicalIndex
(one tenant+scope partition), then build time, memory, write latency and query latency.

  node --expose-gc --import tsx bench/retrieval/scale.ts [--docs 100000] [--queries 2000]
       [--vectors 384,1536] [--json]

Documents: title + summary from a port of loadgen.mjs's makeItem (400-700 chars each),
UUID doc ids. Queries: loadgen's mix, alternating natural-language paraphrases and
"exact" queries (the full summary), each targeting one random document; hit@10 is
reported for the target. Vector search is measured on random unit vectors.`;

const { values: opts } = cli(USAGE, { docs: { type: 'string' }, queries: { type: 'string' }, vectors: { type: 'string' }, json: { type: 'boolean' } });
const args = new Map(Object.entries(opts).map(([k, v]) => [k, String(v)]));
const N = Number(args.get('docs') ?? 100_000);
const Q = Number(args.get('queries') ?? 2000);
const VDIMS = (args.get('vectors') ?? '384,1536').split(',').filter(Boolean).map(Number);
const gc = (globalThis as { gc?: () => void }).gc;

function mem(): { heapMB: number; externalMB: number; arrayBuffersMB: number; rssMB: number } {
  if (gc) {
    gc();
    gc();
  }
  const m = process.memoryUsage();
  const mb = (x: number): number => Math.round((x / 1048576) * 10) / 10;
  return { heapMB: mb(m.heapUsed), externalMB: mb(m.external), arrayBuffersMB: mb(m.arrayBuffers), rssMB: mb(m.rss) };
}

function stats(xs: number[]): { n: number; p50: number; p95: number; p99: number; max: number; mean: number } {
  const s = [...xs].sort((a, b) => a - b);
  const p = (q: number): number => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? 0;
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return { n: s.length, p50: r(p(0.5)), p95: r(p(0.95)), p99: r(p(0.99)), max: r(s[s.length - 1] ?? 0), mean: r(s.reduce((a, b) => a + b, 0) / (s.length || 1)) };
}

function uuidFor(i: number): string {
  // Deterministic UUID-shaped ids (v4 layout) so runs are comparable.
  const h = crypto.createHash('sha1').update(`doc-${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function docFields(i: number): { title: string; text: string } {
  const it = makeItem(i);
  return { title: it.title, text: it.summary };
}

const out: Record<string, unknown> = { docs: N, queries: Q, node: process.version, loadavg_start: (await import('node:os')).loadavg() };
const log = (s: string): void => {
  if (args.get('json') !== 'true') process.stderr.write(`${s}\n`);
};

// ---------------------------------------------------------------- lexical build
const ids: string[] = Array.from({ length: N + 5000 }, (_, i) => uuidFor(i));
const mem0 = mem();
let index = new LexicalIndex(RECALL_DEFAULTS.index);
let t0 = performance.now();
let chars = 0;
const buildLat: number[] = [];
for (let i = 0; i < N; i += 1) {
  const f = docFields(i);
  chars += f.title.length + f.text.length;
  const s = performance.now();
  index.upsert(ids[i] as string, f);
  buildLat.push(performance.now() - s);
}
const buildMs = performance.now() - t0;
// Generation cost, to subtract: the same loop without indexing.
t0 = performance.now();
for (let i = 0; i < N; i += 1) docFields(i);
const genMs = performance.now() - t0;
const mem1 = mem();
out.build = {
  total_ms: Math.round(buildMs),
  generation_ms: Math.round(genMs),
  index_ms: Math.round(buildMs - genMs),
  per_doc_us: Math.round(((buildMs - genMs) / N) * 1000),
  avg_chars: Math.round(chars / N),
  upsert_ms_during_build: stats(buildLat),
  compactions_during_build: index.stats().compactions,
};
out.memory_after_build = { before: mem0, after: mem1, stats: index.stats() };
log(`build: ${JSON.stringify(out.build)}`);
log(`memory: ${JSON.stringify(out.memory_after_build)}`);
{
  // Retained size right after the build: memory with the index minus memory once it is
  // dropped; then the same documents are indexed again for the rest of the benchmark.
  index = new LexicalIndex();
  const mem2 = mem();
  out.index_retained_after_build = {
    heap_MB: Math.round((mem1.heapMB - mem2.heapMB) * 10) / 10,
    array_buffers_MB: Math.round((mem1.arrayBuffersMB - mem2.arrayBuffersMB) * 10) / 10,
    total_MB: Math.round((mem1.heapMB - mem2.heapMB + mem1.arrayBuffersMB - mem2.arrayBuffersMB) * 10) / 10,
    rss_with_MB: mem1.rssMB,
    rss_without_MB: mem2.rssMB,
  };
  log(`index retained after build: ${JSON.stringify(out.index_retained_after_build)}`);
  index = new LexicalIndex(RECALL_DEFAULTS.index);
  for (let i = 0; i < N; i += 1) index.upsert(ids[i] as string, docFields(i));
}

// ---------------------------------------------------------------- queries
function runQueries(label: string, opts: SearchOptions): Record<string, unknown> {
  const lat: Record<string, number[]> = { nl: [], exact: [] };
  const cpu: number[] = [];
  const hits: Record<string, number> = { nl: 0, exact: 0 };
  for (let w = 0; w < 200; w += 1) index.search(makeNlQuery(makeItem(w), 1000 + w), opts); // warm-up
  for (let j = 0; j < Q; j += 1) {
    const target = Math.floor(mulberry32(hashSeed(1, 'target', 'recall', j))() * N);
    const item = makeItem(target);
    const mode = j % 2 === 0 ? 'nl' : 'exact';
    const text = mode === 'exact' ? item.summary : makeNlQuery(item, j);
    const c = process.cpuUsage();
    const s = performance.now();
    const res = index.search(text, { ...opts, limit: 10 });
    (lat[mode] as number[]).push(performance.now() - s);
    const dc = process.cpuUsage(c);
    cpu.push((dc.user + dc.system) / 1000);
    if (res.some((r) => r.docId === ids[target])) hits[mode] = (hits[mode] ?? 0) + 1;
  }
  const all = [...(lat.nl as number[]), ...(lat.exact as number[])];
  const r = {
    all_ms: stats(all),
    // CPU time of the query (excludes time spent waiting for a core on a busy machine).
    all_cpu_ms: stats(cpu),
    nl_ms: stats(lat.nl as number[]),
    exact_ms: stats(lat.exact as number[]),
    target_hit_at_10: { nl: (hits.nl ?? 0) / (Q / 2), exact: (hits.exact ?? 0) / (Q / 2) },
  };
  log(`query [${label}]: ${JSON.stringify(r)}`);
  return r;
}
out.query_bm25 = runQueries('bm25', {});
out.query_bm25_context = runQueries('bm25+context', { context: RECALL_DEFAULTS.search.context });
out.query_recall_defaults = runQueries('recall defaults (bm25+prf+context)', RECALL_DEFAULTS.search);
const filterSet = new Set(ids.slice(0, N).filter((_, i) => i % 2 === 0));
out.query_recall_defaults_filter_half = runQueries('recall defaults, filter keeps 50%', { ...RECALL_DEFAULTS.search, filter: (id) => filterSet.has(id) });

// ---------------------------------------------------------------- writes after build
const addLat: number[] = [];
for (let i = N; i < N + 2000; i += 1) {
  const f = docFields(i);
  const s = performance.now();
  index.upsert(ids[i] as string, f);
  addLat.push(performance.now() - s);
}
const updLat: number[] = [];
for (let j = 0; j < 1000; j += 1) {
  const i = (j * 7919) % N;
  const f = docFields(i + 1_000_000);
  const s = performance.now();
  index.upsert(ids[i] as string, f);
  updLat.push(performance.now() - s);
}
const delLat: number[] = [];
for (let j = 0; j < 1000; j += 1) {
  const i = (j * 104729 + 13) % N;
  const s = performance.now();
  index.remove(ids[i] as string);
  delLat.push(performance.now() - s);
}
// Searchable immediately: the last added document is found by its own summary.
const lastId = ids[N + 1999] as string;
const found = index.search(docFields(N + 1999).text, { limit: 1 })[0]?.docId === lastId;
const beforeCompact = index.stats();
t0 = performance.now();
index.compact();
const compactMs = performance.now() - t0;
out.writes = {
  add_ms: stats(addLat),
  update_ms: stats(updLat),
  remove_ms: stats(delLat),
  new_doc_searchable_immediately: found,
  stats_before_compact: beforeCompact,
  compact_ms: Math.round(compactMs),
  memory_after_compact: mem(),
};
log(`writes: ${JSON.stringify(out.writes)}`);

// Retained size: memory with the index minus memory once it is dropped.
{
  const withIndex = mem();
  const docs = index.size;
  index = new LexicalIndex();
  const without = mem();
  out.index_retained = {
    docs,
    heap_MB: Math.round((withIndex.heapMB - without.heapMB) * 10) / 10,
    array_buffers_MB: Math.round((withIndex.arrayBuffersMB - without.arrayBuffersMB) * 10) / 10,
    total_MB: Math.round((withIndex.heapMB - without.heapMB + withIndex.arrayBuffersMB - without.arrayBuffersMB) * 10) / 10,
    rss_with_MB: withIndex.rssMB,
    rss_without_MB: without.rssMB,
  };
  log(`index retained (after compaction): ${JSON.stringify(out.index_retained)}`);
}

// ---------------------------------------------------------------- vectors
const vres: Record<string, unknown> = {};
for (const dim of VDIMS) {
  const m0 = mem();
  const vi = new VectorIndex(dim);
  const rnd = mulberry32(dim);
  const v = new Float32Array(dim);
  t0 = performance.now();
  for (let i = 0; i < N; i += 1) {
    for (let d = 0; d < dim; d += 1) v[d] = rnd() - 0.5;
    vi.upsert(ids[i] as string, v);
  }
  const vbuild = performance.now() - t0;
  const m1 = mem();
  const lat: number[] = [];
  const candLat: number[] = [];
  const cands = ids.slice(0, 200);
  for (let q = 0; q < 30; q += 1) {
    for (let d = 0; d < dim; d += 1) v[d] = rnd() - 0.5;
    let s = performance.now();
    vi.search(v, { limit: 10 });
    lat.push(performance.now() - s);
    s = performance.now();
    vi.search(v, { limit: 10, candidates: cands });
    candLat.push(performance.now() - s);
  }
  vres[String(dim)] = {
    build_ms: Math.round(vbuild),
    memory_MB: Math.round((m1.arrayBuffersMB - m0.arrayBuffersMB + m1.heapMB - m0.heapMB) * 10) / 10,
    exact_search_ms: stats(lat),
    candidates_200_search_ms: stats(candLat),
  };
  log(`vectors dim=${dim}: ${JSON.stringify(vres[String(dim)])}`);
}
out.vectors = vres;
out.final_memory = mem();
out.loadavg_end = (await import('node:os')).loadavg();
process.stdout.write(`${JSON.stringify(out)}\n`);
