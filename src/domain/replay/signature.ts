import type { Json, MatchCheck, RunMode, StepMatch } from './types';

/**
 * Output signatures and how a step's outcome is matched against the one it expects
 * (docs/replay.md, "Matching"). A recorded signature is whatever the caller wrote on step/after;
 * these fields have a meaning:
 *   - `exit_code` (integer): the exit status the command must end with; absent means 0.
 *   - `summary` (or `stdout` when summary is absent): text the command's stdout must contain,
 *     compared after normalisation (CRLF → LF, trailing spaces of each line and surrounding blank
 *     lines removed). `output_match: "exact"` requires equality instead; `"none"` skips the check.
 *   - `stderr`: text stderr must contain.
 * `kind` and any other field are kept but not compared.
 *
 * strict: the command must have completed (not timed out or cancelled), its exit code must match,
 * and so must stdout/stderr. guided: completion and exit code are enforced; the output checks are
 * reported but do not fail the step.
 */

/** How much stdout a signature keeps as its summary. */
export const SUMMARY_CHARS = 4096;

export const normalizeOutput = (s: string) =>
  s
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');

export interface CommandOutcome {
  status: string;
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  reason: string | null;
  truncated: boolean;
}

/** The signature Lore records for a command it ran: the same shape a caller records. */
export function signatureOf(o: CommandOutcome): Json {
  const out = normalizeOutput(o.stdout);
  const err = normalizeOutput(o.stderr);
  return {
    kind: 'command',
    status: o.status,
    exit_code: o.exit_code,
    ...(o.signal ? { signal: o.signal } : {}),
    summary: out.slice(0, SUMMARY_CHARS),
    stdout_chars: out.length,
    ...(err ? { stderr_summary: err.slice(0, 1024) } : {}),
    ...(o.truncated ? { truncated: true } : {}),
  };
}

const clip = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 3)}...` : s);

/** The text an expected signature asks stdout to contain (null: no output check). */
export function expectedText(expected: Json | null): string | null {
  if (!expected) return null;
  if (expected.output_match === 'none') return null;
  const t = typeof expected.summary === 'string' ? expected.summary : typeof expected.stdout === 'string' ? expected.stdout : null;
  if (t === null) return null;
  const n = normalizeOutput(t);
  return n === '' ? null : n;
}

export function matchCommand(expected: Json | null, o: CommandOutcome, mode: RunMode): StepMatch {
  const checks: MatchCheck[] = [];
  const completed = o.status === 'succeeded' || o.status === 'failed';
  checks.push({
    check: 'completed',
    passed: completed,
    enforced: true,
    detail: completed ? 'the command ran to its end' : `the command did not complete: ${o.status}${o.reason ? ` (${o.reason})` : ''}`,
  });
  const wantExit = typeof expected?.exit_code === 'number' ? expected.exit_code : 0;
  checks.push({
    check: 'exit_code',
    passed: completed && o.exit_code === wantExit,
    enforced: true,
    detail: `expected exit code ${wantExit}, got ${o.exit_code === null ? (o.signal ? `signal ${o.signal}` : 'none') : o.exit_code}`,
  });
  const text = expectedText(expected);
  if (text !== null) {
    const actual = normalizeOutput(o.stdout);
    const exact = expected?.output_match === 'exact';
    const passed = exact ? actual === text : actual.includes(text);
    checks.push({
      check: 'stdout',
      passed,
      enforced: mode === 'strict',
      detail: passed
        ? `stdout ${exact ? 'equals' : 'contains'} the expected summary`
        : `stdout ${exact ? 'differs from' : 'does not contain'} the expected summary "${clip(text)}" (got "${clip(actual)}")`,
    });
  }
  if (typeof expected?.stderr === 'string' && normalizeOutput(expected.stderr) !== '') {
    const want = normalizeOutput(expected.stderr);
    const passed = normalizeOutput(o.stderr).includes(want);
    checks.push({ check: 'stderr', passed, enforced: mode === 'strict', detail: passed ? 'stderr contains the expected text' : `stderr does not contain "${clip(want)}"` });
  }
  return { matched: checks.every((c) => c.passed || !c.enforced), mode, checks };
}

/** Reasons a match failed (or was only reported), for messages and the run result. */
export const reasonsOf = (m: StepMatch) => m.checks.filter((c) => !c.passed).map((c) => (c.enforced ? c.detail : `${c.detail} (reported, not enforced in ${m.mode} mode)`));
