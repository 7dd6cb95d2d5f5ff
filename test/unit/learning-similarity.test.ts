import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FamilyIndex } from '../../src/domain/learning/family-index';
import { kindSignal, mergeScore, relevance, THRESHOLDS } from '../../src/domain/learning/score';
import { filesOverlap, requestTerms, taskTerms, TermStats } from '../../src/domain/learning/similarity';
import type { FamilySignature } from '../../src/domain/learning/types';

const sig = (text: string, kind: string | null = null, files: string[] = []): FamilySignature => ({
  task_kind: kind,
  term_counts: Object.fromEntries(taskTerms(text).map((t) => [t, 1])),
  samples: 1,
  files,
});

describe('task terms and similarity', () => {
  it('stems words, folds no synonyms, and drops file-extension fragments and volatile ids', () => {
    assert.deepEqual(taskTerms('fix flaky retry in worker.ts'), taskTerms('fixing flaky retries in the worker'));
    assert.notDeepEqual(taskTerms('fix flaky retry'), taskTerms('repair intermittent retry'), 'paraphrases meet through vectors, not word lists');
    assert.ok(!taskTerms('fix worker.ts').includes('ts'));
    assert.ok(!taskTerms('fix bug r1a2b3c4d in build 20240518').some((t) => /\d/.test(t)));
  });

  it('rewordings that share the task words meet and unrelated tasks do not', () => {
    const index = new FamilyIndex<string>();
    index.put('retry', sig('fix flaky retry in worker.ts'), 'retry');
    index.put('dark', sig('add dark mode toggle to settings page'), 'dark');
    index.put('csv', sig('speed up the csv export of invoices'), 'csv');
    const q = (text: string) => ({ terms: requestTerms(text), task_kind: null, files: [] });
    const hits = index.search(q('the flaky retry in the job worker fails again'), { minScore: THRESHOLDS.relevant });
    assert.equal(hits[0]?.id, 'retry');
    assert.ok(hits[0]!.score >= THRESHOLDS.action, `rewording relevance ${hits[0]!.score}`);
    assert.equal(
      hits.some((h) => h.id === 'dark'),
      false,
    );
    assert.deepEqual(index.search(q('translate onboarding emails to German'), { minScore: THRESHOLDS.relevant }), []);
  });

  it('IDF makes words every family shares count little', () => {
    const stats = new TermStats();
    for (const t of ['fix login timeout', 'fix csv export', 'fix upload crash', 'fix cache leak']) stats.add(taskTerms(t));
    assert.ok(stats.weight('export') > stats.weight('fix') * 2);
  });

  it('task_kind strengthens what the words found, is no evidence alone, and is a veto in merging', () => {
    const base = { lexical: 0.3, dense: null, files: false };
    assert.ok(relevance({ ...base, kind: 'match' }) >= THRESHOLDS.action && relevance({ ...base, kind: 'none' }) < THRESHOLDS.action);
    // Agents send a few shared kinds (issue 28): a kind match alone, or with a word in common, does not act.
    assert.equal(relevance({ lexical: 0, dense: null, files: false, kind: 'match' }), 0);
    assert.ok(relevance({ lexical: 0.15, dense: null, files: false, kind: 'match' }) < THRESHOLDS.action);
    assert.ok(relevance({ ...base, kind: 'mismatch' }) < relevance({ ...base, kind: 'none' }));
    assert.equal(mergeScore({ lexical: 0.9, dense: null, files: true, kind: 'mismatch' }), 0);
    // task_kind and a shared file without shared wording never merge two executions into one family.
    assert.equal(mergeScore({ lexical: 0, dense: null, files: false, kind: 'match' }), 0);
    assert.equal(mergeScore({ lexical: 0.1, dense: null, files: true, kind: 'match' }), 0);
    assert.ok(mergeScore({ lexical: 0.3, dense: null, files: true, kind: 'match' }) >= THRESHOLDS.merge);
    // Only different files count against it.
    assert.ok(mergeScore({ lexical: 0.5, dense: null, files: false, files_disjoint: true, kind: 'match' }) < THRESHOLDS.merge);
    assert.equal(kindSignal('bugfix', null), 'none');
  });

  it('shared files count, by path or bare base name', () => {
    assert.equal(filesOverlap(['src/jobs/worker.ts'], ['src/jobs/worker.ts']), true);
    assert.equal(filesOverlap(['src/jobs/worker.ts'], ['worker.ts']), true);
    assert.equal(filesOverlap(['src/jobs/worker.ts'], ['src/api/worker.ts']), false);
  });

  it('a dense signal can carry a paraphrase with no shared words', () => {
    const lexicalOnly = relevance({ lexical: 0, dense: null, kind: 'none', files: false });
    const withDense = relevance({ lexical: 0, dense: 0.8, kind: 'none', files: false });
    assert.equal(lexicalOnly, 0);
    assert.ok(withDense >= THRESHOLDS.action);
    assert.ok(relevance({ lexical: 0, dense: 0.3, kind: 'none', files: false }) < THRESHOLDS.relevant, 'unrelated sentences stay below');
  });
});
