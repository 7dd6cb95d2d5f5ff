/** What a run may ask for: argv, isolation, workdir, environment and limits, checked before anything starts. */
import path from 'node:path';
import type { RunLimits, RunSpec } from './types';

/** The caller asked for something the runner refuses (bad argv, bad limits, shell when not allowed, ...). */
export class SandboxSpecError extends Error {
  override name = 'SandboxSpecError';
}

/** The requested isolation cannot be provided on this host. */
export class IsolationUnavailableError extends Error {
  override name = 'IsolationUnavailableError';
}

const SHELLS = new Set([
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'ksh93',
  'mksh',
  'pdksh',
  'lksh',
  'oksh',
  'loksh',
  'yash',
  'posh',
  'ash',
  'rbash',
  'csh',
  'tcsh',
  'fish',
  'busybox',
  'toybox',
  'pwsh',
  'powershell',
  'nu',
  'elvish',
  'xonsh',
  'rc',
  'es',
]);

/** True when argv[0] names a shell (by basename, ignoring a version suffix such as bash5.2 or python-like -5). */
export function isShell(argv0: string): boolean {
  const base = (argv0.split('/').pop() ?? argv0).toLowerCase();
  if (SHELLS.has(base)) return true;
  return SHELLS.has(base.replace(/[-.]?\d+(\.\d+)*$/, ''));
}

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_OPEN_FILES = 1024;
const DEFAULT_TMP_CAP = 256 * 1024 * 1024;

function checkPositive(name: string, v: unknown, integer: boolean): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new SandboxSpecError(`limits.${name} must be a positive ${integer ? 'integer' : 'number'}`);
  }
  return v;
}

export interface ResolvedLimits extends Required<RunLimits> {}

export function resolveLimits(l: RunLimits): ResolvedLimits {
  if (!l || typeof l !== 'object') throw new SandboxSpecError('limits are required');
  const memoryBytes = checkPositive('memoryBytes', l.memoryBytes, true);
  return {
    wallMs: checkPositive('wallMs', l.wallMs, false),
    cpuSeconds: checkPositive('cpuSeconds', l.cpuSeconds, true),
    memoryBytes,
    maxProcesses: checkPositive('maxProcesses', l.maxProcesses, true),
    maxFileBytes: checkPositive('maxFileBytes', l.maxFileBytes, true),
    maxOutputBytes: checkPositive('maxOutputBytes', l.maxOutputBytes, true),
    maxOpenFiles: l.maxOpenFiles === undefined ? DEFAULT_OPEN_FILES : checkPositive('maxOpenFiles', l.maxOpenFiles, true),
    tmpBytes: l.tmpBytes === undefined ? Math.min(memoryBytes, DEFAULT_TMP_CAP) : checkPositive('tmpBytes', l.tmpBytes, true),
  };
}

export function validateSpec(spec: RunSpec): void {
  if (!Array.isArray(spec.argv) || spec.argv.length === 0) throw new SandboxSpecError('argv must be a non-empty array');
  for (const a of spec.argv) {
    if (typeof a !== 'string') throw new SandboxSpecError('argv entries must be strings');
    if (a.includes('\0')) throw new SandboxSpecError('argv entries must not contain NUL');
  }
  if (spec.argv[0] === '') throw new SandboxSpecError('argv[0] must not be empty');
  if (spec.shell === false && isShell(spec.argv[0]!)) {
    throw new SandboxSpecError(`argv[0] '${spec.argv[0]}' is a shell and shells are not allowed for this run`);
  }
  if (spec.isolation !== 'bubblewrap' && spec.isolation !== 'none') {
    throw new SandboxSpecError(`isolation must be 'bubblewrap' or 'none'`);
  }
  if (spec.isolation === 'none' && spec.argv[0]!.includes('=')) {
    // env(1) would take it for an assignment.
    throw new SandboxSpecError("argv[0] must not contain '=' in isolation 'none'");
  }
  if (typeof spec.workdir !== 'string' || !path.isAbsolute(spec.workdir)) {
    throw new SandboxSpecError('workdir must be an absolute host path');
  }
  for (const [k, v] of Object.entries(spec.env ?? {})) {
    if (!ENV_KEY.test(k)) throw new SandboxSpecError(`env name '${k}' is not a valid variable name`);
    if (typeof v !== 'string' || v.includes('\0')) throw new SandboxSpecError(`env ${k} must be a string without NUL`);
  }
}
