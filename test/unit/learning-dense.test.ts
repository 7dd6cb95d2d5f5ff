import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FamilyIndex, maxCosine, runnerUps, unitVector } from '../../src/domain/learning/family-index';
import { denseSimilarity, relevance, textScore, THRESHOLDS } from '../../src/domain/learning/score';
import { taskTerms } from '../../src/domain/learning/similarity';
import type { FamilySignature } from '../../src/domain/learning/types';

/**
 * The dense scoring rule (score.ts, docs/learning.md "Dense vectors"): a family gets dense credit
 * only with a high enough cosine AND a lead over the runner-up with a different first move; the
 * cosine is the best over the family's phrasings; the dense part is fused with the lexical one.
 */

const sig = (text: string, file: string): FamilySignature => ({
  task_kind: null,
  term_counts: Object.fromEntries(taskTerms(text).map((t) => [t, 1])),
  samples: 1,
  files: [file],
});
/** A unit vector at cosine `c` to the unit x axis (in the x/y plane, or x/z when `z`). */
const at = (c: number, z = false) => unitVector(z ? [c, 0, Math.sqrt(1 - c * c)] : [c, Math.sqrt(1 - c * c), 0]);

describe('learning: dense similarity rule', () => {
  it('needs both an absolute cosine and a lead over the runner-up', () => {
    assert.equal(denseSimilarity(0.75, 0.5), 1, 'high and well ahead');
    assert.equal(denseSimilarity(0.75, 0.74), 0, 'high but level with a different task: no credit (a tie is a guess)');
    assert.equal(denseSimilarity(0.38, 0.1), 0, 'far ahead of everything but too far from the query');
    assert.ok(denseSimilarity(0.6, 0.56) > 0 && denseSimilarity(0.6, 0.56) < 1, 'a modest lead gives partial credit');
    assert.ok(denseSimilarity(0.6, 0.5) > denseSimilarity(0.6, 0.56), 'more lead, more credit');
  });

  it('a clear dense leader reaches the action threshold without shared words; a near tie stays below relevant', () => {
    const leader = relevance({ lexical: 0, dense: 0.62, dense_baseline: 0.5, kind: 'none', files: false });
    const tie = relevance({ lexical: 0, dense: 0.62, dense_baseline: 0.61, kind: 'none', files: false });
    assert.ok(leader >= THRESHOLDS.action, `leader ${leader}`);
    assert.ok(tie < THRESHOLDS.relevant, `tie ${tie}`);
  });

  it('fuses with the lexical score instead of being gated by it', () => {
    assert.equal(textScore({ lexical: 0.5, dense: 0.3, dense_baseline: 0.29 }), 0.5, 'no dense credit never lowers the words');
    assert.ok(textScore({ lexical: 0.2, dense: 0.7, dense_baseline: 0.5 }) > 0.2);
    assert.equal(textScore({ lexical: 0.2, dense: null }), 0.2);
  });

  it('takes the best phrasing, and the runner-up among other first moves only', () => {
    assert.ok(Math.abs(maxCosine(at(1), [at(0.2), at(0.9), at(0.5)]) - 0.9) < 1e-6);
    const rivals = runnerUps(
      new Map([
        ['a', { cos: 0.7, key: 'read|x.ts' }],
        ['a2', { cos: 0.69, key: 'read|x.ts' }],
        ['b', { cos: 0.6, key: 'edit|y.ts' }],
      ]),
    );
    assert.equal(rivals.get('a'), 0.6, 'a workflow with the same first move is not a rival');
    assert.equal(rivals.get('a2'), 0.6);
    assert.equal(rivals.get('b'), 0.7);
  });

  it('in the index: a paraphrase close to one phrasing of a family finds it; a query between two families finds neither', () => {
    const index = new FamilyIndex<string>(undefined, (v) => v);
    index.put('w1', sig('fix flaky retry in worker', 'src/worker.ts'), 'read|src/worker.ts', [at(0.3), at(0.95)]);
    index.put('w2', sig('speed up the csv export', 'src/export.ts'), 'grep|src/export.ts', [at(0.5, true)]);
    const q = { terms: taskTerms('the queue processor does not re-attempt jobs'), task_kind: null, files: [] as string[] };
    const clear = index.search({ ...q, vector: at(1) }, { minScore: THRESHOLDS.action });
    assert.deepEqual(
      clear.map((h) => h.id),
      ['w1'],
    );
    assert.ok(Math.abs(clear[0]!.signals.dense! - 0.95) < 1e-6 && Math.abs(clear[0]!.signals.dense_baseline! - 0.5) < 1e-6);

    const index2 = new FamilyIndex<string>(undefined, (v) => v);
    index2.put('w1', sig('fix flaky retry in worker', 'src/worker.ts'), 'read|src/worker.ts', [at(0.62)]);
    index2.put('w2', sig('speed up the csv export', 'src/export.ts'), 'grep|src/export.ts', [at(0.61, true)]);
    assert.deepEqual(index2.search({ ...q, vector: at(1) }, { minScore: THRESHOLDS.relevant }), []);
  });
});
