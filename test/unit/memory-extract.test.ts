import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractExecution } from '../../src/domain/memory/extract';
import { isVolatileToken, signatureSimilarity, taskSignature } from '../../src/domain/memory/task-signature';

const LOADGEN_TEXT =
  'Fix retry backoff in payments handler. Run r1a2b3c4-5: fixed retry backoff in src/payments/handler.ts (payments handler). ' +
  'Steps: read tests/payments/handler.test.ts, then edited parseDateHandler() in src/payments/handler.ts, then ran npm test -- tests/payments/handler.test.ts, ' +
  'then grep for user_id across payments/, then bash: git diff --stat src/payments/handler.ts. ' +
  "First test run failed with: TypeError: Cannot read properties of undefined (reading 'user_id'). " +
  'Change: parseDateHandler() now does guard against a missing user_id. Outcome: tests green after 3 attempts.';

describe('execution_native_v1 extraction (deterministic)', () => {
  it('finds file paths, tools in order, commands, the error and the stated outcome in a narrative', () => {
    const x = extractExecution({ title: 'Fix retry backoff in payments handler', text: LOADGEN_TEXT });
    assert.equal(x.version, 1);
    assert.deepEqual(x.file_paths, ['src/payments/handler.ts', 'tests/payments/handler.test.ts']);
    assert.deepEqual(x.tools, ['read', 'edit', 'test', 'grep', 'bash']);
    assert.deepEqual(x.commands, ['npm test -- tests/payments/handler.test.ts', 'git diff --stat src/payments/handler.ts']);
    assert.deepEqual(x.error_signatures, ["TypeError: Cannot read properties of undefined (reading 'user_id')"]);
    assert.deepEqual(x.error_classes, ['TypeError']);
    assert.equal(x.outcome, 'success', 'the Outcome segment decides, not the earlier "failed"');
    assert.equal(x.outcome_source, 'text');
    assert.deepEqual(x.task_signature.terms, ['backoff', 'fix', 'handler', 'payment', 'retri']);
  });

  it('is deterministic: the same input gives the same slot', () => {
    const a = extractExecution({ text: LOADGEN_TEXT });
    const b = extractExecution({ text: LOADGEN_TEXT });
    assert.deepEqual(a, b);
  });

  it('prefers the structured execution object and well-known caller slots', () => {
    const x = extractExecution({
      text: 'did some work',
      slots: { task_kind: 'fix_auth', file_path: 'app/auth/token.py', tool_sequence: ['read', 'edit'], outcome_status: 'failure' },
      execution: {
        goal: 'Fix JWT refresh for expired tokens',
        run_id: 'run-9',
        steps: [{ tool: 'bash', command: 'pytest tests/auth/test_token.py -q', outcome: 'failed' }],
        outcome: 'partial',
        error_signature: "KeyError: 'exp'",
        next_action: 'patch refresh() and rerun pytest',
        acceptance_checks: ['pytest tests/auth -q'],
        target_files: ['app/auth/token.py'],
      },
    });
    assert.equal(x.outcome, 'partial');
    assert.equal(x.outcome_source, 'execution');
    assert.equal(x.task_kind, 'fix_auth');
    assert.equal(x.goal, 'Fix JWT refresh for expired tokens');
    assert.equal(x.run_id, 'run-9');
    assert.deepEqual(x.tools, ['bash', 'read', 'edit']);
    assert.deepEqual(x.commands, ['pytest tests/auth/test_token.py -q']);
    assert.deepEqual(x.target_files, ['app/auth/token.py']);
    assert.ok(x.file_paths.includes('app/auth/token.py'));
    assert.equal(x.error_signatures[0], "KeyError: 'exp'");
    assert.equal(x.next_action, 'patch refresh() and rerun pytest');
    assert.deepEqual(x.acceptance_checks, ['pytest tests/auth -q']);
    assert.equal(x.task_signature.task_kind, 'fix_auth');
  });

  it('reads an execution packet as execution evidence: brief, target files as steps, next action, validations, outcome', () => {
    const packet = {
      task_brief: 'Repair billing retry timeout in service code',
      target_files: ['src/services/billing.ts'],
      next_action: 'Patch src/services/billing.ts and rerun validation',
      pending_validations: ['npm run -s test:lite'],
      unresolved_blockers: [],
      current_stage: 'patch',
    };
    const x = extractExecution({ text: 'continue fixing billing retry timeout first run', slots: { execution_packet_v1: packet } });
    assert.equal(x.goal, 'Repair billing retry timeout in service code');
    assert.deepEqual(x.target_files, ['src/services/billing.ts']);
    assert.deepEqual(x.steps, [{ tool: 'edit', file_path: 'src/services/billing.ts', command: null, outcome: null }], 'the next action "Patch …" names the edit tool');
    assert.equal(x.next_action, 'Patch src/services/billing.ts and rerun validation');
    assert.deepEqual(x.acceptance_checks, ['npm run -s test:lite']);
    assert.deepEqual(x.commands, [], 'pending validations did not run: they are checks, not commands');
    assert.equal(x.outcome, 'success');
    assert.equal(x.outcome_source, 'packet');
    // Blockers: the state handed on is partial.
    assert.equal(extractExecution({ text: 'x', slots: { execution_packet_v1: { ...packet, unresolved_blockers: ['CI is red'] } } }).outcome, 'partial');
    // A stated outcome, explicit steps and tool slots win over the packet.
    assert.equal(extractExecution({ text: 'x', slots: { execution_packet_v1: packet, outcome_status: 'failure' } }).outcome, 'failure');
    assert.deepEqual(
      extractExecution({ text: 'x', slots: { execution_packet_v1: packet }, execution: { steps: [{ tool: 'read', file_path: 'a.ts' }] } }).steps.map((s) => s.tool),
      ['read'],
    );
    assert.deepEqual(extractExecution({ text: 'x', slots: { execution_packet_v1: packet, tool_sequence: ['grep'] } }).steps, []);
    // No verb Lore knows: a file step without a tool; an execution state stands in for a missing packet.
    assert.equal(extractExecution({ text: 'x', slots: { execution_packet_v1: { ...packet, next_action: 'Consider src/a.ts', current_stage: null } } }).steps[0]!.tool, null);
    const state = extractExecution({ text: 'x', slots: { execution_state_v1: { task_brief: 'fix export', modified_files: ['src/routes/export.ts'], current_stage: 'review' } } });
    assert.deepEqual(state.steps, [{ tool: 'read', file_path: 'src/routes/export.ts', command: null, outcome: null }]);
    // A packet that names neither a task nor a file says nothing learnable.
    assert.equal(extractExecution({ text: 'chat', slots: { execution_packet_v1: { version: 1, target_files: [] } } }).outcome_source, null);
  });

  it('recognises the error families agents meet', () => {
    const cases: [string, string][] = [
      ['panic: runtime error: index out of range [3] with length 10', 'panic'],
      ['error[E0502]: cannot borrow `x` as mutable because it is also borrowed as immutable', 'E0502'],
      ["TS2345: Argument of type 'string' is not assignable to parameter of type 'number'", 'TS2345'],
      ['Error: connect ECONNREFUSED 127.0.0.1:3000', 'ECONNREFUSED'],
      ['--- FAIL: TestRouter (3.12s)', 'FAIL'],
      ['sqlalchemy.exc.OperationalError: database is locked', 'OperationalError'],
    ];
    for (const [text, cls] of cases) {
      const x = extractExecution({ text });
      assert.ok(x.error_classes.includes(cls), `${text} → ${cls} (got ${x.error_classes.join(',')})`);
      assert.equal(x.error_signatures.length, 1, text);
    }
  });

  it('does not take URLs, product names, host:port or untriggered words for paths and commands', () => {
    const x = extractExecution({ text: 'See https://example.com/a/b.js, Node.js docs, 127.0.0.1:8080; go to the store and make it faster.' });
    assert.deepEqual(x.file_paths, []);
    assert.deepEqual(x.commands, []);
    assert.equal(x.outcome, null, 'conversation without execution signals has no outcome');
  });

  it('takes commands from backticks and shell prompts', () => {
    const x = extractExecution({ text: 'Then `cargo test -p billing invoices` and\n$ docker compose up -d\nworked.' });
    assert.deepEqual(x.commands, ['docker compose up -d', 'cargo test -p billing invoices']);
  });
});

describe('task signature', () => {
  it('normalises: lowercase, stems, drops stop words and volatile tokens, sorts, hashes', () => {
    const a = taskSignature('Fixing the flaky CI tests for run 8f3a9c21d0 (PR 1234)', 'Fix CI');
    assert.equal(a.task_kind, 'fix_ci');
    assert.deepEqual(a.terms, ['ci', 'fix', 'flaki', 'pr', 'run', 'test']);
    assert.match(a.hash, /^[0-9a-f]{16}$/);
  });

  it('paraphrases that differ only in volatile parts and word forms meet', () => {
    const a = taskSignature('Fix flaky tests in the CI pipeline for build 4412', 'fix_ci');
    const b = taskSignature('fixed the Flaky test in CI pipelines, build #9931', 'fix_ci');
    assert.equal(a.hash, b.hash);
    assert.equal(signatureSimilarity(a, b), 1);
  });

  it('similarity is partial for related tasks and halved across task kinds', () => {
    const a = taskSignature('fix retry backoff in payments handler', 'fix');
    const b = taskSignature('add retry backoff to billing client', 'fix');
    const c = taskSignature('add retry backoff to billing client', 'add');
    const s = signatureSimilarity(a, b);
    assert.ok(s > 0 && s < 1);
    assert.equal(signatureSimilarity(a, c), s / 2);
  });

  it('volatile tokens: numbers, hashes and long ids go; short names with digits stay', () => {
    for (const t of ['42', '2024', '8f3a9c21', 'r1a2b3c4', 'pr1234', 'build4412', 'x']) assert.equal(isVolatileToken(t), true, t);
    for (const t of ['utf8', 's3', 'e2e', 'http2', 'sha256', 'retri']) assert.equal(isVolatileToken(t), false, t);
  });
});
