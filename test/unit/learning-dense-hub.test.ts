import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FamilyIndex, unitVector } from '../../src/domain/learning/family-index';
import { BGE_DENSE, denseSimilarity, E5_DENSE, MINILM_DENSE, relevance, THRESHOLDS, USE_DENSE } from '../../src/domain/learning/score';
import { taskTerms } from '../../src/domain/learning/similarity';
import { denseProfileFor } from '../../src/domain/learning/vectors';
import type { FamilySignature } from '../../src/domain/learning/types';

/**
 * Hub-corrected dense scoring (score.ts MINILM_DENSE, family-index.ts): a family's score is the
 * mean of its best phrasing cosine and its centroid cosine, minus its mean cosine to every other
 * embedded family, so a family that resembles everything does not win every query.
 */

const sig = (text: string, file: string): FamilySignature => ({
  task_kind: null,
  term_counts: Object.fromEntries(taskTerms(text).map((t) => [t, 1])),
  samples: 1,
  files: [file],
});
const v = (...xs: number[]) => unitVector(xs);

describe('learning: hub-corrected dense scoring', () => {
  it('the onnx encoder gets the hub profile; the others keep the USE rule', () => {
    assert.equal(denseProfileFor({ provider: 'onnx', id: 'onnx:all-minilm-l6-v2-q:mean' }), MINILM_DENSE);
    assert.equal(denseProfileFor({ provider: 'onnx', id: 'onnx:model:mean' }), MINILM_DENSE, 'an onnx model of unknown family');
    assert.equal(denseProfileFor({ provider: 'onnx', id: 'onnx:bge-small-en-v1.5-q:cls' }), BGE_DENSE);
    assert.equal(denseProfileFor({ provider: 'onnx', id: 'onnx:e5-small-v2:mean' }), E5_DENSE);
    assert.ok(BGE_DENSE.cosFloor < MINILM_DENSE.cosFloor && E5_DENSE.leadSpan < BGE_DENSE.leadSpan, 'calibrated per model');
    assert.equal(denseProfileFor({ provider: 'local', id: 'local:energetic-ai/use-en' }), USE_DENSE);
    assert.equal(denseProfileFor({ provider: 'openai', id: 'openai:x' }), USE_DENSE);
    assert.equal(denseSimilarity(0.75, 0.5), denseSimilarity(0.75, 0.5, USE_DENSE), 'USE stays the default');
  });

  it('a family close to every other family loses to a specific one the query is nearly as close to', () => {
    const build = (profile: typeof USE_DENSE) => {
      const index = new FamilyIndex<string>(undefined, (x) => x);
      index.denseProfile = profile;
      // "hub": near the centre of all the others; "specific": off on its own axis.
      index.put('hub', sig('fix things in service', 'src/a.ts'), 'read|src/a.ts', [v(1, 1, 1, 1, 0)]);
      index.put('o1', sig('one', 'src/b.ts'), 'read|src/b.ts', [v(1, 0.2, 0, 0, 0)]);
      index.put('o2', sig('two', 'src/c.ts'), 'read|src/c.ts', [v(0, 1, 0.2, 0, 0)]);
      index.put('o3', sig('three', 'src/d.ts'), 'read|src/d.ts', [v(0, 0, 1, 0.2, 0)]);
      index.put('specific', sig('four', 'src/e.ts'), 'edit|src/e.ts', [v(0, 0, 0, 0.3, 1)]);
      return index;
    };
    const q = { terms: [] as string[], task_kind: null, files: [] as string[], vector: v(0.45, 0.45, 0.45, 0.6, 0.75) };
    const top = (index: FamilyIndex<string>) => index.search(q, { minScore: 0 })[0]?.id;
    assert.equal(top(build(USE_DENSE)), 'hub', 'raw cosine: the hub wins');
    assert.equal(top(build(MINILM_DENSE)), 'specific', 'hub-corrected: the specific family wins');
  });

  it('keeps the hub sums right when families are replaced, re-embedded and removed', () => {
    const index = new FamilyIndex<string>(undefined, (x) => x);
    index.denseProfile = MINILM_DENSE;
    const q = { terms: [] as string[], task_kind: null, files: [] as string[], vector: v(1, 0, 0) };
    index.put('a', sig('alpha task', 'src/a.ts'), 'read|src/a.ts', [v(1, 0, 0)]);
    index.put('b', sig('beta task', 'src/b.ts'), 'edit|src/b.ts', [v(0, 1, 0)]);
    index.put('c', sig('gamma task', 'src/c.ts'), 'bash|src/c.ts', [v(0, 0, 1)]);
    const score = () => index.search(q, { minScore: 0 }).find((h) => h.id === 'a')!.signals.dense!;
    const before = score();
    assert.ok(Math.abs(before - 1) < 1e-6, `orthogonal families: no hub penalty (${before})`);
    index.setVectors('b', [v(1, 1, 0)]);
    const after = score();
    assert.ok(after < before - 0.3, `a now resembles b: penalised (${after})`);
    index.put('b', sig('beta task', 'src/b.ts'), 'edit|src/b.ts'); // replaced without vectors: keeps them
    assert.ok(Math.abs(score() - after) < 1e-6);
    index.remove('b');
    assert.ok(Math.abs(score() - before) < 1e-6, 'removed: the penalty goes with it');
    index.remove('c');
    assert.ok(Math.abs(score() - 1) < 1e-6, 'a single family: no hub value');
  });

  it('calibration: a clear hub-corrected leader acts; a weak or tied one does not', () => {
    const rel = (s: number, runnerUp: number) => 0.7 * denseSimilarity(s, runnerUp, MINILM_DENSE);
    assert.ok(rel(0.4, 0.2) >= THRESHOLDS.action);
    assert.ok(rel(0.2, 0.05) < THRESHOLDS.action, 'too far from the query');
    assert.ok(rel(0.45, 0.43) < THRESHOLDS.relevant, 'a tie with a different first move');
  });

  it('a family of a different task_kind than the caller named gets no dense credit, only its words', () => {
    const dense = { dense: 0.62, dense_baseline: 0.5, files: false } as const;
    assert.ok(relevance({ lexical: 0, ...dense, kind: 'none' }) >= THRESHOLDS.action, 'no kind given: the dense leader acts');
    assert.equal(relevance({ lexical: 0, ...dense, kind: 'mismatch' }), 0, 'another kind: the dense guess does not override it');
    assert.ok(Math.abs(relevance({ lexical: 0.5, ...dense, kind: 'mismatch' }) - 0.3) < 1e-9, 'its words still count, less the kind penalty');
  });
});
