import type { Plan } from '../planner';
import type { RecommendedAction } from '../uncertainty';

/**
 * The action-retrieval gate of a planning answer (planning_summary.action_retrieval_gate, and the
 * operator projection of planning/context and context/assemble; docs/learning.md, "Surfaces"):
 * one place to branch on before acting on the first action.
 *
 * - `gate_action`: the first recommended action, as action/retrieval's gate_action (`proceed` when
 *   a first action stands);
 * - `escalates_task_start`: true when the task should not start on the first action as it is —
 *   there is none, the uncertainty is high, or it recommends widening recall, rehydrating a payload
 *   or an operator's review;
 * - `recommended_actions`: what to do besides proceeding, each also an action hint with the route
 *   that carries it out and a payload that route accepts (`operator_projection.action_hints`).
 */

type Escalation = Exclude<RecommendedAction, 'proceed'>;

const ESCALATING: ReadonlySet<Escalation> = new Set(['widen_recall', 'rehydrate_payload', 'request_operator_review']);

function taskText(p: Plan): string {
  return p.request.text ?? p.request.goal ?? '';
}

/** The archived workflow a rehydration would bring back first (the best archived match). */
function preferredRehydration(p: Plan) {
  const best = p.archived[0];
  return best ? { anchor_id: best.entry.node.id, goal: best.entry.slot.goal, relevance: Math.round(best.score * 1000) / 1000, mode: 'differential' as const } : null;
}

function instructionFor(action: Escalation, p: Plan): string {
  const pref = preferredRehydration(p);
  switch (action) {
    case 'widen_recall':
      return 'Nothing learned applies with confidence: widen recall with the task’s words and read what comes back before choosing a first step.';
    case 'rehydrate_payload':
      return pref
        ? `A matching workflow is archived: rehydrate ${pref.anchor_id} ("${pref.goal}") with mode differential before relying on it.`
        : 'Matching memory is archived: rehydrate its payload before relying on it.';
    case 'inspect_context':
      return 'Inspect the assembled context (workflows, patterns, supporting knowledge) before acting on the first step.';
    case 'request_operator_review':
      return 'The evidence is contested: have an operator review the evolution review pack before relying on it.';
  }
}

function hintRoute(action: Escalation, p: Plan): { route: string; payload: Record<string, unknown> } {
  const text = taskText(p);
  const pref = preferredRehydration(p);
  switch (action) {
    case 'widen_recall':
      return { route: '/v1/memory/recall_text', payload: { query_text: text, limit: 20, include_archived: true } };
    case 'rehydrate_payload':
      return pref
        ? { route: '/v1/memory/anchor/payload/rehydrate', payload: { anchor_id: pref.anchor_id, mode: 'differential' } }
        : { route: '/v1/memory/recall_text', payload: { query_text: text, tiers: ['archive'] } };
    case 'inspect_context':
      return { route: '/v1/memory/context/assemble', payload: { query_text: text } };
    case 'request_operator_review':
      return { route: '/v1/memory/evolution/review-pack', payload: { query_text: text } };
  }
}

export function actionRetrievalGate(p: Plan) {
  const u = p.uncertainty;
  const fa = p.first_action;
  const escalations = u.recommended_actions.filter((a): a is Escalation => a !== 'proceed');
  const escalates = !fa || u.level === 'high' || escalations.some((a) => ESCALATING.has(a));
  const first = escalations[0] ?? null;
  return {
    summary_version: 'action_retrieval_gate_v1' as const,
    gate_action: u.recommended_actions[0] ?? ('inspect_context' as const),
    escalates_task_start: escalates,
    level: u.level,
    confidence: u.confidence,
    primary_reason: u.reasons[0] ?? null,
    recommended_actions: escalations,
    instruction: fa && !escalates ? fa.next_action : first ? instructionFor(first, p) : (fa?.next_action ?? null),
    selected_tool: fa?.selected_tool ?? null,
    file_path: fa?.file_path ?? null,
    rehydration_candidate_count: p.archived.length,
    preferred_rehydration: preferredRehydration(p),
  };
}

/** The operator projection: the gate, and one action hint per recommended action besides proceeding. */
export function operatorProjection(p: Plan) {
  const gate = actionRetrievalGate(p);
  const pref = gate.preferred_rehydration;
  const action_hints = gate.recommended_actions.map((action, i) => {
    const { route, payload } = hintRoute(action, p);
    return {
      summary_version: 'context_operator_action_hint_v1' as const,
      action,
      priority: gate.escalates_task_start && i === 0 ? ('required' as const) : ('recommended' as const),
      instruction: instructionFor(action, p),
      selected_tool: gate.selected_tool,
      file_path: gate.file_path,
      tool_route: route,
      tool_method: 'POST' as const,
      payload,
      example_call: `POST ${route} ${JSON.stringify(payload)}`,
      preferred_rehydration_anchor_id: action === 'rehydrate_payload' ? (pref?.anchor_id ?? null) : null,
    };
  });
  return { action_retrieval_gate: gate, action_hints };
}
