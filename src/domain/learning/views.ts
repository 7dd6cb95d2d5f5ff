import { patternClass, patternConfidence, type PatternSlot } from './pattern-model';
import type { PolicySlot } from './policy-model';
import { renderPattern, renderPolicy, renderWorkflow, stepLine } from './render';
import type { RuleSlot } from '../../model/learning/slots';
import type { Learned } from './scope-state';
import type { Signals } from './score';
import { requiredObservations, workflowConfidence, type WorkflowHead, type WorkflowSlot } from './workflow-model';

/** How learned objects look on the wire (contract learning-schemas.ts). */

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function workflowView(w: Learned<WorkflowHead>, relevance: number | null = null) {
  const s = w.slot;
  const first = s.steps[0];
  return {
    workflow_id: w.node.id,
    client_id: w.node.client_id,
    task_family: s.family_id,
    goal: s.goal,
    task_kind: s.task_kind,
    promotion_state: s.promotion_state,
    promotion_ready: s.promotion_ready,
    stable_reason: s.stable_reason,
    distillation_origin: s.distillation_origin,
    origin_counts: s.origin_counts,
    steps: s.steps,
    target_files: s.target_files,
    counts: s.counts,
    observed_count: s.counts.successes,
    required_observations: requiredObservations(s),
    consistent_first_step: s.consistent_first_step,
    provenance_ids: s.provenance_ids.slice(-50),
    playbook_ids: s.playbook_ids,
    tier: w.node.tier,
    confidence: r3(workflowConfidence(s)),
    relevance: relevance === null ? null : r3(relevance),
    line: `[${s.promotion_state} workflow${w.node.tier === 'archive' ? ', archived' : ''}] ${s.goal}${first ? ` — first: ${stepLine(first)}` : ''} (${s.counts.successes} runs, origin ${s.distillation_origin})`,
    updated_at: w.node.updated_at,
  };
}

export function patternView(p: Learned<PatternSlot>, relevance: number | null = null) {
  const s = p.slot;
  return {
    pattern_id: p.node.id,
    tool: s.tool,
    task_family: s.family_id,
    task_family_label: s.label,
    task_kind: s.task_kind,
    state: patternClass(s),
    underlying_state: s.state,
    suppressed: s.suppressed,
    distinct_positive_runs: s.positive_runs.length,
    distinct_negative_runs: s.negative_runs.length,
    fresh_positive_runs: s.fresh_positive_runs.length,
    open_counter_evidence: s.open_counter_runs.length,
    counts: s.counts,
    trusted_at: s.trusted_at,
    contested_at: s.contested_at,
    confidence: r3(patternConfidence(s)),
    relevance: relevance === null ? null : r3(relevance),
    history: s.history.map((h) => ({ at: h.at, from: h.from, to: h.to, actor: h.actor, reason: h.reason, trigger: h.trigger })),
    line: `[${patternClass(s)} pattern] ${renderPattern(s, s.label).summary} (${s.positive_runs.length}+/${s.negative_runs.length}- runs)`,
  };
}

export function policyContractOf(p: Learned<PolicySlot>) {
  const s = p.slot;
  return {
    policy_memory_id: p.node.id,
    materialization_state: 'persisted' as const,
    policy_memory_state: s.state,
    activation_mode: s.activation_mode,
    applies: s.state === 'active',
    selected_tool: s.tool,
    avoid_tools: s.avoid_tools,
    task_family: s.family_id,
    task_family_label: s.family_label,
    task_kind: s.task_kind,
    source: s.source,
    file_path: s.file_path,
    target_files: s.target_files,
    supporting_anchor_ids: s.supporting_anchor_ids,
    reason: s.reason,
    confidence: r3(s.confidence),
    history: s.history.map((h) => ({ at: h.at, actor: h.actor, action: h.action, from: h.from, to: h.to, reason: h.reason, trigger: h.trigger })),
  };
}

export function policyMemoryView(p: Learned<PolicySlot>) {
  return {
    node_id: p.node.id,
    // The contract's state, tool and mode again, where existing clients read them.
    policy_memory_state: p.slot.state,
    selected_tool: p.slot.tool,
    activation_mode: p.slot.activation_mode,
    policy_contract: policyContractOf(p),
    counts: p.slot.counts,
    updated_at: p.node.updated_at,
  };
}

export const policyLine = (p: Learned<PolicySlot>) => `[${p.slot.state} policy memory] ${renderPolicy(p.slot).summary}`;

export function ruleView(r: Learned<RuleSlot>) {
  const s = r.slot;
  return {
    rule_node_id: r.node.id,
    rule_id: s.rule_id,
    state: s.state,
    description: s.description,
    conditions: s.conditions,
    effects: s.effects,
    priority: s.priority,
    history: s.history,
  };
}

export function signalView(id: string, kind: string, state: string, score: number, s: Signals, line: string) {
  return {
    id,
    kind,
    state,
    relevance: r3(score),
    lexical: r3(s.lexical),
    dense: s.dense === null ? null : r3(s.dense),
    dense_baseline: s.dense_baseline === null || s.dense_baseline === undefined ? null : r3(s.dense_baseline),
    task_kind_match: s.kind,
    file_match: s.files,
    line,
  };
}

export const workflowText = (w: WorkflowSlot) => renderWorkflow(w).text;
