import type { Issue } from '../../contract/errors';
import { LoreError } from '../../contract/errors';
import { PARAM_NAME, placeholdersIn, substitute } from './params';
import { signatureProblems } from './signature';
import { checkedCommand, commandOf } from './steps';
import { MAX_ATTEMPTS, MAX_BACKOFF_MS, MAX_PARAMETERS, MAX_PLAYBOOK_STEPS, type PlaybookParameter, type PlaybookStep } from '../../model/replay/types';

/**
 * Checks the content of a playbook version (compile and repair) and collects every problem, so a
 * caller fixes them all at once (validation_failed, details.issues).
 */
export function validateContent(steps: PlaybookStep[], parameters: PlaybookParameter[], pathOf: (i: number) => string = (i) => `steps.${i}`): Issue[] {
  const issues: Issue[] = [];
  if (steps.length === 0) issues.push({ path: 'steps', message: 'a playbook needs at least one step' });
  if (steps.length > MAX_PLAYBOOK_STEPS) issues.push({ path: 'steps', message: `at most ${MAX_PLAYBOOK_STEPS} steps (got ${steps.length})` });
  if (parameters.length > MAX_PARAMETERS) issues.push({ path: 'parameters', message: `at most ${MAX_PARAMETERS} parameters` });

  const declared = new Set<string>();
  for (const p of parameters) {
    if (!PARAM_NAME.test(p.name)) issues.push({ path: `parameters.${p.name}`, message: 'parameter names are [A-Za-z_][A-Za-z0-9_.-]{0,63}' });
    if (declared.has(p.name)) issues.push({ path: `parameters.${p.name}`, message: `parameter '${p.name}' is declared twice` });
    declared.add(p.name);
  }

  const defaults = Object.fromEntries(parameters.filter((p) => p.default !== null && p.default !== undefined).map((p) => [p.name, p.default]));
  const used = new Set<string>();
  steps.forEach((s, i) => {
    const at = pathOf(i);
    if (typeof s.tool_name !== 'string' || s.tool_name.trim() === '') issues.push({ path: `${at}.tool_name`, message: 'tool_name must be a non-empty string' });
    if (!s.tool_input || typeof s.tool_input !== 'object' || Array.isArray(s.tool_input)) {
      issues.push({ path: `${at}.tool_input`, message: 'tool_input must be an object' });
      return;
    }
    if (!Number.isInteger(s.max_attempts) || s.max_attempts < 1 || s.max_attempts > MAX_ATTEMPTS) {
      issues.push({ path: `${at}.max_attempts`, message: `max_attempts must be an integer from 1 to ${MAX_ATTEMPTS}` });
    }
    if (s.backoff_ms !== undefined && (!Number.isInteger(s.backoff_ms) || s.backoff_ms < 0 || s.backoff_ms > MAX_BACKOFF_MS)) {
      issues.push({ path: `${at}.backoff_ms`, message: `backoff_ms must be an integer from 0 to ${MAX_BACKOFF_MS}` });
    }
    const names = placeholdersIn(s.tool_input);
    placeholdersIn(s.expected_output_signature, names);
    // The signature's checks must have their shape; a field holding a placeholder is checked when a run fills it in.
    const sig = s.expected_output_signature as Record<string, unknown> | null;
    for (const p of signatureProblems(sig)) {
      if (p.field !== '' && placeholdersIn(sig?.[p.field]).size > 0) continue;
      issues.push({ path: `${at}.expected_output_signature${p.field ? `.${p.field}` : ''}`, message: p.message });
    }
    for (const n of names) {
      used.add(n);
      if (!declared.has(n)) issues.push({ path: `${at}`, message: `placeholder {{${n}}} is not a declared parameter` });
    }
    // Commands are checked with the defaults filled in; one that still needs a caller's value is
    // checked when a run resolves it (plan.ts).
    const resolved = substitute(s.tool_input, defaults);
    const cmd = commandOf(s.tool_name ?? '', resolved);
    if (cmd && placeholdersIn(resolved).size === 0) {
      for (const problem of checkedCommand(cmd).problems) issues.push({ path: `${at}.tool_input`, message: problem });
    }
  });
  for (const p of parameters) {
    if (!used.has(p.name)) issues.push({ path: `parameters.${p.name}`, message: `parameter '${p.name}' is not used by any step` });
  }
  return issues;
}

export function validationFailed(what: string, issues: Issue[], details: Record<string, unknown> = {}): LoreError {
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new LoreError('validation_failed', `${what}: ${first ? `${first.path}: ${first.message}` : 'invalid'}${more}`, { ...details, issues });
}
