import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractExecution } from '../../src/domain/memory/extract';
import { extractTools } from '../../src/domain/memory/extract-rules';
import { taskPhrase, textSteps } from '../../src/domain/learning/text-evidence';

/** Free-text evidence (issue 28): tools, files, kind and task phrase found in an `input_text`. */
const FILE_TOOLS = new Set(['read', 'edit', 'apply_patch']);

describe('free-text evidence', () => {
  it('finds agent tool names, and a verb "with" a tool is that tool', () => {
    const x = extractExecution({ text: 'Fix the ledger sync double counting refunds: edited src/payments/ledger_sync.ts with apply_patch; run_tests gave 9 passed.' });
    assert.deepEqual(x.tools, ['apply_patch', 'run_tests']);
    assert.deepEqual(x.file_paths, ['src/payments/ledger_sync.ts']);
    assert.equal(x.outcome, 'success');
    // The tool names are not task words.
    assert.ok(!x.task_signature.terms.some((t) => /patch|runtest/.test(t)), x.task_signature.terms.join(' '));
  });

  it('plain-word names count only in a tool context; distinctive and scope-known names anywhere', () => {
    assert.deepEqual(extractTools('the read path of the cache is slow', []), []);
    assert.deepEqual(extractTools('looked at it using the `view` tool, then ran the search tool', []), ['view']);
    assert.deepEqual(extractTools('checked it with view; then bash and grep', []), ['view', 'bash', 'grep']);
    assert.deepEqual(extractTools('called ledger_probe on the ledger, then lint_fix', [], ['ledger_probe', 'lint_fix']), ['ledger_probe', 'lint_fix']);
    assert.deepEqual(extractTools('called ledger_probe on the ledger', []), []);
  });

  it('reads a stated task kind, never a guessed one', () => {
    assert.equal(extractExecution({ text: '[bugfix] ledger sync counts refunds twice' }).task_kind, 'bugfix');
    assert.equal(extractExecution({ text: 'Task kind: refactor. Split the ledger module.' }).task_kind, 'refactor');
    assert.equal(extractExecution({ text: 'fixed the ledger sync bug' }).task_kind, null);
  });

  it('steps: tools in order, each with the file of its clause', () => {
    const steps = textSteps('read src/a/one.ts, then edited src/b/two.ts with apply_patch; run_tests: 3 passed', ['run_tests'], FILE_TOOLS);
    assert.deepEqual(
      steps?.map((s) => [s.tool, s.file_path]),
      [
        ['read', 'src/a/one.ts'],
        ['apply_patch', 'src/b/two.ts'],
        ['run_tests', null],
      ],
    );
    assert.equal(textSteps('the refund totals are wrong', [], FILE_TOOLS), null);
  });

  it('the task phrase leaves out the report of tools and results', () => {
    assert.equal(
      taskPhrase('Fix the ledger sync double counting refunds: edited src/payments/ledger_sync.ts with apply_patch; run_tests gave 9 passed.', []),
      'Fix the ledger sync double counting refunds',
    );
    assert.equal(
      taskPhrase('[bugfix] Refunds double counted by the ledger sync job. Patched it using apply_patch.', []),
      'Refunds double counted by the ledger sync job.'.replace(/\.$/, ''),
    );
    assert.equal(taskPhrase('Goal: make exports faster. read src/x.ts', []), 'make exports faster');
    assert.equal(taskPhrase('edited src/payments/ledger_sync.ts with apply_patch; run_tests gave 9 passed', []), null);
  });
});
