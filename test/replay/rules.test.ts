/**
 * The pure rules of the replay family (no servers): placeholder substitution and compile-time
 * templating, step kinds, signatures (derived at compile, read in both shapes) and how command
 * outcomes and host reports are judged against them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placeholdersIn, resolveParams, substitute, templateLiterals } from '../../src/domain/replay/params';
import { deriveSignature, expectationOf, matchCommand, matchHost, normalizeOutput, reasonsOf, signatureProblems, type CommandOutcome } from '../../src/domain/replay/signature';
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
    const out = templateLiterals(
      { argv: ['echo', 'hello', 'hello-world', 'othello', 'say hello!'], port: 8080, s: '8080' },
      { greeting: 'hello', long: 'hello-world', port: 8080 },
      used,
    );
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
    const r = resolveParams(
      [
        { name: 'x', default: 'dx' },
        { name: 'y', default: null },
      ],
      { y: 'given', z: 1 },
    );
    assert.deepEqual(r.values, { x: 'dx', y: 'given' });
    assert.deepEqual(
      r.issues.map((i) => i.path),
      ['params.z'],
    );
    assert.deepEqual(
      resolveParams([{ name: 'y', default: null }], {}).issues.map((i) => i.path),
      ['params.y'],
    );
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

describe('signatures', () => {
  it('compile keeps what the recording supports: exit status, error signature, markers, JSON values, artifacts; prose becomes the description', () => {
    assert.deepEqual(deriveSignature({ kind: 'text', summary: 'tests passed', exit_code: 0 }), { kind: 'text', exit_code: 0, description: 'tests passed' });
    assert.deepEqual(
      deriveSignature({ summary: 'ok', markers: ['# pass 3', ''], json: [{ path: '$.n', equals: 3 }], artifacts: [{ path: 'dist/a.js', sha256: 'AB'.repeat(32) }, { path: 'b' }] }),
      {
        markers: ['# pass 3'],
        json: [{ path: '$.n', equals: 3 }],
        artifacts: [{ path: 'dist/a.js', sha256: 'ab'.repeat(32) }, { path: 'b' }],
        description: 'ok',
      },
    );
    // A step that failed the way it was meant to: its first error line is its error signature.
    assert.deepEqual(deriveSignature({ exit_code: 2, stderr: '\n  grep: missing.txt: No such file or directory\nmore' }), {
      exit_code: 2,
      error_signature: 'grep: missing.txt: No such file or directory',
    });
    // Lore's own command signature: stdout is kept as prose, its counters are not checks.
    assert.deepEqual(deriveSignature({ kind: 'command', status: 'succeeded', exit_code: 0, summary: 'hello', stdout_chars: 5 }), {
      kind: 'command',
      exit_code: 0,
      description: 'hello',
    });
    assert.equal(deriveSignature(null), null);
  });

  it('signatures recorded before (summary, stdout, output_match) are read as descriptions, never as output checks', () => {
    const e = expectationOf({ summary: 'tests passed', output_match: 'exact', stderr: 'warn' });
    assert.deepEqual(e, { exit_code: null, error_signature: null, markers: [], json: [], artifacts: [], description: 'tests passed' });
    assert.equal(
      matchCommand({ summary: 'tests passed', output_match: 'exact' }, outcome({ stdout: '# pass 4\n# fail 0' }), 'strict').matched,
      true,
      'a prose summary never fails a run that passed',
    );
    assert.equal(matchCommand({ stdout: 'hello' }, outcome({ stdout: 'bye' }), 'strict').matched, true);
  });

  it('the shape of a signature is checked where it is written (repair)', () => {
    assert.deepEqual(signatureProblems({ exit_code: 0, markers: ['a'], json: [{ path: 'a.b', equals: 1 }], artifacts: [{ path: 'x/y', sha256: 'a'.repeat(64) }] }), []);
    assert.deepEqual(
      signatureProblems({ exit_code: '0', markers: [1], json: [{ path: 'a..b', equals: 1 }], artifacts: [{ path: '../etc/passwd' }], error_signature: 3 }).map((p) => p.field),
      ['exit_code', 'error_signature', 'markers', 'json', 'artifacts'],
    );
  });
});

describe('matching commands', () => {
  it('completion and the exit status (0 unless the signature says otherwise)', () => {
    assert.equal(matchCommand({}, outcome({}), 'strict').matched, true);
    assert.equal(matchCommand({}, outcome({ exit_code: 2, status: 'failed' }), 'strict').matched, false);
    assert.equal(matchCommand({ exit_code: 2 }, outcome({ exit_code: 2, status: 'failed' }), 'strict').matched, true);
    assert.equal(matchCommand(null, outcome({ status: 'timed_out', exit_code: null, signal: 'SIGKILL' }), 'strict').matched, false);
  });

  it('error signature, markers and JSON values, in strict and guided mode alike', () => {
    for (const mode of ['strict', 'guided'] as const) {
      assert.equal(
        matchCommand({ exit_code: 1, error_signature: 'No such file' }, outcome({ exit_code: 1, status: 'failed', stderr: 'cat: x: No such file or directory\r\n' }), mode).matched,
        true,
      );
      assert.equal(
        matchCommand({ exit_code: 1, error_signature: 'Permission denied' }, outcome({ exit_code: 1, status: 'failed', stderr: 'cat: x: No such file or directory' }), mode)
          .matched,
        false,
      );
      assert.equal(matchCommand({ markers: ['# pass 3', '# fail 0'] }, outcome({ stdout: '# tests 3\n# pass 3   \n# fail 0\n' }), mode).matched, true);
      const m = matchCommand({ markers: ['# fail 0'] }, outcome({ stdout: '# fail 1' }), mode);
      assert.equal(m.matched, false);
      assert.match(reasonsOf(m).join(' '), /marker "# fail 0" does not appear/);
      assert.equal(
        matchCommand(
          {
            json: [
              { path: '$.stats.passes', equals: 3 },
              { path: 'ok', equals: true },
            ],
          },
          outcome({ stdout: 'log line\n{"stats":{"passes":3},"ok":true}\n' }),
          mode,
        ).matched,
        true,
      );
      assert.equal(matchCommand({ json: [{ path: '$.items[1].name', equals: 'b' }] }, outcome({ stdout: '{"items":[{"name":"a"},{"name":"b"}]}' }), mode).matched, true);
      const j = matchCommand({ json: [{ path: 'n', equals: 3 }] }, outcome({ stdout: '{"n":4}' }), mode);
      assert.match(reasonsOf(j).join(' '), /n is 4, expected 3/);
      assert.match(reasonsOf(matchCommand({ json: [{ path: 'n', equals: 3 }] }, outcome({ stdout: 'not json' }), mode)).join(' '), /not JSON/);
    }
  });

  it('artifacts: judged on what was found at their paths (existence, then the sha256 when recorded)', () => {
    const sha = 'c'.repeat(64);
    const facts = new Map([
      ['dist/a.js', { exists: true, sha256: sha }],
      ['dist/b.js', { exists: false, sha256: null }],
      ['dist/c.js', { exists: true, sha256: 'd'.repeat(64) }],
    ]);
    assert.equal(matchCommand({ artifacts: [{ path: 'dist/a.js', sha256: sha }] }, outcome({}), 'strict', facts).matched, true);
    assert.equal(matchCommand({ artifacts: [{ path: 'dist/a.js' }] }, outcome({}), 'strict', facts).matched, true);
    assert.match(reasonsOf(matchCommand({ artifacts: [{ path: 'dist/b.js' }] }, outcome({}), 'strict', facts)).join(' '), /dist\/b\.js does not exist/);
    assert.match(reasonsOf(matchCommand({ artifacts: [{ path: 'dist/c.js', sha256: sha }] }, outcome({}), 'strict', facts)).join(' '), /its sha256 is d+, not c+/);
  });

  it('normalises CRLF, trailing spaces and surrounding blank lines only', () => {
    assert.equal(normalizeOutput('\n\n  a  \r\n b\t\n\n'), '  a\n b');
  });
});

describe('matching host steps', () => {
  const report = (status: 'success' | 'failed', output_signature: Record<string, unknown> | null = null, error: string | null = null) => ({ status, output_signature, error });
  it('the reported status, then what the report shows', () => {
    assert.equal(matchHost({ description: 'read the file' }, report('success'), 'guided').matched, true);
    assert.equal(matchHost({ description: 'read the file' }, report('failed', null, 'EACCES'), 'guided').matched, false);
    assert.equal(matchHost({ markers: ['42 lines'] }, report('success', { summary: 'read 42 lines' }), 'guided').matched, true);
    assert.equal(matchHost({ markers: ['done'] }, report('success', { markers: ['done'] }), 'guided').matched, true, 'a marker the host lists counts');
    assert.equal(matchHost({ markers: ['42 lines'] }, report('success', { summary: 'read 7 lines' }), 'guided').matched, false);
    assert.equal(matchHost({ json: [{ path: 'count', equals: 2 }] }, report('success', { json: { count: 2 } }), 'guided').matched, true);
    assert.equal(matchHost({ exit_code: 0 }, report('success', { exit_code: 1 }), 'guided').matched, false, 'a reported exit status counts too');
    // A step meant to fail: the reported exit status and error signature decide.
    assert.equal(matchHost({ exit_code: 1, error_signature: 'not found' }, report('failed', { exit_code: 1 }, 'file not found'), 'guided').matched, true);
    const facts = new Map([['src/a.js', { exists: true, sha256: 'e'.repeat(64) }]]);
    assert.equal(matchHost({ artifacts: [{ path: 'src/a.js', sha256: 'e'.repeat(64) }] }, report('success'), 'guided', facts).matched, true);
    assert.equal(matchHost({ artifacts: [{ path: 'src/b.js' }] }, report('success'), 'guided', facts).matched, false);
  });
});
