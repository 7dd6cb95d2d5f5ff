import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyPrompt, pathTerms, stem, termsOf, type RunningTask } from '../../src/agents/hook/segment';

/**
 * The segmentation method on its own (src/agents/hook/segment.ts): each rule, in order, with
 * prompts of several kinds and subjects. The recorded sessions (test/agents/hook-sessions.test.ts)
 * check the whole path; these check that each rule does what docs/agents.md says.
 */

function task(goal: string, over: Partial<RunningTask> & { files?: string[]; extra?: string[] } = {}): RunningTask {
  const files = over.files ?? [];
  return {
    goal,
    vocabulary: [...termsOf(goal), ...files.flatMap(pathTerms), ...(over.extra ?? [])],
    files,
    lastTurn: over.lastTurn ?? 'success',
    turnOpen: over.turnOpen ?? false,
    idleMs: over.idleMs ?? 60_000,
  };
}

const verdict = (prompt: string, t: RunningTask | null) => classifyPrompt(prompt, t);

describe('prompt segmentation', () => {
  it('subject terms leave out function words, generic work words and file extensions, and fold simple inflections', () => {
    assert.deepEqual(termsOf('Fix the flaky checkout test in cartTotals.test.ts, please'), ['checkout', 'cart', 'total']);
    assert.deepEqual(termsOf('now run the whole suite'), []);
    assert.deepEqual(termsOf('yes, go ahead'), []);
    assert.deepEqual(pathTerms('src/billing/invoice_rounding.py'), ['bill', 'invoice', 'round']);
    assert.equal(stem('pinned'), 'pin');
    assert.equal(stem('timers'), 'timer');
    assert.equal(stem('class'), 'class');
  });

  it('no running task: new', () => {
    assert.deepEqual([verdict('fix the login redirect', null).continues, verdict('fix the login redirect', null).rule], [false, 'no_task']);
  });

  it('an explicit new-work phrase starts new work, even over a running turn', () => {
    const t = task('fix the flaky checkout test', { lastTurn: 'failure', turnOpen: true });
    for (const p of ['different task: bump fastify', 'never mind, look at the deploy script', 'something else — the docs build is slow']) {
      assert.equal(verdict(p, t).rule, 'explicit_new', p);
      assert.equal(verdict(p, t).continues, false, p);
    }
  });

  it('a request to go on continues, whatever else it names', () => {
    const t = task('fix the flaky checkout test', { lastTurn: 'success' });
    for (const p of ['try again with the clock pinned to UTC', 'retry with verbose logging', 'continue', 'the test still fails on node 22', 'use a fake timer instead']) {
      assert.deepEqual([verdict(p, t).continues, verdict(p, t).rule], [true, 'goes_on'], p);
    }
  });

  it('the same subject continues: a file the task touched, or half the subject words known', () => {
    const t = task('fix the flaky checkout test', { files: ['src/checkout/totals.ts', 'test/checkout/totals.test.ts'], extra: termsOf('npm test -- checkout') });
    assert.equal(verdict('look at totals.ts again', t).continues, true);
    assert.equal(verdict('also round the totals in the checkout summary', t).rule, 'same_subject');
    assert.equal(verdict('add a discount field to the invoice email template', t).continues, false);
  });

  it('replies continue unless they carry a new subject of their own', () => {
    const done = task('fix the flaky checkout test', { lastTurn: 'success' });
    for (const p of ['yes', 'ok', 'go ahead', 'sounds good, thanks!', 'no', 'yes, and keep the old helper']) {
      assert.deepEqual([verdict(p, done).continues, verdict(p, done).rule], [true, 'reply'], p);
    }
    const next = verdict('great, now add a CSV export to the reports page', done);
    assert.deepEqual([next.continues, next.rule], [false, 'new_subject']);
  });

  it('a task whose goal has no subject yet is refined by the first prompt that has one', () => {
    const t = task('hi, let’s get going', { lastTurn: 'no_tools' });
    assert.deepEqual([verdict('fix the login redirect loop', t).continues, verdict('fix the login redirect loop', t).rule], [true, 'refines_goal']);
  });

  it('after a success a request with a subject of its own is new work; after a failure it takes more to leave the task', () => {
    const p = 'pin the clock';
    assert.equal(verdict(p, task('fix the flaky checkout test', { lastTurn: 'success' })).continues, false);
    assert.equal(verdict(p, task('fix the flaky checkout test', { lastTurn: 'failure' })).continues, true);
    assert.equal(verdict(p, task('fix the flaky checkout test', { lastTurn: 'success', turnOpen: true })).continues, true, 'typed over a running turn');
    const long = 'add a CSV export to the monthly reports page';
    assert.equal(verdict(long, task('fix the flaky checkout test', { lastTurn: 'failure' })).continues, false);
    // Answering, or a pronoun pointing back, raises the bar by one.
    assert.equal(verdict('thanks — what about the docs?', task('fix the flaky checkout test', { lastTurn: 'success' })).continues, true);
    assert.equal(verdict('deploy it', task('fix the flaky checkout test', { lastTurn: 'success' })).continues, true);
    assert.equal(verdict('deploy staging', task('fix the flaky checkout test', { lastTurn: 'success' })).continues, false);
  });

  it('short follow-ups without a subject continue', () => {
    const t = task('fix the flaky checkout test', { lastTurn: 'success' });
    for (const p of ['now run the whole suite', 'commit this', 'run the tests', 'push it']) {
      assert.deepEqual([verdict(p, t).continues, verdict(p, t).rule], [true, 'follow_up'], p);
    }
  });

  it('a session idle for hours starts new work unless the prompt goes on or stays on the subject', () => {
    const idle = task('fix the flaky checkout test', { lastTurn: 'success', idleMs: 4 * 3_600_000, files: ['src/checkout/totals.ts'] });
    assert.equal(verdict('run the tests', idle).rule, 'idle');
    assert.equal(verdict('run the checkout tests again', idle).continues, true);
    assert.equal(verdict('the checkout totals are off by a cent', idle).continues, true);
  });
});
