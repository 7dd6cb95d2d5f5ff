import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VectorIndex } from '../../src/retrieval/vector-index';

test('exact cosine ranking over normalised vectors', () => {
  const v = new VectorIndex();
  v.upsert('x', [1, 0, 0]);
  v.upsert('y', [10, 10, 0]); // normalised on insert
  v.upsert('z', [0, 0, 3]);
  assert.equal(v.dim, 3);
  assert.equal(v.size, 3);
  const hits = v.search([2, 0, 0], { limit: 3 });
  assert.deepEqual(
    hits.map((h) => h.docId),
    ['x', 'y', 'z'],
  );
  assert.ok(Math.abs(hits[0]!.score - 1) < 1e-6);
  assert.ok(Math.abs(hits[1]!.score - Math.SQRT1_2) < 1e-6);
  assert.ok(Math.abs(hits[2]!.score) < 1e-6);
  const stored = v.get('y')!;
  assert.ok(Math.abs(stored[0]! - Math.SQRT1_2) < 1e-6);
});

test('update, remove (row swap), filter, candidates', () => {
  const v = new VectorIndex(2);
  for (let i = 0; i < 10; i += 1) v.upsert(`d${i}`, [Math.cos(i / 10), Math.sin(i / 10)]);
  v.upsert('d0', [0, 1]); // update in place
  assert.equal(v.size, 10);
  assert.equal(v.search([0, 1], { limit: 1 })[0]!.docId, 'd0');
  assert.equal(v.remove('d0'), true);
  assert.equal(v.remove('d0'), false);
  assert.equal(v.size, 9);
  assert.equal(v.search([0, 1], { limit: 1 })[0]!.docId, 'd9'); // swapped-in row still correct
  assert.ok(v.get('d9'));
  assert.equal(v.search([1, 0], { limit: 1 })[0]!.docId, 'd1');
  assert.equal(v.search([1, 0], { limit: 1, filter: (id) => id !== 'd1' })[0]!.docId, 'd2');
  const c = v.search([1, 0], { limit: 5, candidates: ['d5', 'd7', 'nope', 'd5'] });
  assert.deepEqual(
    c.map((h) => h.docId),
    ['d5', 'd7'],
  );
});

test('errors and edge cases', () => {
  const v = new VectorIndex();
  assert.deepEqual(v.search([1, 2]), []);
  v.upsert('a', [1, 2]);
  assert.throws(() => v.upsert('b', [1, 2, 3]), RangeError);
  assert.throws(() => v.search([1]), RangeError);
  assert.throws(() => v.upsert('c', [NaN, 1]), RangeError);
  assert.deepEqual(v.search([0, 0]), []);
  v.upsert('zero', [0, 0]);
  assert.equal(v.search([1, 0], { limit: 5 }).length, 2);
});

test('background: the mean cosine to a sample of stored vectors; scores: cosines of given documents', () => {
  const v = new VectorIndex();
  assert.equal(v.background([1, 0]), 0, 'empty');
  v.upsert('x', [1, 0]);
  v.upsert('y', [0, 1]);
  v.upsert('z', [1, 1]);
  const bg = v.background([2, 0]);
  assert.ok(Math.abs(bg - (1 + 0 + Math.SQRT1_2) / 3) < 1e-6, `${bg}`);
  assert.ok(Math.abs(v.background([2, 0], 2) - 0.5) < 1e-6, 'evenly spaced sample of 2: x and y');
  const s = v.scores([0, 3], ['y', 'z', 'missing']);
  assert.deepEqual([...s.keys()], ['y', 'z']);
  assert.ok(Math.abs(s.get('y')! - 1) < 1e-6 && Math.abs(s.get('z')! - Math.SQRT1_2) < 1e-6);
  assert.equal(v.scores([1, 0, 0], ['x']).size, 0, 'another dimension: nothing');
});
