import { LoreError } from '../../../contract/errors';
import type { ScopeRef } from '../../../store/scope';
import type { RawTaskRequest } from '../request';
import type { LearningCtx } from '../context';
import { continuityReviewPack } from './continuity';
import { derivedPolicy } from './experience';
import { evolutionReview } from './evolution';
import { latestGovernanceResult } from './recommendations';

/**
 * The agent memory surfaces (`/v1/memory/agent/inspect`, `review-pack`, `resume-pack`,
 * `handoff-pack`): an extension outside the interface spec's table, served because the existing
 * SDK's `memory.agent.*` methods call them (docs/compatibility.md). Nothing here is learned or
 * decided anew: each answer is the evolution review pack of the task and, when an anchor is given,
 * the continuity review pack of that anchor, summed up in the fields an agent reads first
 * (`agent_memory_summary`): what to do first, what is learned for the task, and how its policy
 * memory stands — the selected policy memory, its state and the last governance action on it.
 */

export type AgentInput = RawTaskRequest & { anchor?: string | null };

type ContinuityPack = Awaited<ReturnType<typeof continuityReviewPack>>['continuity_review_pack'];

async function continuityOf(ctx: LearningCtx, ref: ScopeRef, anchor: string | null | undefined): Promise<ContinuityPack | null> {
  if (!anchor) return null;
  try {
    return (await continuityReviewPack(ctx, ref, anchor)).continuity_review_pack;
  } catch (err) {
    // An anchor nothing names: no continuity to report, which the summary says (has_continuity false).
    if (err instanceof LoreError && err.code === 'not_found') return null;
    throw err;
  }
}

export async function agentInspect(ctx: LearningCtx, ref: ScopeRef, raw: AgentInput, actor: string) {
  const [{ state, plan, policies, pack }, continuity] = await Promise.all([evolutionReview(ctx, ref, raw, actor), continuityOf(ctx, ref, raw.anchor)]);
  const inspect = pack.evolution_inspect;
  const contract = inspect.policy_contract;
  const selected = contract.materialization_state === 'persisted' && contract.policy_memory_id ? (state.policies.get(contract.policy_memory_id) ?? null) : null;
  const lastGovernance = selected ? (latestGovernanceResult([selected]) ?? null) : null;
  const derived = derivedPolicy(plan);
  const proposals = inspect.policy_governance_contract.proposals;
  const fa = plan.first_action;
  const evidence = continuity?.anchor_evidence ?? [];
  const summary = {
    summary_version: 'agent_memory_inspect_summary_v1' as const,
    has_continuity: continuity !== null,
    latest_handoff_anchor: continuity?.latest_handoff?.anchor ?? null,
    latest_resume_source_kind: continuity?.latest_resume ? ('session_event' as const) : null,
    selected_tool: plan.selected_tool,
    recommended_file_path: fa?.file_path ?? derived.file_path,
    recommended_next_action: fa?.next_action ?? null,
    history_applied: fa !== null,
    stable_workflow_count: pack.stable_workflows.length,
    promotion_ready_workflow_count: pack.promotion_ready_workflows.length,
    trusted_pattern_count: pack.trusted_patterns.length,
    suppressed_pattern_count: pack.suppressed_patterns.length,
    handoff_related_items: evidence.filter((e) => e.source_kind === 'handoff').length,
    resume_related_items: evidence.filter((e) => e.source_kind === 'session_event' || e.source_kind === 'session').length,
    derived_policy_source_kind: derived.source,
    derived_policy_selected_tool: derived.selected_tool,
    // Backed by a trusted pattern or a stable workflow: stable; a tool ranked from candidates only: candidate.
    derived_policy_state: derived.source ? ('stable' as const) : derived.selected_tool ? ('candidate' as const) : null,
    policy_activation_mode: selected ? selected.slot.activation_mode : null,
    policy_review_recommended: proposals.length > 0 || policies.some((p) => p.slot.state === 'contested'),
    contested_policy_count: policies.filter((p) => p.slot.state === 'contested').length,
    retired_policy_count: policies.filter((p) => p.slot.state === 'retired').length,
    selected_policy_memory_id: selected?.node.id ?? null,
    selected_policy_memory_state: selected?.slot.state ?? null,
    policy_governance_action: lastGovernance?.action ?? ('none' as const),
    policy_governance_applied_at: lastGovernance?.applied_at ?? null,
    policy_governance_proposed_action: proposals[0]?.action ?? ('none' as const),
    policy_governance_review_required: proposals.length > 0,
    policy_governance_apply_payload: inspect.policy_governance_apply_payload ?? null,
    policy_governance_auto_applied: false,
  };
  return {
    summary_version: 'agent_memory_inspect_v1' as const,
    query_text: plan.request.text ?? plan.request.goal ?? '',
    agent_memory_summary: summary,
    continuity_review_pack: continuity,
    evolution_review_pack: pack,
    derived_policy: inspect.derived_policy,
    policy_contract: contract,
    policy_review: inspect.policy_review,
    policy_governance_contract: inspect.policy_governance_contract,
    policy_governance_apply_payload: inspect.policy_governance_apply_payload ?? null,
    policy_governance_apply_result: inspect.policy_governance_apply_result ?? null,
  };
}

type Inspect = Awaited<ReturnType<typeof agentInspect>>;

/** What the review, resume and handoff packs share: the learned anchors of the task. */
function anchors(i: Inspect) {
  const p = i.evolution_review_pack;
  return {
    stable_workflow_anchor_id: p.stable_workflows[0]?.workflow_id ?? null,
    promotion_ready_anchor_ids: p.promotion_ready_workflows.map((w) => w.workflow_id),
    trusted_pattern_anchor_ids: p.trusted_patterns.map((x) => x.pattern_id),
    suppressed_pattern_anchor_ids: p.suppressed_patterns.map((x) => x.pattern_id),
  };
}

/** The policy parts every pack repeats from the inspect answer. */
const policyParts = (i: Inspect) => ({
  derived_policy: i.derived_policy,
  policy_contract: i.policy_contract,
  policy_governance_apply_payload: i.policy_governance_apply_payload,
  policy_governance_apply_result: i.policy_governance_apply_result,
});

const handoffOf = (i: Inspect) => i.continuity_review_pack?.recovered_handoff ?? null;
const contractOf = (i: Inspect) => i.continuity_review_pack?.review_contract ?? null;
/** Rollback is expected when the handoff (or its evidence) recorded rollback notes. */
const rollbackRequired = (i: Inspect) => (handoffOf(i)?.rollback_notes.length ?? 0) > 0;

export async function agentReviewPack(ctx: LearningCtx, ref: ScopeRef, raw: AgentInput, actor: string) {
  const i = await agentInspect(ctx, ref, raw, actor);
  const s = i.agent_memory_summary;
  const c = contractOf(i);
  return {
    summary_version: 'agent_memory_review_pack_v1' as const,
    query_text: i.query_text,
    agent_memory_inspect: i,
    agent_memory_review_pack: {
      pack_version: 'agent_memory_review_pack_v1' as const,
      selected_tool: s.selected_tool,
      recommended_file_path: s.recommended_file_path,
      recommended_next_action: s.recommended_next_action,
      latest_handoff_anchor: s.latest_handoff_anchor,
      latest_resume_source_kind: s.latest_resume_source_kind,
      ...anchors(i),
      contested_pattern_anchor_ids: i.evolution_review_pack.contested_patterns.map((x) => x.pattern_id),
      handoff_target_files: c?.target_files ?? [],
      acceptance_checks: c?.acceptance_checks ?? [],
      rollback_required: rollbackRequired(i),
      resume_ready: c?.resume_ready ?? false,
      blockers: c?.blockers ?? [],
      ...policyParts(i),
      policy_review: i.policy_review,
      policy_governance_contract: i.policy_governance_contract,
    },
  };
}

export async function agentResumePack(ctx: LearningCtx, ref: ScopeRef, raw: AgentInput, actor: string) {
  const i = await agentInspect(ctx, ref, raw, actor);
  const s = i.agent_memory_summary;
  const h = handoffOf(i);
  const c = contractOf(i);
  return {
    summary_version: 'agent_memory_resume_pack_v1' as const,
    query_text: i.query_text,
    agent_memory_inspect: i,
    agent_memory_resume_pack: {
      pack_version: 'agent_memory_resume_pack_v1' as const,
      latest_handoff_anchor: s.latest_handoff_anchor,
      latest_resume_source_kind: s.latest_resume_source_kind,
      resume_selected_tool: s.selected_tool,
      resume_file_path: c?.target_files[0] ?? s.recommended_file_path,
      resume_target_files: c?.target_files ?? [],
      resume_next_action: c?.next_action ?? s.recommended_next_action,
      resume_ready: c?.resume_ready ?? false,
      blockers: c?.blockers ?? [],
      ...anchors(i),
      rollback_required: rollbackRequired(i),
      recovered_handoff: h,
      ...policyParts(i),
    },
  };
}

export async function agentHandoffPack(ctx: LearningCtx, ref: ScopeRef, raw: AgentInput, actor: string) {
  const i = await agentInspect(ctx, ref, raw, actor);
  const h = handoffOf(i);
  const c = contractOf(i);
  return {
    summary_version: 'agent_memory_handoff_pack_v1' as const,
    query_text: i.query_text,
    agent_memory_inspect: i,
    agent_memory_handoff_pack: {
      pack_version: 'agent_memory_handoff_pack_v1' as const,
      latest_handoff_anchor: i.agent_memory_summary.latest_handoff_anchor,
      handoff_kind: h?.handoff_kind ?? null,
      handoff_target_files: c?.target_files ?? [],
      handoff_next_action: c?.next_action ?? null,
      acceptance_checks: c?.acceptance_checks ?? [],
      rollback_required: rollbackRequired(i),
      ...anchors(i),
      recovered_handoff: h,
      ...policyParts(i),
    },
  };
}
