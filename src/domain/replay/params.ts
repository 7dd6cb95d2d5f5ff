import type { Issue } from '../../contract/errors';
import type { Json, PlaybookParameter } from '../../model/replay/types';
import { escapeRegExp } from '../values';

/**
 * Playbook parameters (docs/replay.md, "Parameters"). A placeholder is `{{name}}` inside any
 * string of a step's tool_input or expected_output_signature; name is
 * [A-Za-z_][A-Za-z0-9_.-]{0,63}. At run time:
 *   - a string that is exactly one placeholder takes the value as is (numbers stay numbers);
 *   - a placeholder inside a longer string is replaced by the value as text (objects as JSON);
 *   - text that is not a valid placeholder (e.g. `{{ x }}` with spaces) is left alone.
 * Substitution is one pass: a value that itself contains `{{…}}` is not expanded again.
 */

export const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}\}/g;
const WHOLE = /^\{\{([A-Za-z_][A-Za-z0-9_.-]{0,63})\}\}$/;

/** Maps every string inside a JSON value (keys are left alone). */
function mapStrings(value: unknown, fn: (s: string) => unknown): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, fn);
    return out;
  }
  return value;
}

/** Names of the placeholders used anywhere in a value. */
export function placeholdersIn(value: unknown, into = new Set<string>()): Set<string> {
  mapStrings(value, (s) => {
    for (const m of s.matchAll(PLACEHOLDER)) into.add(m[1]!);
    return s;
  });
  return into;
}

const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** Replaces placeholders with values; names without a value are left as placeholders (the caller checks first). */
export function substitute<T>(value: T, values: Record<string, unknown>): T {
  const has = (n: string) => Object.hasOwn(values, n) && values[n] !== null && values[n] !== undefined;
  return mapStrings(value, (s) => {
    const whole = WHOLE.exec(s);
    if (whole && has(whole[1]!)) return values[whole[1]!];
    return s.replace(PLACEHOLDER, (m, name: string) => (has(name) ? asText(values[name]) : m));
  }) as T;
}

/**
 * Compile-time templating: every occurrence of a parameter's literal value becomes `{{name}}`. A
 * string equal to the value is replaced whole; inside longer strings only whole-word occurrences
 * are (not preceded or followed by a letter, digit or `_`), so `hello` never rewrites `othello`.
 * Non-string values (numbers, booleans) are matched as whole values and as whole words of text.
 * Longer values are applied first so one value that contains another is not split.
 */
export function templateLiterals<T>(value: T, literals: Record<string, string | number | boolean>, used: Set<string>): T {
  const entries = Object.entries(literals).sort((a, b) => String(b[1]).length - String(a[1]).length);
  let out: unknown = value;
  for (const [name, literal] of entries) {
    const text = String(literal);
    const word = new RegExp(`(?<![A-Za-z0-9_])${escapeRegExp(text)}(?![A-Za-z0-9_])`, 'g');
    out = mapWithWhole(
      out,
      literal,
      () => {
        used.add(name);
        return `{{${name}}}`;
      },
      (s) =>
        s.replace(word, () => {
          used.add(name);
          return `{{${name}}}`;
        }),
    );
  }
  return out as T;
}

/** Like mapStrings, but also replaces non-string scalars equal to `literal`. */
function mapWithWhole(value: unknown, literal: unknown, whole: () => string, inText: (s: string) => string): unknown {
  if (value === literal) return whole();
  if (typeof value === 'string') return inText(value);
  if (Array.isArray(value)) return value.map((v) => mapWithWhole(v, literal, whole, inText));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapWithWhole(v, literal, whole, inText);
    return out;
  }
  return value;
}

/**
 * Values for a run: the caller's, then the declared defaults. Issues: unknown names (a typo would
 * otherwise run silently with the default), and parameters with no value at all.
 */
export function resolveParams(declared: PlaybookParameter[], given: Json, path = 'params'): { values: Json; issues: Issue[] } {
  const issues: Issue[] = [];
  const known = new Set(declared.map((p) => p.name));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) issues.push({ path: `${path}.${name}`, message: `unknown parameter '${name}' (declared: ${[...known].join(', ') || 'none'})` });
  }
  const values: Json = {};
  for (const p of declared) {
    const v = Object.hasOwn(given, p.name) ? given[p.name] : p.default;
    if (v === null || v === undefined) issues.push({ path: `${path}.${p.name}`, message: `parameter '${p.name}' has no default; give a value` });
    else values[p.name] = v;
  }
  return { values, issues };
}
