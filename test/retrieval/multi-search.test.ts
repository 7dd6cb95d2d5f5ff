import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdTable } from '../../src/retrieval/arena';
import { LexicalIndex } from '../../src/retrieval/lexical-index';
import { searchAcross } from '../../src/retrieval/multi-search';

const WORDS = 'retry backoff worker cursor token refresh cache invalidate flaky test payments checkout export csv encoding timeout queue jitter lunch note'.split(' ');
const doc = (i: number) => Array.from({ length: 3 + (i % 5) }, (_, k) => WORDS[(i * 7 + k * 5 + ((k * k) % 3)) % WORDS.length]).join(' ');

/** The same documents in one index, and split over two sharing an id table (every third in the second). */
function indexes(n: number) {
  const one = new LexicalIndex({ fieldWeights: { title: 2 } });
  const ids = new IdTable();
  const a = new LexicalIndex({ fieldWeights: { title: 2 }, ids });
  const b = new LexicalIndex({ fieldWeights: { title: 2 }, ids });
  for (let i = 0; i < n; i += 1) {
    const fields = { title: WORDS[i % WORDS.length], text: doc(i) };
    one.upsert(`d${i}`, fields);
    (i % 3 === 0 ? b : a).upsert(`d${i}`, fields);
  }
  return { one, both: searchAcross([a, b]), a, b };
}

const plain = (hits: { docId: string; score: number }[]) => hits.map((h) => [h.docId, Math.round(h.score * 1e9)]);

test('two indexes searched together score and rank as one index holding both', () => {
  const { one, both } = indexes(400);
  for (const q of ['retry backoff', 'flaky test payments', 'csv', 'cache invalidate token refresh queue', 'nothing-matches']) {
    assert.deepEqual(plain(both.search(q, { limit: 15 })), plain(one.search(q, { limit: 15 })), q);
    // Feedback expansion from the merged first pass gives the same expanded query.
    const fb = { docs: 5, terms: 10, originalWeight: 0.7, maxDocFreq: 0.2 };
    assert.deepEqual(plain(both.search(q, { limit: 15, feedback: fb })), plain(one.search(q, { limit: 15, feedback: fb })), `${q} with feedback`);
  }
});

test('filters apply by document number in every index; context re-ranks within each index', () => {
  const { both, a, b } = indexes(200);
  const even = (k: number) => k % 2 === 0;
  for (const h of both.search('retry worker', { limit: 50, keyFilter: even })) assert.equal(h.key % 2, 0);
  const ctx = both.search('retry worker', { limit: 10, context: { weight: 0.3, window: 2 } });
  assert.ok(ctx.length > 0 && ctx.every((h) => typeof h.bm25 === 'number' && typeof h.context === 'number'));
  // With one index empty, it is exactly the other's own search.
  const onlyA = searchAcross([a, new LexicalIndex({ fieldWeights: { title: 2 } })]);
  assert.deepEqual(onlyA.search('retry', { limit: 5 }), a.search('retry', { limit: 5 }));
  assert.ok(b.size > 0);
});
