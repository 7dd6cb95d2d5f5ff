import { sameJson } from './json';
import type { HostReportStatus, Json, MatchCheck, RunMode, StepMatch } from '../../model/replay/types';

/**
 * Output signatures: what a step is expected to produce, and how an outcome is judged against it
 * (docs/replay.md, "Signatures"). An expected signature says only what the recording supports:
 *
 *   - `exit_code`: the exit status (commands; for a host step, the status it reports);
 *   - `error_signature`: text the error output must contain (a step that is meant to fail a certain way);
 *   - `markers`: strings that must each appear in the output;
 *   - `json`: `[{path, equals}]`, a value the JSON output must hold at a path;
 *   - `artifacts`: `[{path, sha256?}]`, files that must exist afterwards (with that content, when a hash is given);
 *   - `description`: the recording's prose (e.g. "tests passed"). Kept for people, never compared.
 *
 * Signatures recorded before (`summary`, `stdout`, `stderr`, `output_match`) are read the same way
 * (migrated on read, expectationOf): a summary or stdout is prose and becomes the description;
 * stderr becomes the error signature only when the recorded exit status says the step failed.
 */

/** How much stdout a signature Lore records keeps as its summary. */
export const SUMMARY_CHARS = 4096;
const ERROR_SIGNATURE_CHARS = 200;

export const normalizeOutput = (s: string) =>
  s
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');

export interface JsonExpectation {
  path: string;
  equals: unknown;
}
export interface ArtifactExpectation {
  path: string;
  sha256: string | null;
}

export interface Expectation {
  /** null: not stated (a command must exit 0; a host step must report success). */
  exit_code: number | null;
  error_signature: string | null;
  markers: string[];
  json: JsonExpectation[];
  artifacts: ArtifactExpectation[];
  description: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first meaningful line of an error output: a signature of how the step failed. */
export function errorSignatureOf(text: string | null): string | null {
  if (!text) return null;
  const line = normalizeOutput(text)
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  return line ? line.slice(0, ERROR_SIGNATURE_CHARS) : null;
}

/** Reads any stored or recorded signature (current or earlier shape) as an expectation. */
export function expectationOf(sig: Json | null | undefined): Expectation {
  const e: Expectation = { exit_code: null, error_signature: null, markers: [], json: [], artifacts: [], description: null };
  if (!isObj(sig)) return e;
  if (typeof sig.exit_code === 'number' && Number.isInteger(sig.exit_code)) e.exit_code = sig.exit_code;
  e.error_signature = str(sig.error_signature);
  if (e.error_signature === null && e.exit_code !== null && e.exit_code !== 0) {
    e.error_signature = errorSignatureOf(str(sig.stderr) ?? str(sig.stderr_summary) ?? str(sig.error));
  }
  if (Array.isArray(sig.markers)) e.markers = [...new Set(sig.markers.filter((m): m is string => typeof m === 'string' && m.trim() !== ''))];
  if (Array.isArray(sig.json)) {
    for (const j of sig.json) if (isObj(j) && typeof j.path === 'string' && 'equals' in j) e.json.push({ path: j.path, equals: j.equals });
  }
  if (Array.isArray(sig.artifacts)) {
    for (const a of sig.artifacts) {
      if (isObj(a) && typeof a.path === 'string' && a.path !== '') e.artifacts.push({ path: a.path, sha256: typeof a.sha256 === 'string' ? a.sha256.toLowerCase() : null });
    }
  }
  e.description = str(sig.description) ?? str(sig.summary) ?? str(sig.stdout);
  return e;
}

/**
 * The expected signature compile stores for a recorded step: the checks its recorded signature
 * supports, the prose as the description, and its `kind`. Fields that are not checks (Lore's own
 * stdout_chars, a recorded status) are dropped.
 */
export function deriveSignature(recorded: Json | null | undefined): Json | null {
  if (!isObj(recorded)) return null;
  const e = expectationOf(recorded);
  const out: Json = {};
  if (typeof recorded.kind === 'string') out.kind = recorded.kind;
  if (e.exit_code !== null) out.exit_code = e.exit_code;
  if (e.error_signature !== null) out.error_signature = e.error_signature;
  if (e.markers.length > 0) out.markers = e.markers;
  if (e.json.length > 0) out.json = e.json;
  if (e.artifacts.length > 0) out.artifacts = e.artifacts.map((a) => (a.sha256 ? a : { path: a.path }));
  if (e.description !== null && e.description !== '') out.description = e.description;
  return out;
}

/** Problems with the shape of an expected signature (repair, compile): each with its field. */
export function signatureProblems(sig: unknown): { field: string; message: string }[] {
  const p: { field: string; message: string }[] = [];
  if (sig === null || sig === undefined) return p;
  if (!isObj(sig)) return [{ field: '', message: 'must be an object' }];
  if (sig.exit_code !== undefined && sig.exit_code !== null && !(typeof sig.exit_code === 'number' && Number.isInteger(sig.exit_code)))
    p.push({ field: 'exit_code', message: 'must be an integer' });
  if (sig.error_signature !== undefined && sig.error_signature !== null && typeof sig.error_signature !== 'string')
    p.push({ field: 'error_signature', message: 'must be a string' });
  if (sig.markers !== undefined && !(Array.isArray(sig.markers) && sig.markers.every((m) => typeof m === 'string' && m.trim() !== '')))
    p.push({ field: 'markers', message: 'must be an array of non-empty strings' });
  if (sig.json !== undefined && !(Array.isArray(sig.json) && sig.json.every((j) => isObj(j) && typeof j.path === 'string' && parsePath(j.path) !== null && 'equals' in j))) {
    p.push({ field: 'json', message: 'must be an array of {path, equals} with paths such as "$.a.b[0]" or "a.b.0"' });
  }
  if (
    sig.artifacts !== undefined &&
    !(
      Array.isArray(sig.artifacts) &&
      sig.artifacts.every(
        (a) =>
          isObj(a) &&
          typeof a.path === 'string' &&
          relativeInside(a.path) &&
          (a.sha256 === undefined || a.sha256 === null || (typeof a.sha256 === 'string' && /^[0-9a-fA-F]{64}$/.test(a.sha256))),
      )
    )
  ) {
    p.push({ field: 'artifacts', message: 'must be an array of {path, sha256?} with relative paths that stay inside the working directory and sha256 as 64 hex digits' });
  }
  if (sig.description !== undefined && sig.description !== null && typeof sig.description !== 'string') p.push({ field: 'description', message: 'must be a string' });
  return p;
}

/** A relative path that stays below its base (no absolute paths, no `..`). */
export const relativeInside = (p: string) => p !== '' && !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\0');

/** `$.a.b[0].c`, `a.b.0.c` → ['a', 'b', '0', 'c']; null when malformed. */
export function parsePath(p: string): string[] | null {
  let s = p.trim();
  if (s.startsWith('$')) s = s.slice(1);
  s = s.replace(/\[(\d+)\]/g, '.$1');
  if (s.startsWith('.')) s = s.slice(1);
  if (s === '') return [];
  const parts = s.split('.');
  return parts.some((x) => x === '') ? null : parts;
}

function atPath(value: unknown, path: string[]): { found: boolean; value: unknown } {
  let cur = value;
  for (const seg of path) {
    if (Array.isArray(cur) && /^\d+$/.test(seg)) cur = cur[Number(seg)];
    else if (isObj(cur) && Object.hasOwn(cur, seg)) cur = cur[seg];
    else return { found: false, value: undefined };
    if (cur === undefined) return { found: false, value: undefined };
  }
  return { found: true, value: cur };
}

/** JSON in a text: the whole of it, else its last non-empty line (a tool that logs before printing its result). */
export function jsonIn(text: string | null): { ok: boolean; value: unknown } {
  if (text === null) return { ok: false, value: undefined };
  const tries = [
    text.trim(),
    normalizeOutput(text)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .at(-1) ?? '',
  ];
  for (const t of tries) {
    if (t === '') continue;
    try {
      return { ok: true, value: JSON.parse(t) };
    } catch {
      /* next */
    }
  }
  return { ok: false, value: undefined };
}

export interface CommandOutcome {
  status: string;
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  reason: string | null;
  truncated: boolean;
}

/** What was found at an expected artifact's path (the caller looks, the matchers judge). */
export interface ArtifactFact {
  exists: boolean;
  sha256: string | null;
  /** Why it could not be looked at (a path leading out, no workspace). */
  problem?: string | null;
}
export type ArtifactFacts = Map<string, ArtifactFact>;

/** The signature Lore records for a command it ran: the same shape a caller records. */
export function signatureOf(o: CommandOutcome): Json {
  const out = normalizeOutput(o.stdout);
  const err = normalizeOutput(o.stderr);
  const failedWith = o.exit_code !== null && o.exit_code !== 0 ? errorSignatureOf(err || out) : null;
  return {
    kind: 'command',
    status: o.status,
    exit_code: o.exit_code,
    ...(o.signal ? { signal: o.signal } : {}),
    summary: out.slice(0, SUMMARY_CHARS),
    stdout_chars: out.length,
    ...(err ? { stderr_summary: err.slice(0, 1024) } : {}),
    ...(failedWith ? { error_signature: failedWith } : {}),
    ...(o.truncated ? { truncated: true } : {}),
  };
}

const clip = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 3)}...` : s);
const check = (kind: MatchCheck['check'], passed: boolean, detail: string): MatchCheck => ({ check: kind, passed, enforced: true, detail });

/** The checks every kind of step shares: error signature, markers, JSON values, artifacts. */
function contentChecks(e: Expectation, output: string, errors: string, json: { ok: boolean; value: unknown }, listed: string[], facts: ArtifactFacts): MatchCheck[] {
  const checks: MatchCheck[] = [];
  if (e.error_signature) {
    const want = normalizeOutput(e.error_signature);
    const passed = errors.includes(want) || output.includes(want);
    checks.push(check('error_signature', passed, passed ? `the error output contains "${clip(want)}"` : `the error output does not contain "${clip(want)}"`));
  }
  for (const m of e.markers) {
    const want = normalizeOutput(m);
    const passed = output.includes(want) || errors.includes(want) || listed.includes(m);
    checks.push(check('marker', passed, passed ? `marker "${clip(m)}" appears` : `marker "${clip(m)}" does not appear in the output`));
  }
  for (const j of e.json) {
    const path = parsePath(j.path);
    if (!json.ok || path === null) {
      checks.push(check('json', false, `${j.path}: ${path === null ? 'the path is malformed' : 'the output is not JSON'}`));
      continue;
    }
    const got = atPath(json.value, path);
    const passed = got.found && sameJson(got.value, j.equals);
    checks.push(
      check(
        'json',
        passed,
        passed
          ? `${j.path} equals ${clip(JSON.stringify(j.equals))}`
          : `${j.path} ${got.found ? `is ${clip(JSON.stringify(got.value))}` : 'is absent'}, expected ${clip(JSON.stringify(j.equals))}`,
      ),
    );
  }
  for (const a of e.artifacts) {
    const f = facts.get(a.path) ?? { exists: false, sha256: null, problem: 'not looked at' };
    const hashOk = a.sha256 === null || (f.sha256 !== null && f.sha256.toLowerCase() === a.sha256);
    const passed = f.exists && hashOk && !f.problem;
    const detail = f.problem
      ? `artifact ${a.path}: ${f.problem}`
      : !f.exists
        ? `artifact ${a.path} does not exist`
        : hashOk
          ? `artifact ${a.path} exists${a.sha256 ? ' with the recorded sha256' : ''}`
          : `artifact ${a.path} exists but its sha256 is ${f.sha256 ?? 'unknown'}, not ${a.sha256}`;
    checks.push(check('artifact', passed, detail));
  }
  return checks;
}

/** A command's outcome against its expected signature. */
export function matchCommand(expected: Json | null, o: CommandOutcome, mode: RunMode, facts: ArtifactFacts = new Map()): StepMatch {
  const e = expectationOf(expected);
  const checks: MatchCheck[] = [];
  const completed = o.status === 'succeeded' || o.status === 'failed';
  checks.push(check('completed', completed, completed ? 'the command ran to its end' : `the command did not complete: ${o.status}${o.reason ? ` (${o.reason})` : ''}`));
  const wantExit = e.exit_code ?? 0;
  checks.push(
    check(
      'exit_code',
      completed && o.exit_code === wantExit,
      `expected exit code ${wantExit}, got ${o.exit_code === null ? (o.signal ? `signal ${o.signal}` : 'none') : o.exit_code}`,
    ),
  );
  const out = normalizeOutput(o.stdout);
  checks.push(...contentChecks(e, out, normalizeOutput(o.stderr), jsonIn(o.stdout), [], facts));
  return { matched: checks.every((c) => c.passed || !c.enforced), mode, checks };
}

/** What the host reported for a host step (playbooks/runs/steps/complete). */
export interface HostReport {
  status: HostReportStatus;
  output_signature: Json | null;
  error: string | null;
}

/** The text a host step's report offers for markers (its reported output fields and markers). */
function hostOutput(sig: Json | null): { text: string; listed: string[] } {
  if (!sig) return { text: '', listed: [] };
  const parts = ['stdout', 'output', 'summary', 'text', 'description'].map((k) => str(sig[k])).filter((t): t is string => t !== null);
  const listed = Array.isArray(sig.markers) ? sig.markers.filter((m): m is string => typeof m === 'string') : [];
  return { text: normalizeOutput(parts.join('\n')), listed };
}

/** A host step's report against its expected signature. */
export function matchHost(expected: Json | null, r: HostReport, mode: RunMode, facts: ArtifactFacts = new Map()): StepMatch {
  const e = expectationOf(expected);
  const sig = r.output_signature;
  const checks: MatchCheck[] = [];
  const reportedExit = typeof sig?.exit_code === 'number' && Number.isInteger(sig.exit_code) ? sig.exit_code : null;
  if (e.exit_code !== null && e.exit_code !== 0) {
    checks.push(check('exit_code', reportedExit === e.exit_code, `expected exit code ${e.exit_code}, the host reported ${reportedExit ?? 'none'}`));
  } else {
    checks.push(
      check('status', r.status === 'success', r.status === 'success' ? 'the host reported success' : `the host reported ${r.status}${r.error ? `: ${clip(r.error, 200)}` : ''}`),
    );
    if (reportedExit !== null) checks.push(check('exit_code', reportedExit === 0, `expected exit code 0, the host reported ${reportedExit}`));
  }
  const { text, listed } = hostOutput(sig);
  const errors = normalizeOutput([r.error, str(sig?.stderr), str(sig?.error)].filter((t): t is string => typeof t === 'string').join('\n'));
  const json = sig && 'json' in sig ? { ok: true, value: sig.json } : jsonIn(str(sig?.stdout) ?? str(sig?.output) ?? null);
  checks.push(...contentChecks(e, text, errors, json, listed, facts));
  return { matched: checks.every((c) => c.passed || !c.enforced), mode, checks };
}

/** Reasons a match failed, for messages and the run result. */
export const reasonsOf = (m: StepMatch) => m.checks.filter((c) => !c.passed).map((c) => (c.enforced ? c.detail : `${c.detail} (reported, not enforced in ${m.mode} mode)`));
