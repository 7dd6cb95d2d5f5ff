import { invalidState } from '../../contract/errors';
import { normaliseTaskKind, taskTerms } from './similarity';
import type { RuleState } from '../../model/learning/vocabulary';
import type { RuleEffect, RuleSlot } from '../../model/learning/slots';

/**
 * Rules (docs/learning.md, "Rules"): operator-authored tool preferences. A rule is a memory node
 * of type `rule` whose slots.rule_v1 (RuleSlot, src/model/learning/slots.ts) holds
 *
 *   conditions  all given ones must hold (an empty object matches every task):
 *     task_kind: [..]            the request's task_kind is one of these
 *     terms_any: [..]            the task text mentions at least one of these words
 *     terms_all: [..]            ... all of these words (words are matched as task terms:
 *                                stemmed and synonym-folded, so "repair" matches "fix")
 *     file_path_prefix: [..]     the request's file_path starts with one of these
 *     tools_any: [..]            the tool candidates include one of these
 *   effects     [{effect: prefer|deny, tool}]
 *   priority    higher first when rules disagree (deny always wins over prefer for one tool)
 *
 * States: draft (kept, never evaluated), shadow (evaluated and reported, never applied), active
 * (applied by tool selection and every planning surface), disabled (kept, never evaluated).
 */

export const RULE_SLOT = 'rule_v1';
export { RULE_STATES, type RuleState } from '../../model/learning/vocabulary';

/** Allowed moves. Re-enabling a disabled rule goes through draft or shadow first. */
export const RULE_TRANSITIONS: Record<RuleState, RuleState[]> = {
  draft: ['shadow', 'active', 'disabled'],
  shadow: ['draft', 'active', 'disabled'],
  active: ['shadow', 'disabled'],
  disabled: ['draft', 'shadow'],
};

export interface RuleContext {
  task_kind: string | null;
  terms: ReadonlySet<string>;
  file_path: string | null;
  candidates: readonly string[];
}

export function newRule(def: Omit<RuleSlot, 'version' | 'history' | 'state'>, state: RuleState, actor: string, reason: string, at: string): RuleSlot {
  return { version: 1, ...def, state, history: [{ at, actor, from: null, to: state, reason }] };
}

export function transitionRule(r: RuleSlot, to: RuleState, actor: string, reason: string, at: string, nodeId: string): RuleSlot {
  if (r.state === to) return r;
  if (!RULE_TRANSITIONS[r.state].includes(to)) {
    throw invalidState(`rule '${r.rule_id}' is ${r.state}; it can move to ${RULE_TRANSITIONS[r.state].join(', ')}, not ${to}`, r.state, {
      rule_id: r.rule_id,
      rule_node_id: nodeId,
      allowed: RULE_TRANSITIONS[r.state],
    });
  }
  return { ...r, state: to, history: [...r.history, { at, actor, from: r.state, to, reason }].slice(-100) };
}

/** Words of a condition as task terms (each word may yield several terms; all must be present). */
function wordTerms(word: string): string[] {
  return taskTerms(word);
}

/** Whether a rule's conditions hold for a request; `why` names each condition that held. */
export function matchRule(r: RuleSlot, ctx: RuleContext): { matched: boolean; why: string[] } {
  const c = r.conditions;
  const why: string[] = [];
  if (c.task_kind && c.task_kind.length > 0) {
    const kinds = c.task_kind.map(normaliseTaskKind);
    if (!ctx.task_kind || !kinds.includes(ctx.task_kind)) return { matched: false, why };
    why.push(`task_kind ${ctx.task_kind}`);
  }
  const has = (w: string) => {
    const t = wordTerms(w);
    return t.length > 0 && t.every((x) => ctx.terms.has(x));
  };
  if (c.terms_any && c.terms_any.length > 0) {
    const hit = c.terms_any.find(has);
    if (!hit) return { matched: false, why };
    why.push(`mentions "${hit}"`);
  }
  if (c.terms_all && c.terms_all.length > 0) {
    if (!c.terms_all.every(has)) return { matched: false, why };
    why.push(`mentions ${c.terms_all.map((w) => `"${w}"`).join(', ')}`);
  }
  if (c.file_path_prefix && c.file_path_prefix.length > 0) {
    const p = ctx.file_path;
    const hit = p ? c.file_path_prefix.find((x) => p.startsWith(x)) : undefined;
    if (!hit) return { matched: false, why };
    why.push(`file under ${hit}`);
  }
  if (c.tools_any && c.tools_any.length > 0) {
    const hit = c.tools_any.find((t) => ctx.candidates.includes(t));
    if (!hit) return { matched: false, why };
    why.push(`candidates include ${hit}`);
  }
  if (why.length === 0) why.push('unconditional');
  return { matched: true, why };
}

export interface RuleOutcome {
  rule_id: string;
  rule_node_id: string;
  state: RuleState;
  applied: boolean;
  effects: RuleEffect[];
  why: string[];
}

export interface RuleEvaluation {
  matched: RuleOutcome[];
  /** Effects of active rules (applied). */
  prefer: string[];
  deny: string[];
  /** Effects of shadow rules (reported, not applied). */
  shadow_prefer: string[];
  shadow_deny: string[];
}

/** Evaluates shadow and active rules; draft and disabled rules are never evaluated. */
export function evaluateRules(rules: { id: string; slot: RuleSlot }[], ctx: RuleContext): RuleEvaluation {
  const out: RuleEvaluation = { matched: [], prefer: [], deny: [], shadow_prefer: [], shadow_deny: [] };
  const live = rules
    .filter((r) => r.slot.state === 'active' || r.slot.state === 'shadow')
    .sort((a, b) => b.slot.priority - a.slot.priority || (a.slot.rule_id < b.slot.rule_id ? -1 : 1));
  for (const r of live) {
    const m = matchRule(r.slot, ctx);
    if (!m.matched) continue;
    const applied = r.slot.state === 'active';
    out.matched.push({ rule_id: r.slot.rule_id, rule_node_id: r.id, state: r.slot.state, applied, effects: r.slot.effects, why: m.why });
    for (const e of r.slot.effects) {
      const list = applied ? (e.effect === 'prefer' ? out.prefer : out.deny) : e.effect === 'prefer' ? out.shadow_prefer : out.shadow_deny;
      if (!list.includes(e.tool)) list.push(e.tool);
    }
  }
  // Deny wins over prefer for the same tool.
  out.prefer = out.prefer.filter((t) => !out.deny.includes(t));
  out.shadow_prefer = out.shadow_prefer.filter((t) => !out.shadow_deny.includes(t));
  return out;
}
