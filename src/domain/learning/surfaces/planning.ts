import type { ScopeRef } from '../../../store/scope';
import { taskRequest, taskText, type RawTaskRequest } from '../request';
import type { LearningCtx } from '../context';
import { patternView, signalView, workflowView } from '../views';
import { planFor } from './common';
import { operatorProjection } from './gate';
import { kickoffRecommendation } from './kickoff';
import { plannerPacket, startPacketReads, type Packet } from './packet';
import { planningSummary } from './summary';

/** planning/context (contract.md §2). */

export function layeredContext(packet: Packet) {
  const s = packet.sections;
  const layer = (name: string, entries: { id: string; line: string }[]) => ({ name, text: entries.map((e) => `- ${e.line}`).join('\n'), ids: entries.map((e) => e.id) });
  const layers = [
    layer('workflows', [...s.recommended_workflows, ...s.candidate_workflows]),
    layer('patterns', [...s.trusted_patterns, ...s.contested_patterns]),
    layer('rehydration', s.rehydration_candidates),
    layer('supporting_knowledge', s.supporting_knowledge),
  ].filter((l) => l.ids.length > 0);
  return { layers, text: packet.merged_text };
}

export async function planningContext(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest & { return_layered_context?: boolean }) {
  const request = taskRequest(raw);
  // Reads that need only the task's text start now and overlap the plan.
  const reads = startPacketReads(ctx, ref, taskText(request));
  const { state, plan } = await planFor(ctx, ref, raw, request);
  const [packet, summary] = await Promise.all([plannerPacket(ctx, ref, plan, reads), planningSummary(ctx, ref, state, plan, reads)]);
  const workflowSignals = [...plan.workflows, ...plan.archived].map((m) => {
    const w = workflowView(m.entry, m.score);
    return {
      ...signalView(m.entry.node.id, 'workflow', m.entry.node.tier === 'archive' ? 'archived' : m.entry.slot.promotion_state, m.score, m.signals, w.line),
      observed_count: w.observed_count,
      required_observations: w.required_observations,
    };
  });
  const patternSignals = plan.patterns.map((m) => signalView(m.entry.node.id, 'pattern', m.cls, m.score, m.signals, patternView(m.entry, m.score).line));
  return {
    first_action: plan.first_action,
    kickoff_recommendation: kickoffRecommendation(plan),
    planner_packet: packet,
    workflow_signals: workflowSignals,
    pattern_signals: patternSignals,
    planning_summary: summary,
    uncertainty: plan.uncertainty,
    operator_projection: operatorProjection(plan),
    ...(raw.return_layered_context ? { layered_context: layeredContext(packet) } : {}),
  };
}
