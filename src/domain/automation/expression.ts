import type { ConditionOp } from '../../model/automation/graph';

/**
 * Condition nodes written as existing clients write them: `{kind: "condition", expression: …}`
 * (docs/automation.md, "Conditions"). The expression is read into Lore's own `condition {left,
 * op, right}` when the graph is validated, so what is stored and run is the one form:
 *
 *   true | false                      a constant branch (op truthy on the literal)
 *   "$nodes.check.summary.ok"         truthy of that value
 *   "<a> == <b>"  (also ===, !=, !==, >, <)
 *                                     each side a $nodes reference or a JSON value ("text", 3, true, null)
 *
 * Anything else is refused with a message saying what is understood; nothing is guessed.
 */

const OPS: [string, ConditionOp][] = [
  ['===', 'eq'],
  ['!==', 'ne'],
  ['==', 'eq'],
  ['!=', 'ne'],
  ['>', 'gt'],
  ['<', 'lt'],
];

export type ParsedExpression = { condition: { left: unknown; op: ConditionOp; right?: unknown } } | { error: string };

const HELP = 'an expression is true, false, a $nodes reference (tested for truthiness), or "<a> == <b>" (also !=, >, <) where each side is a $nodes reference or a JSON value';

/** One side: a reference, a JSON literal, or a single-quoted string. */
function operand(text: string): { value: unknown } | null {
  const t = text.trim();
  if (t === '') return null;
  if (t === '$nodes' || t.startsWith('$nodes.')) return /\s/.test(t) ? null : { value: t };
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return { value: t.slice(1, -1) };
  try {
    const v: unknown = JSON.parse(t);
    return v !== null && typeof v === 'object' ? null : { value: v };
  } catch {
    return null;
  }
}

export function parseExpression(expr: unknown): ParsedExpression {
  if (typeof expr === 'boolean') return { condition: { left: expr, op: 'truthy' } };
  if (typeof expr !== 'string') return { error: `expression must be a boolean or a string; ${HELP}` };
  const text = expr.trim();
  if (text.length === 0 || text.length > 4096) return { error: `expression must be 1-4096 characters; ${HELP}` };
  for (const [sym, op] of OPS) {
    const at = text.indexOf(sym);
    if (at <= 0) continue;
    // `>=` and `<=` have no operator of their own: refuse rather than read them as > or <.
    if ((sym === '>' || sym === '<') && text[at + 1] === '=') return { error: `'${sym}=' is not supported; ${HELP}` };
    const left = operand(text.slice(0, at));
    const right = operand(text.slice(at + sym.length));
    if (!left || !right) return { error: `expression '${text}' is not understood; ${HELP}` };
    return { condition: { left: left.value, op, right: right.value } };
  }
  const single = operand(text);
  if (!single) return { error: `expression '${text}' is not understood; ${HELP}` };
  return { condition: { left: single.value, op: 'truthy' } };
}
