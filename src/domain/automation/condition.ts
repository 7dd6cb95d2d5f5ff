import type { ConditionSpec } from '../../model/automation/graph';
import { isReferenceString, resolveRef } from './references';

/**
 * Condition semantics (docs/automation.md, "Conditions"). `left` and `right` are references or
 * literal JSON values. A reference that does not resolve is *absent*: absent is never equal to
 * anything (so `ne` is true), never greater or less, does not exist and is not truthy. No type
 * coercion: "3" is not 3. Pure code: the workflow evaluates conditions itself (no activity).
 */

export interface Operand {
  present: boolean;
  value: unknown;
}

export interface ConditionOutcome {
  result: boolean;
  op: ConditionSpec['op'];
  left: unknown;
  right: unknown;
  left_present: boolean;
  right_present: boolean;
}

function operand(v: unknown, outputs: Readonly<Record<string, unknown>>): Operand {
  if (isReferenceString(v)) {
    const r = resolveRef(v, outputs);
    return { present: r.found, value: r.found ? r.value : null };
  }
  return { present: v !== undefined, value: v === undefined ? null : v };
}

/** Structural equality of JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** JavaScript truthiness over JSON: false, 0, "", null and absent are false; everything else true. */
export const truthy = (o: Operand) => o.present && Boolean(o.value);

function compare(l: Operand, r: Operand): number | null {
  if (!l.present || !r.present) return null;
  if (typeof l.value === 'number' && typeof r.value === 'number') return l.value - r.value;
  if (typeof l.value === 'string' && typeof r.value === 'string') return l.value < r.value ? -1 : l.value > r.value ? 1 : 0;
  return null;
}

export function evaluateCondition(spec: ConditionSpec, outputs: Readonly<Record<string, unknown>>): ConditionOutcome {
  const l = operand(spec.left, outputs);
  const r = operand(spec.right, outputs);
  let result: boolean;
  switch (spec.op) {
    case 'eq':
      result = l.present && r.present && jsonEqual(l.value, r.value);
      break;
    case 'ne':
      result = !(l.present && r.present && jsonEqual(l.value, r.value));
      break;
    case 'gt': {
      const c = compare(l, r);
      result = c !== null && c > 0;
      break;
    }
    case 'lt': {
      const c = compare(l, r);
      result = c !== null && c < 0;
      break;
    }
    case 'exists':
      result = l.present && l.value !== null;
      break;
    case 'truthy':
      result = truthy(l);
      break;
  }
  return { result, op: spec.op, left: l.value, right: r.value, left_present: l.present, right_present: r.present };
}
