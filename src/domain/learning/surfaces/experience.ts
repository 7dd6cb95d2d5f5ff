import type { ScopeRef } from '../../../store/scope';
import type { PolicyMatch } from '../matches';
import type { Plan } from '../planner';
import type { RawTaskRequest } from '../request';
import type { LearningCtx } from '../context';
import type { ScopeLearning } from '../scope-state';
import { policyContractOf, policyMemoryView, workflowView } from '../views';
import { planFor, taskFamilyView } from './common';
import type { PolicySource } from '../../../model/learning/vocabulary';

/**
 * experience/intelligence (contract.md §2 and §3): workflow and tool guidance with the policy
 * objects of the interface spec. policy_contract is the persisted policy memory of the task's
 * family when there is one (whatever its state: a retired one says so and does not apply), else a
 * contract computed from the ranking (materialization_state computed).
 */

export function policyHints(p: Plan) {
  const contested = [
    ...new Set([
      ...p.patterns.filter((m) => m.cls === 'contested').map((m) => m.entry.slot.tool),
      ...p.policies.filter((m) => m.entry.slot.state === 'contested').map((m) => m.entry.slot.tool),
    ]),
  ];
  const avoid = [...new Set([...p.policies.filter((m) => m.applies).flatMap((m) => m.entry.slot.avoid_tools), ...contested])].filter((t) => t !== p.selected_tool);
  const fa = p.first_action;
  return {
    preferred_tool: p.selected_tool,
    avoid_tools: avoid,
    contested_tools: contested,
    rehydration_suggested: p.archived.length > 0,
    workflow_reuse: !!fa && (fa.source_kind === 'stable_workflow' || fa.source_kind === 'candidate_workflow' || fa.source_kind === 'replay_playbook'),
    denied_tools: p.rules.deny,
  };
}

export function derivedPolicy(p: Plan) {
  const top = p.ranking.find((t) => t.tool === p.selected_tool);
  const kinds = top?.source_kinds ?? [];
  const fromPattern = kinds.includes('trusted_pattern') || kinds.includes('policy_memory');
  const fromWorkflow = kinds.includes('stable_workflow') || kinds.includes('replay_playbook');
  const source = fromPattern && fromWorkflow ? 'blended' : fromPattern ? 'trusted_pattern' : fromWorkflow ? 'stable_workflow' : null;
  const wf = p.workflows.find((m) => m.entry.slot.steps.some((s) => s.tool === p.selected_tool));
  const step = wf?.entry.slot.steps.find((s) => s.tool === p.selected_tool && s.file_path);
  return {
    selected_tool: p.selected_tool,
    source: source as PolicySource | null,
    file_path: step?.file_path ?? p.first_action?.file_path ?? null,
    target_files: wf?.entry.slot.target_files ?? [],
    reason: top && p.selected_tool ? top.reasons.filter((r) => !r.includes('not applied')).join('; ') : 'no learned evidence selects a tool for this task',
    evidence_ids: top?.evidence_ids ?? [],
  };
}

/** The persisted policy that speaks for this task: for the selected tool first, active before others. */
export function persistedPolicy(p: Plan): PolicyMatch | null {
  const rank = (m: PolicyMatch) => (m.entry.slot.tool === p.selected_tool ? 2 : 0) + (m.applies ? 1 : 0);
  return [...p.policies].sort((a, b) => rank(b) - rank(a) || b.score - a.score)[0] ?? null;
}

export function policyContract(p: Plan) {
  const persisted = persistedPolicy(p);
  if (persisted) return policyContractOf(persisted.entry);
  const d = derivedPolicy(p);
  return {
    policy_memory_id: null,
    materialization_state: 'computed' as const,
    policy_memory_state: d.selected_tool ? ('active' as const) : null,
    activation_mode: d.source === 'trusted_pattern' || d.source === 'blended' ? ('default' as const) : ('hint' as const),
    applies: d.selected_tool !== null,
    selected_tool: d.selected_tool,
    avoid_tools: policyHints(p).avoid_tools,
    task_family: null,
    task_family_label: null,
    task_kind: p.request.task_kind,
    source: d.source,
    file_path: d.file_path,
    target_files: d.target_files,
    supporting_anchor_ids: d.evidence_ids,
    reason: d.reason,
    confidence: p.uncertainty.confidence,
    history: [],
  };
}

export function experienceView(state: ScopeLearning, p: Plan) {
  const persisted = persistedPolicy(p);
  const fa = p.first_action;
  const top = p.workflows[0];
  return {
    recommended_workflows: p.workflows.slice(0, 5).map((m) => workflowView(m.entry, m.score)),
    selected_tool: p.selected_tool,
    tool_ranking: p.ranking,
    policy_hints: policyHints(p),
    derived_policy: derivedPolicy(p),
    policy_contract: policyContract(p),
    policy_memory: persisted && persisted.applies ? policyMemoryView(persisted.entry) : null,
    path: {
      file_path: fa?.file_path ?? derivedPolicy(p).file_path,
      target_files: top?.entry.slot.target_files ?? [],
      next_action: fa?.next_action ?? null,
    },
    history_applied: fa !== null || p.selected_tool !== null,
    uncertainty: p.uncertainty,
    task_family: taskFamilyView(state, p.request),
  };
}

export async function experienceIntelligence(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest) {
  const { state, plan } = await planFor(ctx, ref, raw);
  return experienceView(state, plan);
}
