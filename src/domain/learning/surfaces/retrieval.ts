import type { ScopeRef } from '../../../store/scope';
import type { RawTaskRequest } from '../request';
import type { LearningCtx } from '../context';
import { planFor } from './common';
import { pastTaskWhy, rationaleOf, toolView } from './compat';

/**
 * action/retrieval (contract.md §2): the next action with the evidence it rests on (each piece
 * with its source kind and why it counts), uncertainty, and a gate action: the first recommended
 * action, so a caller can branch on one field.
 */

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export async function actionRetrieval(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest) {
  const { plan } = await planFor(ctx, ref, raw);
  const fa = plan.first_action;
  const evidence: { id: string; source_kind: string; title: string | null; score: number; why: string }[] = [];
  const push = (e: (typeof evidence)[number]) => {
    if (!evidence.some((x) => x.id === e.id)) evidence.push(e);
  };
  for (const w of plan.workflows) {
    const s = w.entry.slot;
    push({
      id: w.entry.node.id,
      source_kind: s.promotion_state === 'stable' ? 'stable_workflow' : 'candidate_workflow',
      title: w.entry.node.title,
      score: r3(w.score),
      why: `${s.promotion_state} workflow learned from ${s.counts.successes} successful runs (${s.distillation_origin})`,
    });
  }
  for (const m of plan.policies) {
    push({ id: m.entry.node.id, source_kind: 'policy_memory', title: m.entry.node.title, score: r3(m.score), why: `${m.entry.slot.state} policy memory: ${m.entry.slot.reason}` });
  }
  for (const m of plan.patterns) {
    push({
      id: m.entry.node.id,
      source_kind: m.cls === 'trusted' ? 'trusted_pattern' : `${m.cls}_pattern`,
      title: m.entry.node.title,
      score: r3(m.score),
      why: `${m.cls} pattern for ${m.entry.slot.tool} (${m.entry.slot.positive_runs.length}+/${m.entry.slot.negative_runs.length}- runs)${m.retired_policy_id ? `; its policy memory ${m.retired_policy_id} is retired, so it is not applied` : ''}`,
    });
  }
  for (const t of plan.tasks.slice(0, 5)) push({ id: t.node_id, source_kind: 'recall', title: t.obs.goal, score: r3(t.sim), why: pastTaskWhy(t) });
  // The evidence the action itself rests on comes first.
  if (fa) evidence.sort((a, b) => Number(fa.evidence_ids.includes(b.id)) - Number(fa.evidence_ids.includes(a.id)));
  const selected = fa?.selected_tool ?? plan.selected_tool;
  const toolSource = fa?.source_kind ?? plan.ranking.find((t) => t.tool === selected)?.source_kinds[0] ?? null;
  return {
    selected_tool: selected,
    file_path: fa?.file_path ?? null,
    next_action: fa?.next_action ?? null,
    source_kind: fa?.source_kind ?? null,
    // The same answer under the names existing clients read (docs/compatibility.md).
    recommended_file_path: fa?.file_path ?? null,
    recommended_next_action: fa?.next_action ?? null,
    tool_source_kind: toolSource,
    tool: toolView(plan, selected),
    rationale: rationaleOf(plan),
    history_applied: fa !== null,
    evidence: evidence.slice(0, 20),
    uncertainty: plan.uncertainty,
    gate_action: plan.uncertainty.recommended_actions[0] ?? 'inspect_context',
  };
}
