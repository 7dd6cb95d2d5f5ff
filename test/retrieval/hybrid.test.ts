import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hybridSearch, LexicalIndex, PartitionedIndexes, VectorIndex } from '../../src/retrieval/index';

function setup(): { lex: LexicalIndex; vec: VectorIndex } {
  const lex = new LexicalIndex();
  const vec = new VectorIndex();
  const docs: [string, string, number[]][] = [
    ['a', 'retry backoff in the payments client', [1, 0, 0]],
    ['b', 'exponential delay between attempts', [0.9, 0.1, 0]],
    ['c', 'pagination cursor handling', [0, 1, 0]],
    ['d', 'lunch menu', [0, 0, 1]],
  ];
  for (const [id, text, v] of docs) {
    lex.upsert(id, { text });
    vec.upsert(id, v);
  }
  return { lex, vec };
}

test('lexical-only when no query vector: bm25 breakdown', () => {
  const { lex, vec } = setup();
  const hits = hybridSearch(lex, vec, { text: 'retry backoff', limit: 3 });
  assert.equal(hits[0]!.docId, 'a');
  assert.equal(hits[0]!.breakdown.strategy, 'bm25');
  assert.equal(hits[0]!.breakdown.bm25!.rank, 1);
  assert.equal(hits[0]!.breakdown.vector, null);
  assert.equal(hits[0]!.score, hits[0]!.breakdown.bm25!.score);
});

test('hybrid: RRF of lexical and vector lists, with breakdown and filter', () => {
  const { lex, vec } = setup();
  const hits = hybridSearch(lex, vec, { text: 'retry backoff', vector: [1, 0.05, 0], limit: 3 }, { search: {}, rrfK: 60, weights: [1, 1] });
  assert.equal(hits[0]!.docId, 'a');
  assert.equal(hits[0]!.breakdown.strategy, 'hybrid_rrf');
  assert.equal(hits[0]!.breakdown.vector!.rank, 1);
  assert.ok(Math.abs(hits[0]!.score - 2 / 61) < 1e-12);
  const b = hits.find((h) => h.docId === 'b')!;
  assert.equal(b.breakdown.bm25, null, 'found by the vector side only');
  assert.equal(b.breakdown.vector!.rank, 2);
  const filtered = hybridSearch(lex, vec, { text: 'retry backoff', vector: [1, 0, 0], filter: (id) => id !== 'a' });
  assert.ok(filtered.every((h) => h.docId !== 'a'));
  // a vector of the wrong dimension is ignored rather than failing the recall
  assert.equal(hybridSearch(lex, vec, { text: 'retry', vector: [1, 0] })[0]!.breakdown.strategy, 'bm25');
});

test('partitions isolate statistics and data', () => {
  const p = new PartitionedIndexes();
  p.get('t1', 's').lexical.upsert('x', { text: 'shared word alpha' });
  p.get('t2', 's').lexical.upsert('y', { text: 'shared word beta' });
  assert.deepEqual(
    p
      .get('t1', 's')
      .lexical.search('shared')
      .map((h) => h.docId),
    ['x'],
  );
  assert.equal(p.peek('t3', 's'), undefined);
  assert.deepEqual(p.stats(), { partitions: 2, docs: 2, vectors: 0 });
  assert.equal(p.drop('t1', 's'), true);
  assert.equal(p.size, 1);
});
