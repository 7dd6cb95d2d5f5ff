import type { Plan } from '../planner';
import type { SourceKind } from '../tool-ranking';

/**
 * kickoff/recommendation (contract.md §2): first_action (or null) and the raw recommendation
 * with its rationale and the alternatives the planner weighed. Existing clients read
 * `kickoff_recommendation.{history_applied, selected_tool, file_path}` directly, so those mirror
 * first_action.
 */

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function kickoffRecommendation(p: Plan) {
  const fa = p.first_action;
  const alternatives: { source_kind: SourceKind; id: string; selected_tool: string | null; file_path: string | null; relevance: number; why: string }[] = [];
  for (const w of p.workflows) {
    if (w.entry.node.id === fa?.workflow_id) continue;
    const s = w.entry.slot;
    alternatives.push({
      source_kind: s.promotion_state === 'stable' ? 'stable_workflow' : 'candidate_workflow',
      id: w.entry.node.id,
      selected_tool: s.steps[0]?.tool ?? null,
      file_path: s.steps[0]?.file_path ?? s.target_files[0] ?? null,
      relevance: r3(w.score),
      why: `${s.promotion_state} workflow "${s.goal}"`,
    });
  }
  for (const m of p.policies) {
    if (!m.applies || m.entry.node.id === fa?.policy_memory_id) continue;
    alternatives.push({
      source_kind: 'policy_memory',
      id: m.entry.node.id,
      selected_tool: m.entry.slot.tool,
      file_path: m.entry.slot.file_path,
      relevance: r3(m.score),
      why: m.entry.slot.reason,
    });
  }
  for (const h of p.recall) {
    if (fa?.evidence_ids.includes(h.node_id)) continue;
    alternatives.push({
      source_kind: 'recall',
      id: h.node_id,
      selected_tool: h.obs.steps[0]?.tool ?? null,
      file_path: h.obs.steps[0]?.file_path ?? h.obs.target_files[0] ?? null,
      relevance: r3(h.score),
      why: 'one similar earlier execution',
    });
  }
  return {
    history_applied: fa !== null,
    selected_tool: fa?.selected_tool ?? null,
    file_path: fa?.file_path ?? null,
    next_action: fa?.next_action ?? null,
    source_kind: fa?.source_kind ?? null,
    confidence: fa?.confidence ?? 0,
    rationale: fa ? fa.rationale : p.uncertainty.reasons.join('; '),
    evidence_ids: fa?.evidence_ids ?? [],
    workflow_id: fa?.workflow_id ?? null,
    alternatives: alternatives.slice(0, 5),
  };
}
