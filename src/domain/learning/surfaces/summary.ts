import type { ScopeRef } from '../../../store/scope';
import type { LearningCtx } from '../context';
import type { Plan } from '../planner';
import type { ScopeLearning } from '../scope-state';
import type { WorkflowHead } from '../workflow-model';
import type { PacketReads } from './packet';
import { CONTINUITY_ORIGINS, emptyOriginCounts } from '../types';
import type { OriginCounts } from '../../../model/learning/slots';
import { actionRetrievalGate } from './gate';

/**
 * planning_summary (contract.md §2): the forgetting summary from the lifecycle family, the
 * continuity carriers and distillation origins behind the workflows this answer surfaces (and the
 * scope's totals), counts, the selected tool, one sentence that explains the plan, and its
 * uncertainty and action-retrieval gate.
 */

export function scopeOriginCounts(state: ScopeLearning): OriginCounts {
  return state.scopeOriginCounts();
}

export function explain(p: Plan): string {
  const fa = p.first_action;
  if (fa) {
    const where = [fa.selected_tool, fa.file_path].filter(Boolean).join(' ');
    const basis =
      fa.source_kind === 'recall'
        ? 'one similar earlier execution (not yet learned from repetition)'
        : fa.source_kind === 'policy_memory'
          ? 'an active policy memory'
          : fa.source_kind === 'trusted_pattern'
            ? 'a trusted tool pattern'
            : `a ${fa.source_kind.replace('_', ' ')}`;
    return `Start with ${where || fa.next_action}: ${basis} matches this task (relevance ${fa.relevance}, confidence ${fa.confidence}).`;
  }
  if (p.archived.length > 0) return `Only archived workflows match this task; rehydrate ${p.archived[0]!.entry.node.id} before relying on it.`;
  if (p.workflows.length + p.patterns.length > 0) return 'Related learned knowledge exists but is not relevant enough to act on; inspect the context before choosing a first step.';
  return 'No learned workflow, pattern or policy matches this task; widen recall and inspect the context before acting.';
}

/**
 * The continuity carriers and distillation origins behind some workflows (those an answer
 * surfaces, or every workflow of the scope for execution/introspect), with the scope's totals.
 */
export function originSummaries(state: ScopeLearning, surfaced: Pick<WorkflowHead, 'distillation_origin' | 'origin_counts' | 'promotion_ready'>[]) {
  const origin = emptyOriginCounts();
  const observed = emptyOriginCounts();
  for (const w of surfaced) {
    origin[w.distillation_origin] += 1;
    for (const k of Object.keys(observed) as (keyof OriginCounts)[]) observed[k] += w.origin_counts[k];
  }
  return {
    continuity_carrier_summary: {
      total_count: CONTINUITY_ORIGINS.reduce((n, o) => n + origin[o], 0),
      handoff_count: origin.handoff_continuity_carrier,
      session_event_count: origin.session_event_continuity_carrier,
      session_count: origin.session_continuity_carrier,
      scope_carrier_counts: { handoffs: state.carrierCount('handoff'), sessions: state.carrierCount('session'), session_events: state.sessionEventCount },
    },
    distillation_signal_summary: {
      origin_counts: origin,
      scope_origin_counts: scopeOriginCounts(state),
      observation_origin_counts: observed,
      workflow_count: state.workflows.size,
      promotion_ready_count: surfaced.filter((w) => w.promotion_ready).length,
    },
  };
}

export async function planningSummary(ctx: LearningCtx, ref: ScopeRef, state: ScopeLearning, p: Plan, reads?: Pick<PacketReads, 'forgetting'>) {
  return {
    forgetting_summary: await (reads ? reads.forgetting : ctx.lifecycle.forgettingSummary(ref)),
    ...originSummaries(
      state,
      [...p.workflows, ...p.archived].map((m) => m.entry.slot),
    ),
    counts: {
      workflows: p.workflows.length,
      stable_workflows: p.workflows.filter((m) => m.entry.slot.promotion_state === 'stable').length,
      candidate_workflows: p.workflows.filter((m) => m.entry.slot.promotion_state === 'candidate').length,
      rehydration_candidates: p.archived.length,
      patterns: p.patterns.length,
      trusted_patterns: p.patterns.filter((m) => m.cls === 'trusted').length,
      contested_patterns: p.patterns.filter((m) => m.cls === 'contested').length,
      suppressed_patterns: p.patterns.filter((m) => m.cls === 'suppressed').length,
      policy_memories: p.policies.length,
      active_policy_memories: p.policies.filter((m) => m.applies).length,
      rules_applied: p.rules.matched.filter((m) => m.applied).length,
    },
    selected_tool: p.selected_tool,
    history_applied: p.first_action !== null,
    planner_explanation: explain(p),
    // The plan's uncertainty and gate, where existing clients read them (gate.ts).
    action_retrieval_uncertainty: p.uncertainty,
    action_retrieval_gate: actionRetrievalGate(p),
  };
}
