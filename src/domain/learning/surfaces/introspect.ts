import type { ScopeRef } from '../../../store/scope';
import { patternClass } from '../pattern-model';
import type { LearningCtx } from '../context';
import type { CarrierMeta, Learned, ScopeLearning } from '../scope-state';
import { emptyOriginCounts } from '../types';
import { patternView, policyLine, policyMemoryView, workflowView } from '../views';
import type { WorkflowHead } from '../workflow-model';
import { declaredAnchors, withForgetting } from './anchors';
import type { Entry } from './packet';
import { originSummaries, scopeOriginCounts } from './summary';

/**
 * execution/introspect (contract.md §2): what this scope has learned, for a person or an agent
 * to inspect: workflows (stable first), patterns, policy memories, and the continuity carriers
 * (handoffs, sessions) learning reads, and the workflow anchors callers declared (anchors.ts);
 * supporting knowledge with every persisted policy memory;
 * the execution summary with the forgetting summary; distillation origin counts.
 */

const byStrength = (a: Learned<WorkflowHead>, b: Learned<WorkflowHead>) =>
  Number(b.slot.promotion_state === 'stable') - Number(a.slot.promotion_state === 'stable') ||
  b.slot.counts.successes - a.slot.counts.successes ||
  (a.node.updated_at < b.node.updated_at ? 1 : -1);

const carrierEntry = (c: CarrierMeta): Entry => ({
  id: c.id,
  kind: c.kind,
  line: `[${c.kind}${c.anchor ? ` ${c.anchor}` : ''}] ${c.title ? `${c.title}: ` : ''}${c.summary}`,
  relevance: null,
  anchor: c.anchor,
  tier: c.tier,
  updated_at: c.updated_at,
});

export function countsOf(state: ScopeLearning) {
  const wf = [...state.workflows.values()];
  const patterns = [...state.patterns.values()].map((p) => patternClass(p.slot));
  const policies = [...state.policies.values()].map((p) => p.slot.state);
  const rules = [...state.rules.values()].map((r) => r.slot.state);
  const carriers = [...state.carriers.values()];
  const n = <T>(list: T[], v: T) => list.filter((x) => x === v).length;
  return {
    workflow_counts: {
      total: wf.length,
      stable: wf.filter((w) => w.slot.promotion_state === 'stable').length,
      candidate: wf.filter((w) => w.slot.promotion_state === 'candidate').length,
      promotion_ready: wf.filter((w) => w.slot.promotion_ready).length,
    },
    pattern_counts: { observed: n(patterns, 'observed'), trusted: n(patterns, 'trusted'), contested: n(patterns, 'contested'), suppressed: n(patterns, 'suppressed') },
    policy_counts: { active: n(policies, 'active'), contested: n(policies, 'contested'), retired: n(policies, 'retired') },
    rule_counts: { draft: n(rules, 'draft'), shadow: n(rules, 'shadow'), active: n(rules, 'active'), disabled: n(rules, 'disabled') },
    continuity_carrier_counts: {
      handoffs: carriers.filter((c) => c.kind === 'handoff').length,
      sessions: carriers.filter((c) => c.kind === 'session').length,
      session_events: state.sessionEventCount,
    },
  };
}

export async function executionIntrospect(ctx: LearningCtx, ref: ScopeRef, opts: { limit: number }) {
  const state = await ctx.scope(ref);
  const limit = opts.limit;
  const workflows = [...state.workflows.values()].sort(byStrength).slice(0, limit);
  const patterns = [...state.patterns.values()].sort((a, b) => (a.node.updated_at < b.node.updated_at ? 1 : -1)).slice(0, limit);
  const policies = [...state.policies.values()].sort((a, b) => (a.node.updated_at < b.node.updated_at ? 1 : -1));
  const latest = (kind: string) =>
    [...state.carriers.values()]
      .filter((c) => c.kind === kind)
      .sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))
      .slice(0, limit);
  const learned = workflows.map((w): Entry => ({ ...workflowView(w), id: w.node.id, kind: 'workflow', relevance: null, source: 'learned' }));
  const sections = {
    // Learned workflows, then the workflow anchors callers declared; each with its forgetting state.
    workflows: await withForgetting(ctx, ref, [...learned, ...(await declaredAnchors(ctx, ref, limit))]),
    patterns: patterns.map((p): Entry => ({ ...patternView(p), id: p.node.id, kind: 'pattern', relevance: null })),
    policies: policies.slice(0, limit).map((p): Entry => ({ id: p.node.id, kind: 'policy_memory', line: policyLine(p), relevance: null, policy_memory: policyMemoryView(p) })),
    handoffs: latest('handoff').map(carrierEntry),
    sessions: latest('session').map(carrierEntry),
  };
  const merged = Object.entries(sections)
    .filter(([, list]) => list.length > 0)
    .map(([name, list]) => `${name}:\n${list.map((e) => `- ${e.line}`).join('\n')}`)
    .join('\n\n');
  const observed = emptyOriginCounts();
  for (const w of state.workflows.values()) for (const [k, v] of Object.entries(w.slot.origin_counts)) observed[k as keyof typeof observed] += v;
  const supporting: Entry[] = [
    ...policies.map((p): Entry => ({ id: p.node.id, kind: 'policy_memory', line: policyLine(p), relevance: null, policy_memory: policyMemoryView(p) })),
    ...workflows.filter((w) => w.slot.promotion_state === 'stable').map((w): Entry => ({ id: w.node.id, kind: 'workflow', line: workflowView(w).line, relevance: null })),
  ];
  return {
    demo_surface: { sections, merged_text: merged || 'Nothing learned in this scope yet.' },
    supporting_knowledge: supporting,
    execution_summary: { forgetting_summary: await ctx.lifecycle.forgettingSummary(ref), ...countsOf(state) },
    // The carriers and origins behind every workflow of the scope (planning_summary's shapes).
    ...originSummaries(
      state,
      [...state.workflows.values()].map((w) => w.slot),
    ),
    execution_native_v1: { distillation: { origin_counts: scopeOriginCounts(state), observation_origin_counts: observed, workflow_count: state.workflows.size } },
  };
}
