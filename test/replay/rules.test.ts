/**
 * The pure rules of the replay family (no servers): placeholder substitution and compile-time
 * templating, step kinds, and how outcomes are matched against expected output signatures.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placeholdersIn, resolveParams, substitute, templateLiterals } from '../../src/domain/replay/params';
import { matchCommand, normalizeOutput, type CommandOutcome } from '../../src/domain/replay/signature';
import { checkedCommand, commandOf, kindOf } from '../../src/domain/replay/steps';

const outcome = (o: Partial<CommandOutcome>): CommandOutcome => ({ status: 'succeeded', exit_code: 0, signal: null, stdout: '', stderr: '', reason: null, truncated: false, ...o });

describe('parameters', () => {
  it('substitutes whole-string placeholders with typed values and embedded ones as text', () => {
    const out = substitute({ argv: ['echo', '{{who}}', 'n={{n}}'], count: '{{n}}', obj: '{{o}}', keep: '{{ spaced }}', missing: '{{nope}}' }, { who: 'ann', n: 3, o: { a: 1 } });
    assert.deepEqual(out, { argv: ['echo', 'ann', 'n=3'], count: 3, obj: { a: 1 }, keep: '{{ spaced }}', missing: '{{nope}}' });
  });

  it('substitutes in one pass (a value containing a placeholder is not expanded again)', () => {
    assert.deepEqual(substitute(['{{a}}'], { a: '{{b}}', b: 'x' }), ['{{b}}']);
  });

  it('templates whole words and whole values only, longest first', () => {
    const used = new Set<string>();
    const out = templateLiterals({ argv: ['echo', 'hello', 'hello-world', 'othello', 'say hello!'], port: 8080, s: '8080' }, { greeting: 'hello', long: 'hello-world', port: 8080 }, used);
    assert.deepEqual(out, { argv: ['echo', '{{greeting}}', '{{long}}', 'othello', 'say {{greeting}}!'], port: '{{port}}', s: '{{port}}' });
    assert.deepEqual([...used].sort(), ['greeting', 'long', 'port']);
    // A whole-string placeholder takes the value as it is (numbers stay numbers)...
    assert.deepEqual(substitute(out, { greeting: 'hi', long: 'x', port: 1 }), { argv: ['echo', 'hi', 'x', 'othello', 'say hi!'], port: 1, s: 1 });
    // ...and argv entries are always text.
    const argv = substitute(templateLiterals({ argv: ['sleep', '5'] }, { secs: 5 }, new Set()), { secs: 7 });
    assert.deepEqual(argv, { argv: ['sleep', 7] });
    assert.deepEqual(checkedCommand(commandOf('command', argv)!).command?.argv, ['sleep', '7']);
  });

  it('finds placeholders and resolves values: caller, then defaults; unknown and missing names are issues', () => {
    assert.deepEqual([...placeholdersIn({ a: ['{{x}} and {{y}}'], b: { c: '{{x}}' } })].sort(), ['x', 'y']);
    const r = resolveParams([{ name: 'x', default: 'dx' }, { name: 'y', default: null }], { y: 'given', z: 1 });
    assert.deepEqual(r.values, { x: 'dx', y: 'given' });
    assert.deepEqual(r.issues.map((i) => i.path), ['params.z']);
    assert.deepEqual(resolveParams([{ name: 'y', default: null }], {}).issues.map((i) => i.path), ['params.y']);
  });
});

describe('step kinds', () => {
  it('command steps: action.argv, argv, or a command tool with a command string', () => {
    assert.deepEqual(commandOf('anything', { action: { kind: 'command', argv: ['ls'] } })?.argv, ['ls']);
    assert.deepEqual(commandOf('anything', { argv: ['cat', 'f'] })?.argv, ['cat', 'f']);
    assert.deepEqual(commandOf('bash', { command: 'ls | wc -l' })?.argv, ['sh', '-c', 'ls | wc -l']);
    assert.equal(kindOf('edit_file', { command: 'not a command tool' }), 'host');
    assert.equal(kindOf('edit_file', { file_path: 'a.ts' }), 'host');
    assert.equal(kindOf('command', { argv: [] }), 'host');
  });
});

describe('matching', () => {
  it('strict: completion, exit code (0 unless given) and stdout containing the normalised summary', () => {
    assert.equal(matchCommand({ summary: 'hello' }, outcome({ stdout: 'well hello there\r\n' }), 'strict').matched, true);
    assert.equal(matchCommand({ summary: 'a\nb' }, outcome({ stdout: 'a   \nb\n\n' }), 'strict').matched, true, 'trailing spaces and blank lines do not matter');
    assert.equal(matchCommand({ summary: 'bye' }, outcome({ stdout: 'hello' }), 'strict').matched, false);
    assert.equal(matchCommand({ stdout: 'hello' }, outcome({ stdout: 'hello' }), 'strict').matched, true, 'stdout works as the summary');
    assert.equal(matchCommand({ summary: 'hello', output_match: 'exact' }, outcome({ stdout: 'hello world' }), 'strict').matched, false);
    assert.equal(matchCommand({ summary: 'zzz', output_match: 'none' }, outcome({ stdout: 'hello' }), 'strict').matched, true);
    assert.equal(matchCommand({}, outcome({ exit_code: 2, status: 'failed' }), 'strict').matched, false);
    assert.equal(matchCommand({ exit_code: 2 }, outcome({ exit_code: 2, status: 'failed' }), 'strict').matched, true);
    assert.equal(matchCommand(null, outcome({ status: 'timed_out', exit_code: null, signal: 'SIGKILL' }), 'strict').matched, false);
    assert.equal(matchCommand({ stderr: 'warn' }, outcome({ stderr: 'an error' }), 'strict').matched, false);
    assert.equal(matchCommand({ stderr: 'warn' }, outcome({ stderr: 'warn: x' }), 'strict').matched, true);
  });

  it('guided: output differences are reported but only completion and exit code are enforced', () => {
    const m = matchCommand({ summary: 'bye' }, outcome({ stdout: 'hello' }), 'guided');
    assert.equal(m.matched, true);
    assert.deepEqual(m.checks.map((c) => [c.check, c.passed, c.enforced]), [['completed', true, true], ['exit_code', true, true], ['stdout', false, false]]);
    assert.equal(matchCommand({ summary: 'bye' }, outcome({ exit_code: 1, status: 'failed' }), 'guided').matched, false);
  });

  it('normalises CRLF, trailing spaces and surrounding blank lines only', () => {
    assert.equal(normalizeOutput('\n\n  a  \r\n b\t\n\n'), '  a\n b');
  });
});
