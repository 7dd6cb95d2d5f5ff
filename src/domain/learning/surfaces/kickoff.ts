import type { Plan } from '../planner';
import type { SourceKind } from '../tool-ranking';
import { workflowConfidence } from '../workflow-model';

/**
 * kickoff/recommendation (contract.md §2): first_action (or null) and the raw recommendation
 * with its rationale and the alternatives the planner weighed: the next files of the vote (with
 * their confidence and the past tasks behind them), then other matching workflows and policies. Existing clients read
 * `kickoff_recommendation.{history_applied, selected_tool, file_path}` directly, so those mirror
 * first_action.
 */

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Ranked files shown beside the first action (the first one is the action's own). */
const FILE_ALTERNATIVES = 3;

export function kickoffRecommendation(p: Plan) {
  const fa = p.first_action;
  const alternatives: {
    source_kind: SourceKind;
    id: string;
    selected_tool: string | null;
    file_path: string | null;
    relevance: number;
    confidence: number;
    evidence_ids: string[];
    why: string;
  }[] = [];
  // The next files of the vote first: a host can show more than one place to start.
  for (const f of p.vote.files.slice(0, FILE_ALTERNATIVES)) {
    if (fa && f.file === fa.file_path) continue;
    const id = f.workflow?.entry.node.id ?? f.evidence[0];
    if (!id) continue;
    alternatives.push({
      source_kind: f.workflow ? (f.workflow.entry.slot.promotion_state === 'stable' ? 'stable_workflow' : 'candidate_workflow') : 'recall',
      id,
      selected_tool: f.tool,
      file_path: f.file,
      relevance: f.score,
      confidence: f.confidence,
      evidence_ids: f.evidence.slice(0, 5),
      why: `${f.evidence.length} similar past task${f.evidence.length === 1 ? '' : 's'} worked on ${f.file}${f.workflow ? `; workflow "${f.workflow.entry.slot.goal}" starts there` : ''}`,
    });
  }
  for (const w of p.workflows) {
    if (w.entry.node.id === fa?.workflow_id || alternatives.some((a) => a.id === w.entry.node.id)) continue;
    const s = w.entry.slot;
    alternatives.push({
      source_kind: s.promotion_state === 'stable' ? 'stable_workflow' : 'candidate_workflow',
      id: w.entry.node.id,
      selected_tool: s.steps[0]?.tool ?? null,
      file_path: s.steps[0]?.file_path ?? s.target_files[0] ?? null,
      relevance: r3(w.score),
      confidence: r3(workflowConfidence(s) * (0.5 + 0.5 * w.score)),
      evidence_ids: [w.entry.node.id, ...s.provenance_ids.slice(-4)],
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
      confidence: r3(m.entry.slot.confidence * (0.5 + 0.5 * m.score)),
      evidence_ids: [m.entry.node.id, ...m.entry.slot.supporting_anchor_ids.slice(0, 4)],
      why: m.entry.slot.reason,
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
