import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { indexFields, RecallIndex, type IndexableNode } from '../../src/domain/memory/recall-index';
import { weightOf } from '../../src/domain/memory/recall';

let n = 0;
function node(over: Partial<IndexableNode> = {}): IndexableNode {
  n += 1;
  return {
    id: `id-${n}`,
    tenant_id: 't',
    scope: 's',
    type: 'event',
    kind: null,
    tier: 'hot',
    title: null,
    text: 'nothing special',
    summary: 'nothing special',
    tags: [],
    importance: 0.5,
    seq: n,
    ...over,
  };
}

const ids = (idx: RecallIndex, text: string, filter = {}) => idx.search('t', 's', { text, vector: null, limit: 10, filter }).map((h) => h.docId);

describe('recall index', () => {
  it('indexes title, text and a summary the text does not contain; archived nodes by summary only', () => {
    assert.deepEqual(indexFields({ title: 'T', text: 'long text here', summary: 'long text…', tags: [], tier: 'hot' }), {
      title: 'T',
      text: 'long text here',
      summary: null,
      tags: null,
    });
    assert.deepEqual(indexFields({ title: 'T', text: 'body', summary: 'other words', tags: ['x'], tier: 'warm' }), { title: 'T', text: 'body', summary: 'other words', tags: 'x' });
    assert.deepEqual(indexFields({ title: 'T', text: '', summary: 'kept summary', tags: [], tier: 'archive' }), { title: 'T', text: 'kept summary', summary: null, tags: null });
  });

  it('partitions by tenant and scope', () => {
    const idx = new RecallIndex();
    idx.applyLocal(node({ id: 'a', text: 'zebra crossing' }));
    idx.applyLocal(node({ id: 'b', tenant_id: 'other', text: 'zebra crossing' }));
    assert.deepEqual(ids(idx, 'zebra'), ['a']);
  });

  it('leaves nodes the lifecycle operator retired out unless asked, and follows the decision as it changes', () => {
    const idx = new RecallIndex();
    const retired = { semantic_forgetting_v1: { action: 'retain', lifecycle_state: 'retired' } };
    idx.applyLocal(node({ id: 'ok', text: 'mango chutney' }));
    idx.applyLocal(node({ id: 'wrong', text: 'mango chutney recipe', slots: retired }));
    assert.deepEqual(ids(idx, 'mango'), ['ok']);
    const asked = idx.search('t', 's', { text: 'mango', vector: null, limit: 10, filter: { includeRetired: true } });
    assert.deepEqual(asked.map((h) => [h.docId, h.retired]).sort(), [
      ['ok', false],
      ['wrong', true],
    ]);
    // Re-decided (positive feedback): back in recall.
    idx.applyLocal(node({ id: 'wrong', text: 'mango chutney recipe', slots: { semantic_forgetting_v1: { action: 'review', lifecycle_state: 'contested' } } }));
    assert.deepEqual(ids(idx, 'mango').sort(), ['ok', 'wrong']);
  });

  it('leaves archived nodes out unless asked, and filters by type, kind, tier and tags', () => {
    const idx = new RecallIndex();
    idx.applyLocal(node({ id: 'hot', text: 'kiwi fruit' }));
    idx.applyLocal(node({ id: 'arch', tier: 'archive', text: '', summary: 'kiwi summary' }));
    idx.applyLocal(node({ id: 'sess', kind: 'session', type: 'event', text: 'kiwi session', tags: ['a', 'b'] }));
    assert.deepEqual(ids(idx, 'kiwi').sort(), ['hot', 'sess']);
    assert.deepEqual(ids(idx, 'kiwi', { includeArchived: true }).sort(), ['arch', 'hot', 'sess']);
    assert.deepEqual(ids(idx, 'kiwi', { kinds: ['session'] }), ['sess']);
    assert.deepEqual(ids(idx, 'kiwi', { tags: ['a', 'b'] }), ['sess']);
    assert.deepEqual(ids(idx, 'kiwi', { tiers: ['archive'] }), ['arch']);
  });

  it('expands the query from its best hits by default; expand: false searches the words asked for only', () => {
    const idx = new RecallIndex();
    // Shares no word with the query, only with the best hits: reachable through expansion alone
    // (written far from them, so sequence context does not bring it in either).
    idx.applyLocal(node({ id: 'related', text: 'backoff jitter tuned for the queue' }));
    for (let i = 0; i < 20; i += 1) idx.applyLocal(node({ id: `f${i}`, text: `unrelated filler note number ${i} about lunch` }));
    for (let i = 0; i < 3; i += 1) idx.applyLocal(node({ id: `r${i}`, text: `retry worker backoff jitter attempt ${i}` }));
    for (let i = 20; i < 40; i += 1) idx.applyLocal(node({ id: `f${i}`, text: `unrelated filler note number ${i} about lunch` }));
    const search = (expand?: boolean) => idx.search('t', 's', { text: 'retry worker', vector: null, limit: 10, filter: {}, expand }).map((h) => h.docId);
    assert.ok(search().includes('related'), 'expansion finds the related node');
    assert.ok(search(true).includes('related'));
    const literal = search(false);
    assert.deepEqual(literal.slice(0, 3).sort(), ['r0', 'r1', 'r2'], 'the literal matches lead');
    assert.ok(!literal.includes('related'), 'no expansion: the related node is not found');
  });

  it('plain: true is BM25 alone, without expansion or sequence context', () => {
    const idx = new RecallIndex();
    idx.applyLocal(node({ id: 'related', text: 'backoff jitter tuned for the queue' }));
    idx.applyLocal(node({ id: 'far', text: 'a retry note with other words' }));
    for (let i = 0; i < 20; i += 1) idx.applyLocal(node({ id: `f${i}`, text: `unrelated filler note number ${i} about lunch` }));
    for (let i = 0; i < 3; i += 1) idx.applyLocal(node({ id: `r${i}`, text: `retry worker backoff jitter attempt ${i}` }));
    // Written right after the strong hits, with the same words as 'far': sequence context lifts it.
    idx.applyLocal(node({ id: 'near', text: 'a retry note with other words' }));
    for (let i = 20; i < 40; i += 1) idx.applyLocal(node({ id: `f${i}`, text: `unrelated filler note number ${i} about lunch` }));
    const scores = (plain: boolean) => new Map(idx.search('t', 's', { text: 'retry worker', vector: null, limit: 10, filter: {}, plain }).map((h) => [h.docId, h.score]));
    const full = scores(false);
    assert.ok(full.has('related'), 'recall expands the query');
    assert.ok(full.get('near')! > full.get('far')!, 'recall lifts the neighbour of strong hits');
    const plain = scores(true);
    assert.ok(!plain.has('related'), 'plain: no expansion');
    assert.equal(plain.get('near'), plain.get('far'), 'plain: the same words score the same wherever written');
    assert.deepEqual([...plain.keys()].slice(0, 3).sort(), ['r0', 'r1', 'r2']);
  });

  it('a catch-up read issued before a local write does not roll the node back', () => {
    const idx = new RecallIndex();
    const issued = idx.mark(); // catch-up query issued …
    idx.applyLocal(node({ id: 'x', seq: 20, text: 'new words' })); // … local write lands …
    const applied = idx.applyRemote(node({ id: 'x', seq: 15, text: 'old words' }), issued); // … stale result arrives
    assert.equal(applied, 'raced', 'left for catch-up to re-read');
    assert.deepEqual(ids(idx, 'new'), ['x']);
    assert.deepEqual(ids(idx, 'old'), []);
  });

  it('a later store read wins even with a lower seq (an update that committed late)', () => {
    const idx = new RecallIndex();
    idx.applyRemote(node({ id: 'x', seq: 10, text: 'first' }), idx.mark());
    assert.equal(idx.applyRemote(node({ id: 'x', seq: 9, text: 'latest' }), idx.mark()), 'applied');
    assert.deepEqual(ids(idx, 'latest'), ['x']);
    assert.equal(idx.applyRemote(node({ id: 'x', seq: 9, text: 'latest' }), idx.mark()), 'current', 'same seq: nothing to do');
  });

  it('re-analyses only when the indexed text changes, and asks for a new embedding then', () => {
    const idx = new RecallIndex();
    const asked: string[] = [];
    idx.onTextChanged = (id) => asked.push(id);
    idx.applyLocal(node({ id: 'x', seq: 1, text: 'alpha' }));
    idx.applyLocal(node({ id: 'x', seq: 2, text: 'alpha', importance: 0.9 }));
    idx.applyLocal(node({ id: 'x', seq: 3, text: 'beta' }));
    assert.deepEqual(asked, ['x', 'x']);
  });

  it('weights: uniform importance and tier change nothing; hotter and more important rank higher', () => {
    assert.equal(weightOf(0.5, 'hot'), 1);
    assert.ok(weightOf(0.9, 'hot') > weightOf(0.5, 'hot'));
    assert.ok(weightOf(0.5, 'hot') > weightOf(0.5, 'cold'));
  });
});
