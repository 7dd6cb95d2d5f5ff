import { LoreError, notFound } from '../../../contract/errors';
import { RuleRegistry } from '../../../store/learning';
import type { ScopeRef } from '../../../store/scope';
import { patternConfidence, PATTERN_SLOT, suppressPattern, unsuppressPattern } from '../pattern-model';
import { governPolicy, POLICY_SLOT, type GovernanceAction } from '../policy-model';
import { renderPattern, renderPolicy, renderRule } from '../render';
import { evaluateRules, newRule, RULE_SLOT, transitionRule, type RuleState } from '../rule-model';
import type { RuleConditions, RuleEffect } from '../../../model/learning/slots';
import { taskRequest, type RawTaskRequest } from '../request';
import type { LearningCtx } from '../context';
import { patternView, policyContractOf, policyMemoryView, ruleView } from '../views';

/**
 * Operator routes: policy governance, pattern suppression, rule state and evaluation. Each
 * change goes through the scope's serial section and is persisted before it is answered.
 */

export async function applyGovernance(ctx: LearningCtx, ref: ScopeRef, i: { policy_memory_id: string; action: GovernanceAction; reason: string }, actor: string) {
  const state = await ctx.scope(ref);
  return state.serial(async () => {
    const p = state.policies.get(i.policy_memory_id);
    if (!p) throw notFound('policy memory', i.policy_memory_id, ref.scope, { policy_memory_id: i.policy_memory_id });
    const next = governPolicy(p.slot, i.action, actor, i.reason, ctx.clock.now().toISOString(), p.node.id);
    const node = await ctx.persist.update(ref, p.node.id, POLICY_SLOT, next, renderPolicy(next), next.confidence, p.node.tier === 'archive');
    if (!node) throw notFound('policy memory', i.policy_memory_id, ref.scope, { policy_memory_id: i.policy_memory_id });
    state.apply(node);
    const after = state.policies.get(node.id)!;
    // next_state and live_policy_contract say again, where existing clients read them, what policy_memory shows.
    return { action: i.action, previous_state: p.slot.state, next_state: after.slot.state, policy_memory: policyMemoryView(after), live_policy_contract: policyContractOf(after) };
  });
}

export async function setSuppressed(ctx: LearningCtx, ref: ScopeRef, i: { pattern_id: string; reason: string }, actor: string, suppressed: boolean) {
  const state = await ctx.scope(ref);
  return state.serial(async () => {
    const p = state.patterns.get(i.pattern_id);
    if (!p) throw notFound('pattern', i.pattern_id, ref.scope, { pattern_id: i.pattern_id });
    const at = ctx.clock.now().toISOString();
    const next = suppressed ? suppressPattern(p.slot, actor, i.reason, at) : unsuppressPattern(p.slot, actor, i.reason, at);
    if (next === p.slot) return { pattern: patternView(p), changed: false };
    const node = await ctx.persist.update(ref, p.node.id, PATTERN_SLOT, next, renderPattern(next, next.label), patternConfidence(next), p.node.tier === 'archive');
    if (node) state.apply(node);
    return { pattern: patternView(state.patterns.get(p.node.id)!), changed: true };
  });
}

export const ruleClientId = (ruleId: string) => `lore:rule:${ruleId}`;

export async function setRuleState(
  ctx: LearningCtx,
  ref: ScopeRef,
  i: {
    rule_id?: string;
    rule_node_id?: string;
    state: RuleState;
    rule?: { description?: string | null; conditions: RuleConditions; effects: RuleEffect[]; priority: number };
    reason: string;
  },
  actor: string,
) {
  const state = await ctx.scope(ref);
  return state.serial(async () => {
    const at = ctx.clock.now().toISOString();
    const existing = i.rule_node_id
      ? state.rules.get(i.rule_node_id)
      : // Existing clients name a rule by its node id in rule_id: the caller's rule id first, then that.
        ([...state.rules.values()].find((r) => r.slot.rule_id === i.rule_id) ?? (i.rule_id ? state.rules.get(i.rule_id) : undefined));
    if (!existing) {
      if (i.rule_node_id || !i.rule_id) throw notFound('rule', (i.rule_node_id ?? i.rule_id)!, ref.scope, { rule_node_id: i.rule_node_id, rule_id: i.rule_id });
      if (!i.rule) {
        throw new LoreError('not_found', `rule '${i.rule_id}' does not exist in scope '${ref.scope}'; to create it, send rule {conditions, effects}`, { rule_id: i.rule_id });
      }
      const slot = newRule(
        { rule_id: i.rule_id, description: i.rule.description ?? null, conditions: i.rule.conditions, effects: i.rule.effects, priority: i.rule.priority },
        i.state,
        actor,
        i.reason,
        at,
      );
      const node = await ctx.persist.create(ref, actor, {
        client_id: ruleClientId(i.rule_id),
        type: 'rule',
        kind: null,
        slotName: RULE_SLOT,
        slot,
        rendered: renderRule(slot),
        confidence: 1,
        tags: ['lore:rule'],
      });
      await new RuleRegistry(ctx.db, ref).register(node.id, i.rule_id, at);
      state.apply(node);
      return { rule: ruleView(state.rules.get(node.id)!), previous_state: null, created: true };
    }
    let next = transitionRule(existing.slot, i.state, actor, i.reason, at, existing.node.id);
    // A definition sent with a state change replaces the conditions and effects.
    if (i.rule) next = { ...next, description: i.rule.description ?? next.description, conditions: i.rule.conditions, effects: i.rule.effects, priority: i.rule.priority };
    if (next !== existing.slot) {
      const node = await ctx.persist.update(ref, existing.node.id, RULE_SLOT, next, renderRule(next), 1, existing.node.tier === 'archive');
      if (node) state.apply(node);
    }
    return { rule: ruleView(state.rules.get(existing.node.id)!), previous_state: existing.slot.state, created: false };
  });
}

export async function evaluateRulesFor(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest) {
  const state = await ctx.scope(ref);
  const r = taskRequest(raw);
  const e = evaluateRules(
    [...state.rules.values()].map((x) => ({ id: x.node.id, slot: x.slot })),
    { task_kind: r.task_kind, terms: new Set(r.terms), file_path: r.file_path, candidates: r.candidates },
  );
  return {
    evaluation: { matched: e.matched, applied: { prefer: e.prefer, deny: e.deny }, shadow: { prefer: e.shadow_prefer, deny: e.shadow_deny } },
    candidates_after: [...e.prefer.filter((t) => r.candidates.length === 0 || r.candidates.includes(t)), ...r.candidates.filter((t) => !e.prefer.includes(t))].filter(
      (t) => !e.deny.includes(t),
    ),
  };
}
