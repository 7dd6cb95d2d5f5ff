// How soon a new write gets its vector while the encoder has a backlog (docs/benchmarks.md,
// "Embeddings: write cost and restart"): writes a node with a made-up word, checks that recall
// finds it by BM25 at once, then polls recall until its hit carries a vector rank.
//
//   node bench/memory/vector-probe.mjs --base-url URL [--n 3]

import { parseArgs } from 'node:util';

const USAGE = 'node bench/memory/vector-probe.mjs --base-url URL [--n 3]: how soon a new write gets its vector while the encoder has a backlog.';
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const { values } = parseArgs({ options: { 'base-url': { type: 'string' }, n: { type: 'string' } }, strict: true });
const opt = (name, def) => values[name] ?? def;
const base = opt('base-url', 'http://127.0.0.1:3001');
const n = Number(opt('n', '3'));
const post = async (path, body) => (await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
const id = { tenant_id: 'default', scope: 'vector-probe' };
for (let i = 0; i < n; i += 1) {
  const word = Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
  const t0 = Date.now();
  const written = await post('/v1/memory/write', { ...id, input_text: `the ${word} heron nests by the estuary` });
  const nodeId = written.nodes[0].id;
  const ackMs = Date.now() - t0;
  const first = await post('/v1/memory/recall_text', { ...id, query_text: word });
  const hit = first.results.find((x) => x.id === nodeId);
  for (;;) {
    const r = await post('/v1/memory/recall_text', { ...id, query_text: `${word} heron` });
    if (r.results.find((x) => x.id === nodeId)?.score_breakdown.vector) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const h = await (await fetch(`${base}/health`)).json();
  const line = {
    ack_ms: ackMs,
    bm25_rank_at_once: hit?.score_breakdown.bm25?.rank ?? null,
    vector_after_ms: Date.now() - t0,
    pending: h.embeddings.pending,
    lag_ms: h.embeddings.lag_ms,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
