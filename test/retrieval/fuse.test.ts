import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rrfFuse, scoreBreakdown } from '../../src/retrieval/fuse';
import { contextRerank } from '../../src/retrieval/context';

const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-12;

test('RRF: sum of w/(k + rank), absent lists add nothing', () => {
  const bm25 = [
    { docId: 'a', score: 9 },
    { docId: 'b', score: 5 },
    { docId: 'c', score: 1 },
  ];
  const vec = [
    { docId: 'c', score: 0.9 },
    { docId: 'a', score: 0.8 },
    { docId: 'd', score: 0.1 },
  ];
  const fused = rrfFuse([bm25, vec]);
  const by = new Map(fused.map((f) => [f.docId, f]));
  assert.ok(close(by.get('a')!.score, 1 / 61 + 1 / 62));
  assert.ok(close(by.get('b')!.score, 1 / 62));
  assert.ok(close(by.get('c')!.score, 1 / 63 + 1 / 61));
  assert.ok(close(by.get('d')!.score, 1 / 63));
  assert.deepEqual(
    fused.map((f) => f.docId),
    ['a', 'c', 'b', 'd'],
  );
  assert.deepEqual(by.get('b')!.ranks, [2, null]);
  assert.deepEqual(by.get('d')!.components[0], { rank: null, score: null, contribution: 0 });
  assert.equal(by.get('c')!.components[1]!.score, 0.9);
});

test('RRF: k, weights, limit, duplicates and validation', () => {
  const l1 = [
    { docId: 'x', score: 1 },
    { docId: 'y', score: 0.5 },
    { docId: 'x', score: 0.1 },
  ];
  const l2 = [{ docId: 'y', score: 1 }];
  const f = rrfFuse([l1, l2], { k: 0, weights: [1, 3] });
  const y = f.find((i) => i.docId === 'y')!;
  const x = f.find((i) => i.docId === 'x')!;
  assert.ok(close(x.score, 1)); // duplicate ignored: x only at rank 1
  assert.ok(close(y.score, 1 / 2 + 3 / 1));
  assert.equal(f[0]!.docId, 'y');
  assert.equal(rrfFuse([l1, l2], { limit: 1 }).length, 1);
  assert.deepEqual(rrfFuse([]), []);
  assert.throws(() => rrfFuse([l1], { weights: [1, 2] }), RangeError);
  assert.throws(() => rrfFuse([l1], { k: -1 }), RangeError);
});

test('RRF ties: better best rank first, then docId', () => {
  const f = rrfFuse([[{ docId: 'b', score: 1 }], [{ docId: 'a', score: 1 }]]);
  assert.deepEqual(
    f.map((i) => i.docId),
    ['a', 'b'],
  );
});

test('score breakdown names each list', () => {
  const [top] = rrfFuse([[{ docId: 'a', score: 7.5 }], [{ docId: 'a', score: 0.42 }]]);
  const b = scoreBreakdown(top!, ['bm25', 'vector']);
  assert.deepEqual(b.bm25, { rank: 1, score: 7.5, contribution: 1 / 61 });
  assert.deepEqual(b.vector, { rank: 1, score: 0.42, contribution: 1 / 61 });
  assert.ok(close(b.fused as number, 2 / 61));
});

test('contextRerank adds the best neighbour share and brings neighbours in', () => {
  const order = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'];
  const pos = (id: string): number | undefined => {
    const i = order.indexOf(id);
    return i < 0 ? undefined : i;
  };
  const hits = [
    { docId: 'p2', score: 10 },
    { docId: 'p5', score: 4 },
    { docId: 'x', score: 3 },
  ];
  const out = contextRerank(
    hits,
    pos,
    { weight: 0.5, window: 1 },
    (p) => order[p],
    (id) => (id === 'p3' ? 1 : 0),
  );
  const by = new Map(out.map((h) => [h.docId, h]));
  assert.equal(by.get('p2')!.score, 10.5); // neighbours p1 (0) and p3 (1): 10 + 0.5*1
  assert.equal(by.get('p2')!.context, 0.5);
  assert.equal(by.get('p3')!.score, 1 + 0.5 * 10);
  assert.equal(by.get('p1')!.score, 0 + 0.5 * 10);
  assert.equal(by.get('p4')!.score, 0 + 0.5 * 4);
  assert.equal(by.get('x')!.score, 3); // no position: unchanged
  assert.equal(out[0]!.docId, 'p2');
  const decayed = contextRerank([{ docId: 'p0', score: 8 }], pos, { weight: 1, window: 2, decay: 0.5 }, (p) => order[p]);
  assert.equal(decayed.find((h) => h.docId === 'p2')!.score, 4);
  assert.deepEqual(
    contextRerank(hits, pos, { weight: 0 }).map((h) => h.score),
    [10, 4, 3],
  );
});
