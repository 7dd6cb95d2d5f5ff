import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { IdTable, TermTable } from '../../src/retrieval/arena';

describe('IdTable', () => {
  it('numbers ids densely in order of first sight, UUIDs and other ids alike', () => {
    const t = new IdTable();
    const a = '0190f3a2-7b1c-7d3e-8f40-0123456789ab';
    assert.equal(t.get(a), undefined);
    assert.equal(t.add(a), 0);
    assert.equal(t.add('client:not-a-uuid'), 1);
    assert.equal(t.add(a), 0, 'the same id keeps its number');
    assert.equal(t.get(a), 0);
    assert.equal(t.get('client:not-a-uuid'), 1);
    assert.equal(t.size, 2);
  });

  it('keeps ids that differ only by case, separators or length apart', () => {
    const t = new IdTable();
    const ids = [
      '0190f3a2-7b1c-7d3e-8f40-0123456789ab',
      '0190F3A2-7B1C-7D3E-8F40-0123456789AB', // upper case: not canonical, stored as a string
      '0190f3a2-7b1c-7d3e-8f40-0123456789ac',
      '0190f3a27b1c-7d3e-8f40-0123456789abx',
      '0190f3a2-7b1c-7d3e-8f40-0123456789a',
      '0190f3a2-7b1c-7d3e-8f40-0123456789abc',
      'g190f3a2-7b1c-7d3e-8f40-0123456789ab',
      '',
    ];
    ids.forEach((id, i) => assert.equal(t.add(id), i, id));
    ids.forEach((id, i) => assert.equal(t.get(id), i, id));
    assert.equal(t.size, ids.length);
  });

  it('stays exact through growth (100k random UUIDs, half looked up before insertion)', () => {
    const t = new IdTable();
    const ids = Array.from({ length: 100_000 }, () => randomUUID());
    const seen = new Map<string, number>();
    for (const id of ids) {
      assert.equal(t.get(id), seen.get(id));
      const n = t.add(id);
      if (!seen.has(id)) seen.set(id, n);
      assert.equal(n, seen.get(id));
    }
    assert.equal(t.size, seen.size);
    for (const [id, n] of seen) assert.equal(t.get(id), n);
    for (let i = 0; i < 1000; i += 1) assert.equal(t.get(randomUUID()), undefined);
    // Ids sharing every word but one (time-ordered UUIDv7 heads) are distinct.
    const head = '0190f3a2-7b1c-7d3e-8f40-0000000';
    const t2 = new IdTable();
    for (let i = 0; i < 5000; i += 1) assert.equal(t2.add(head + i.toString(16).padStart(5, '0')), i);
    for (let i = 0; i < 5000; i += 1) assert.equal(t2.get(head + i.toString(16).padStart(5, '0')), i);
  });
});

describe('TermTable', () => {
  it('numbers strings in insertion order and finds them again, through growth', () => {
    const t = new TermTable();
    const words = ['', 'a', 'ab', 'ba', 'retri', 'retriev', 'éclair', '数据库', 'x'.repeat(10_000)];
    for (let i = 0; i < 50_000; i += 1) words.push(`w${i.toString(36)}`);
    words.forEach((w, i) => {
      assert.equal(t.get(w), undefined, w);
      assert.equal(t.add(w), i);
    });
    assert.equal(t.size, words.length);
    words.forEach((w, i) => {
      assert.equal(t.get(w), i);
      assert.equal(t.nameOf(i), w);
    });
    assert.equal(t.get('w'), undefined);
    assert.equal(t.get('abc'), undefined);
  });

  it('keep() renumbers the kept strings densely', () => {
    const t = new TermTable();
    const words = Array.from({ length: 1000 }, (_, i) => `term${i}`);
    for (const w of words) t.add(w);
    const newOf = new Int32Array(words.length).fill(-1);
    let n = 0;
    for (let i = 0; i < words.length; i += 1) if (i % 3 !== 0) newOf[i] = n++;
    const k = t.keep(newOf, n);
    assert.equal(k.size, n);
    words.forEach((w, i) => assert.equal(k.get(w), i % 3 === 0 ? undefined : newOf[i]));
    assert.equal(k.add('fresh'), n);
    assert.equal(k.get('fresh'), n);
    assert.equal(k.nameOf(0), 'term1');
  });
});
