import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../src/retrieval/analyze';
import { LexicalIndex, type SearchHit } from '../../src/retrieval/lexical-index';

// Reference BM25 over the same analysis, computed naively, to check the index exactly.
function referenceScores(docs: Map<string, string>, query: string, k1 = 1.2, b = 0.75): Map<string, number> {
  const tfs = new Map<string, Map<string, number>>();
  let total = 0;
  for (const [id, text] of docs) {
    const tf = new Map<string, number>();
    for (const t of analyze(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
    tfs.set(id, tf);
    total += [...tf.values()].reduce((a, c) => a + c, 0);
  }
  const N = docs.size;
  const avgdl = total / N;
  const q = new Map<string, number>();
  for (const t of analyze(query)) q.set(t, (q.get(t) ?? 0) + 1);
  const dfs = new Map<string, number>();
  for (const t of q.keys()) {
    let df = 0;
    for (const other of tfs.values()) if (other.has(t)) df += 1;
    dfs.set(t, df);
  }
  const out = new Map<string, number>();
  for (const [id, tf] of tfs) {
    const len = [...tf.values()].reduce((a, c) => a + c, 0);
    let s = 0;
    for (const [t, qw] of q) {
      const f = tf.get(t);
      if (!f) continue;
      const df = dfs.get(t) as number;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      s += (qw * idf * (f * (k1 + 1))) / (f + k1 * (1 - b + (b * len) / avgdl));
    }
    if (s > 0) out.set(id, s);
  }
  return out;
}

function topRef(ref: Map<string, number>, k: number): { docId: string; score: number }[] {
  return [...ref.entries()]
    .map(([docId, score]) => ({ docId, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
}

function assertSameRanking(got: SearchHit[], want: { docId: string; score: number }[], msg = ''): void {
  assert.equal(got.length, want.length, `length ${msg}`);
  for (let i = 0; i < want.length; i += 1) {
    const g = got[i] as SearchHit;
    const w = want[i] as { docId: string; score: number };
    assert.ok(Math.abs(g.score - w.score) < 1e-9, `score at ${i}: ${g.score} vs ${w.score} ${msg}`);
    // ties may come in either order; same score is enough
  }
}

const TOY: Record<string, string> = {
  a: 'The retry backoff in the payments client doubles the delay between retries',
  b: 'Fixed pagination cursor handling in the search service',
  c: 'Cache invalidation: stale cached entries after update in billing',
  d: 'Melanie painted a sunrise over the lake last year',
  e: 'Caroline went to an LGBTQ support group and felt accepted',
};

function toyIndex(): LexicalIndex {
  const idx = new LexicalIndex({ b: 0.75, fieldWeights: {} });
  for (const [id, text] of Object.entries(TOY)) idx.upsert(id, { text });
  return idx;
}

test('ranks a toy corpus sensibly and matches reference BM25', () => {
  const idx = toyIndex();
  assert.equal(idx.size, 5);
  assert.equal(idx.search('how did we retry with backoff?')[0]?.docId, 'a');
  assert.equal(idx.search('pagination cursors')[0]?.docId, 'b');
  assert.equal(idx.search('what did Melanie paint?')[0]?.docId, 'd'); // stemming: paint ~ painted
  assert.equal(idx.search('support groups')[0]?.docId, 'e');
  const ref = referenceScores(new Map(Object.entries(TOY)), 'stale cache entries in billing');
  assertSameRanking(idx.search('stale cache entries in billing', { limit: 5 }), topRef(ref, 5));
  assert.deepEqual(idx.search('zebra unicorn'), []);
  assert.deepEqual(idx.search('the of and'), []);
});

test('update replaces the old text; remove forgets the document', () => {
  const idx = toyIndex();
  idx.upsert('d', { text: 'Melanie adopted a cat named Bailey' });
  assert.equal(idx.size, 5);
  assert.equal(idx.search('sunrise lake').length, 0);
  assert.equal(idx.search('cat named Bailey')[0]?.docId, 'd');
  assert.equal(idx.remove('d'), true);
  assert.equal(idx.remove('d'), false);
  assert.equal(idx.size, 4);
  assert.equal(idx.search('Bailey').length, 0);
  assert.equal(idx.has('d'), false);
});

test('df and length statistics follow updates and removals', () => {
  const idx = new LexicalIndex({ fieldWeights: {} });
  idx.upsert('x', 'apple banana');
  idx.upsert('y', 'apple cherry cherry');
  assert.equal(idx.docFreq('appl'), 2);
  assert.equal(idx.docFreq('cherri'), 1);
  assert.equal(idx.docLength('y'), 3);
  assert.equal(idx.stats().avgDocLength, 2.5);
  idx.upsert('y', 'banana');
  assert.equal(idx.docFreq('appl'), 1);
  assert.equal(idx.docFreq('cherri'), 0);
  assert.equal(idx.docFreq('banana'), 2);
  assert.equal(idx.docLength('y'), 1);
  assert.equal(idx.stats().avgDocLength, 1.5);
  idx.remove('x');
  assert.equal(idx.docFreq('appl'), 0);
  assert.equal(idx.docFreq('banana'), 1);
  assert.equal(idx.stats().docs, 1);
  assert.equal(idx.stats().avgDocLength, 1);
  // Scores after updates equal scores of a fresh index with the same content (its id table numbers 'y' 0, not 1).
  const fresh = new LexicalIndex({ fieldWeights: {} });
  fresh.upsert('y', 'banana');
  const plain = (hits: { docId: string; score: number }[]) => hits.map((h) => ({ docId: h.docId, score: h.score }));
  assert.deepEqual(plain(idx.search('banana')), plain(fresh.search('banana')));
});

test('field weights count title terms more', () => {
  const idx = new LexicalIndex({ fieldWeights: { title: 3 } });
  idx.upsert('t', { title: 'deadlock', text: 'some notes about goroutines' });
  idx.upsert('u', { title: 'notes', text: 'a deadlock in goroutines' });
  assert.equal(idx.search('deadlock')[0]?.docId, 't');
  assert.equal(idx.docLength('t'), 3 + 3);
});

test('filter restricts results (and does not change scores)', () => {
  const idx = toyIndex();
  const all = idx.search('the retry payments cache billing search', { limit: 10 });
  const onlyC = idx.search('the retry payments cache billing search', { limit: 10, filter: (id) => id === 'c' });
  assert.equal(onlyC.length, 1);
  assert.equal(onlyC[0]?.docId, 'c');
  assert.equal(onlyC[0]?.score, all.find((h) => h.docId === 'c')?.score);
  assert.deepEqual(idx.search('retry', { filter: () => false }), []);
});

// Deterministic pseudo-random corpus for equivalence checks.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}
const VOCAB = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
  'juliet',
  'kilo',
  'lima',
  'mike',
  'november',
  'oscar',
  'papa',
  'quebec',
  'romeo',
  'sierra',
  'tango',
  'uniform',
  'victor',
  'whiskey',
  'xray',
  'yankee',
  'zulu',
  'common',
  'shared',
  'frequent',
];
function randomDoc(r: () => number): string {
  const n = 3 + Math.floor(r() * 25);
  const words: string[] = [];
  for (let i = 0; i < n; i += 1) {
    // skewed: low indices far more common
    const k = Math.floor(VOCAB.length * r() ** 2.2);
    words.push(VOCAB[k] as string);
  }
  if (r() < 0.9) words.push('common');
  return words.join(' ');
}

test('TAAT and pruned evaluation agree with the reference, with updates, removals and compaction', () => {
  const r = rng(42);
  const idx = new LexicalIndex({ fieldWeights: {}, primeBudget: 64 });
  const docs = new Map<string, string>();
  for (let i = 0; i < 3000; i += 1) {
    const t = randomDoc(r);
    docs.set(`d${i}`, t);
    idx.upsert(`d${i}`, t);
  }
  // churn: updates and removals
  for (let i = 0; i < 1500; i += 1) {
    const id = `d${Math.floor(r() * 3000)}`;
    if (r() < 0.5) {
      idx.remove(id);
      docs.delete(id);
    } else {
      const t = randomDoc(r);
      docs.set(id, t);
      idx.upsert(id, t);
    }
  }
  assert.equal(idx.size, docs.size);
  const queries = Array.from({ length: 25 }, () =>
    randomDoc(r)
      .split(' ')
      .slice(0, 2 + Math.floor(r() * 8))
      .join(' '),
  );
  const check = (label: string): void => {
    for (const q of queries) {
      const ref = referenceScores(docs, q);
      for (const k of [1, 7, 25]) {
        const want = topRef(ref, k);
        assertSameRanking(idx.searchWith('taat', q, k), want, `${label} taat k=${k} q=${q}`);
        assertSameRanking(idx.searchWith('pruned', q, k), want, `${label} pruned k=${k} q=${q}`);
        assertSameRanking(idx.search(q, { limit: k }), want, `${label} search k=${k} q=${q}`);
      }
    }
  };
  check('before compaction');
  const before = idx.stats();
  assert.ok(before.deadPostings > 0 || before.compactions > 0);
  idx.compact();
  assert.equal(idx.stats().deadPostings, 0);
  check('after compaction');
  // filters in both paths
  const even = (id: string): boolean => Number(id.slice(1)) % 2 === 0;
  for (const q of queries.slice(0, 5)) {
    const a = idx.searchWith('taat', q, 10, even);
    const b = idx.searchWith('pruned', q, 10, even);
    assert.deepEqual(
      a.map((h) => h.score.toFixed(9)),
      b.map((h) => h.score.toFixed(9)),
    );
    assert.ok(a.every((h) => even(h.docId)));
  }
  // Both paths leave their scratch clean for the next query: no accumulated score, no touched bit
  // (a stale bit would make a later pruned visit walk slots no list of its own touched).
  // The scratch arrays belong to the index's query evaluator (src/retrieval/lexical-query.ts).
  const scratch = (idx as unknown as { evaluator: { acc: Float64Array; seen: Uint32Array } }).evaluator;
  for (const strategy of ['taat', 'pruned'] as const) {
    for (const q of queries) {
      idx.searchWith(strategy, q, 7);
      idx.searchWith(strategy, q, 7, even);
      assert.ok(
        scratch.acc.every((x) => x === 0),
        `${strategy}: accumulator cleared after q=${q}`,
      );
      assert.ok(
        scratch.seen.every((x) => x === 0),
        `${strategy}: touched bits cleared after q=${q}`,
      );
    }
  }
});

test('a bulk load answers like the reference, holds its postings exactly, and keeps working after', () => {
  const r = rng(7);
  const idx = new LexicalIndex({ fieldWeights: {}, primeBudget: 64 });
  const docs = new Map<string, string>();
  for (let i = 0; i < 500; i += 1) {
    const t = randomDoc(r);
    docs.set(`d${i}`, t);
    idx.upsert(`d${i}`, t);
  }
  // Begun on a non-empty index: its postings are dropped and rebuilt at the end.
  idx.beginBulk();
  for (let i = 500; i < 3000; i += 1) {
    const t = randomDoc(r);
    docs.set(`d${i}`, t);
    idx.upsert(`d${i}`, t);
  }
  for (let i = 0; i < 600; i += 1) {
    const id = `d${Math.floor(r() * 3000)}`;
    if (r() < 0.5) {
      idx.remove(id);
      docs.delete(id);
    } else {
      const t = randomDoc(r);
      docs.set(id, t);
      idx.upsert(id, t);
    }
  }
  const during = idx.stats();
  assert.equal(during.arenaUsedBytes, 0, 'no posting is laid out during a bulk load');
  idx.endBulk();
  const after = idx.stats();
  assert.equal(after.deadPostings, 0);
  assert.equal(after.postings, during.postings, 'every live posting counted during the load is laid out');
  assert.equal(after.arenaUsedBytes, after.postings * 4, 'posting lists are exactly sized: no slack, no dead postings');
  assert.equal(after.compactions, 0);
  assert.equal(idx.size, docs.size);
  const queries = Array.from({ length: 20 }, () =>
    randomDoc(r)
      .split(' ')
      .slice(0, 2 + Math.floor(r() * 8))
      .join(' '),
  );
  const check = (label: string): void => {
    for (const q of queries) {
      const want = topRef(referenceScores(docs, q), 10);
      assertSameRanking(idx.searchWith('taat', q, 10), want, `${label} taat q=${q}`);
      assertSameRanking(idx.searchWith('pruned', q, 10), want, `${label} pruned q=${q}`);
    }
  };
  check('after a bulk load');
  // Incremental writes after it: lists grow out of their exact regions.
  for (let i = 0; i < 300; i += 1) {
    const id = `d${Math.floor(r() * 3500)}`;
    if (r() < 0.3) {
      idx.remove(id);
      docs.delete(id);
    } else {
      const t = randomDoc(r);
      docs.set(id, t);
      idx.upsert(id, t);
    }
  }
  check('writes after a bulk load');
});

test('a search during a bulk load ends it first', () => {
  const idx = new LexicalIndex({ fieldWeights: {} });
  idx.beginBulk();
  idx.upsert('a', 'zeppelin over the harbour');
  idx.upsert('b', 'a quiet harbour at dawn');
  assert.deepEqual(
    idx.search('zeppelin').map((h) => h.docId),
    ['a'],
  );
  idx.upsert('c', 'another zeppelin');
  assert.equal(idx.stats().arenaUsedBytes > 0, true, 'writes after the search lay out postings again');
  assert.deepEqual(
    idx
      .search('zeppelin')
      .map((h) => h.docId)
      .sort(),
    ['a', 'c'],
  );
  idx.endBulk(); // a no-op now
  assert.equal(idx.search('harbour').length, 2);
});

test('a write is searchable immediately; compaction keeps results', () => {
  const idx = new LexicalIndex();
  for (let i = 0; i < 200; i += 1) idx.upsert(`n${i}`, { text: `note ${i} about topic${i % 7}` });
  idx.upsert('fresh', { text: 'brand new zeppelin memory' });
  assert.equal(idx.search('zeppelin')[0]?.docId, 'fresh');
  const q = 'note about topic3';
  const before = idx.search(q, { limit: 20 });
  for (let i = 0; i < 100; i += 1) idx.remove(`n${i * 2}`);
  const mid = idx.search(q, { limit: 20 });
  idx.compact();
  assert.deepEqual(idx.search(q, { limit: 20 }), mid);
  assert.notDeepEqual(before, mid);
});

test('sequence context lifts neighbours of strong hits, in write order, and survives updates', () => {
  const idx = new LexicalIndex({ fieldWeights: {} });
  idx.upsert('t1', 'Caroline: what are the names of your pets?');
  idx.upsert('t2', 'Melanie: Luna and Oliver! They are so sweet.');
  idx.upsert('t3', 'Caroline: I went hiking last weekend.');
  for (let i = 0; i < 20; i += 1) idx.upsert(`f${i}`, `filler turn number ${i} about cooking dinner`);
  idx.upsert('t4', 'Melanie: my pets love the garden');
  const plain = idx.search('names of pets', { limit: 5 });
  assert.ok(!plain.some((h) => h.docId === 't2'));
  const ctx = idx.search('names of pets', { limit: 5, context: { weight: 0.3, window: 1 } });
  const t2 = ctx.find((h) => h.docId === 't2');
  assert.ok(t2, 'neighbour of the best hit is brought in');
  assert.equal(t2.bm25, 0);
  assert.ok((t2.context ?? 0) > 0);
  const t1 = ctx.find((h) => h.docId === 't1');
  assert.ok(t1 && t1.score >= (t1.bm25 ?? 0));
  // An update keeps the document's position in write order.
  idx.upsert('t2', 'Melanie: Luna and Oliver! Updated text.');
  const again = idx.search('names of pets', { limit: 5, context: { weight: 0.3, window: 1 } });
  assert.ok(again.some((h) => h.docId === 't2'));
  // A filtered-out neighbour is not brought in.
  const filtered = idx.search('names of pets', { limit: 5, context: { weight: 0.3, window: 1 }, filter: (id) => id !== 't2' });
  assert.ok(!filtered.some((h) => h.docId === 't2'));
});

test('pseudo-relevance feedback expands a short query', () => {
  const idx = new LexicalIndex({ fieldWeights: {} });
  idx.upsert('a', 'kubernetes pod crashloop backoff restart');
  idx.upsert('b', 'pod restart loop crashloop kubernetes events');
  idx.upsert('c', 'the deployment keeps restarting: crashloop backoff seen in events');
  idx.upsert('d', 'unrelated note about lunch');
  const plain = idx.search('kubernetes', { limit: 4 }).map((h) => h.docId);
  assert.ok(!plain.includes('c'));
  const fb = idx.search('kubernetes', { limit: 4, feedback: { docs: 2, terms: 5 } }).map((h) => h.docId);
  assert.ok(fb.includes('c'), `feedback finds the related document: ${fb.join(',')}`);
  assert.ok(!fb.includes('d'));
});

test('a query of more than 16 terms is evaluated on its 16 strongest; the cap is an option', () => {
  // Term t01 is in 1 document, t02 in 2, … t17 in 17: with one-term documents the rarest terms
  // can contribute most, so t17 (the most common) is the one a cap of 16 leaves out.
  const build = (options = {}): LexicalIndex => {
    const idx = new LexicalIndex(options);
    for (let i = 1; i <= 17; i += 1) for (let j = 0; j < i; j += 1) idx.upsert(`d${i}-${j}`, `t${String(i).padStart(2, '0')}`);
    return idx;
  };
  const query = Array.from({ length: 17 }, (_, i) => `t${String(i + 1).padStart(2, '0')}`).join(' ');
  const capped = build().search(query, { limit: 500 });
  assert.equal(capped.length, 153 - 17);
  assert.ok(
    capped.every((h) => !h.docId.startsWith('d17-')),
    'the weakest term is the one left out',
  );
  const wider = build({ maxQueryTerms: 17 }).search(query, { limit: 500 });
  assert.equal(wider.length, 153);
  // A query within the cap is unaffected: the same 16 terms give the same hits either way.
  const sixteen = query.replace(' t17', '');
  assert.deepEqual(build().search(sixteen, { limit: 500 }), build({ maxQueryTerms: 17 }).search(sixteen, { limit: 500 }));
});

test('stats and limits', () => {
  const idx = toyIndex();
  const s = idx.stats();
  assert.equal(s.docs, 5);
  assert.ok(s.terms > 10);
  assert.ok(s.postings > 10);
  assert.equal(idx.search('the retry payments cache billing search lake support', { limit: 2 }).length, 2);
  idx.clear();
  assert.equal(idx.size, 0);
  assert.deepEqual(idx.search('retry'), []);
});

test('coverage: the share of the query information a document holds, unseen words weighing most', () => {
  const idx = new LexicalIndex();
  idx.upsert('a', 'retry the flaky payment worker');
  idx.upsert('b', 'retry the cache warmer');
  idx.upsert('c', 'document the billing export');
  const terms = idx.queryTerms('flaky retry in the payment worker');
  assert.deepEqual(terms.map((t) => t.term).sort(), ['flaki', 'payment', 'retri', 'worker']);
  assert.ok(terms.every((t) => t.idf === idx.idf(t.term)));
  assert.equal(idx.coverage('a', terms), 1, 'every query term');
  const b = idx.coverage('b', terms);
  assert.ok(b > 0 && b < 0.3, `one common term: ${b}`);
  assert.equal(idx.coverage('c', terms), 0);
  assert.equal(idx.coverage('missing', terms), 0);
  // A word no document holds gets the highest idf, so it lowers every document's coverage.
  const withNew = idx.queryTerms('flaky retry in the payment worker on kubernetes');
  assert.ok(idx.idf('kubernet') > idx.idf('flaki'));
  assert.ok(idx.coverage('a', withNew) < 0.8);
  // Repetition and document length do not inflate it.
  idx.upsert('d', 'retry retry retry retry');
  assert.equal(idx.coverage('d', idx.queryTerms('retry')), 1);
});
