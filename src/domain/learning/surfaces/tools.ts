import { LoreError, notFound } from '../../../contract/errors';
import { ToolDecisions } from '../../../store/learning';
import type { ScopeRef } from '../../../store/scope';
import { uuidv7 } from '../../../model/ids';
import { findFamily, resolveFamily } from '../family';
import { recordFeedback } from '../feedback';
import type { FeedbackOutcome } from '../pattern-model';
import { taskRequest, type RawTaskRequest } from '../request';
import type { LearningCtx } from '../context';
import { patternView, policyMemoryView } from '../views';
import { planFor } from './common';
import type { SelectionBasis } from '../../../model/learning/vocabulary';

/**
 * tools/select and tools/feedback (contract.md §3, §5). Selection ranks the candidates
 * (tool-ranking.ts) and records a decision; feedback may cite that decision_id, and then lands
 * on the decision's task family and counts as the decision's run.
 */

export async function toolsSelect(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest & { run_id?: string }, actor: string) {
  // Whole state: the decision names a task family, which a partly loaded scope could miss.
  const { state, request, plan } = await planFor(ctx, ref, raw, undefined, { whole: true });
  const top = plan.ranking.find((t) => t.tool === plan.selected_tool);
  let selected = plan.selected_tool;
  let basis: SelectionBasis = 'none';
  if (selected && top) basis = top.source_kinds.length > 0 ? 'learned' : 'rules';
  else {
    // No learned or rule preference: the caller's own order, saying so.
    selected = request.candidates.find((c) => !plan.rules.deny.includes(c)) ?? null;
    basis = selected ? 'candidate_order' : 'none';
  }
  const family = findFamily(state, request);
  const decisionId = uuidv7(ctx.clock.now().getTime());
  const decidedAt = ctx.clock.now().toISOString();
  await new ToolDecisions(ctx.db, ref).insert({
    _id: decisionId,
    created_at: decidedAt,
    actor,
    query_text: request.text,
    task_kind: request.task_kind,
    goal: request.goal,
    file_path: request.file_path,
    candidates: request.candidates,
    selected_tool: selected,
    family_id: family?.family_id ?? resolveFamily(ref, state, request).family_id,
    ranking: plan.ranking.map((t) => ({ tool: t.tool, score: t.score })),
    rules_applied: plan.rules.matched.filter((m) => m.applied).map((m) => m.rule_id),
  });
  return {
    decision_id: decisionId,
    decision: { decision_id: decisionId, selected_tool: selected, candidates: request.candidates, created_at: decidedAt },
    selected_tool: selected,
    selection_basis: basis,
    ranking: plan.ranking,
    candidates: request.candidates,
    rules: {
      matched: plan.rules.matched,
      applied: { prefer: plan.rules.prefer, deny: plan.rules.deny },
      shadow: { prefer: plan.rules.shadow_prefer, deny: plan.rules.shadow_deny },
    },
    task_family: family ? { family_id: family.family_id, label: family.label, known: true } : null,
    history_applied: basis === 'learned',
    uncertainty: plan.uncertainty,
  };
}

export interface FeedbackRequest extends RawTaskRequest {
  outcome: FeedbackOutcome;
  selected_tool: string;
  decision_id?: string;
  run_id?: string;
  reason?: string | null;
}

export async function toolsFeedback(ctx: LearningCtx, ref: ScopeRef, input: FeedbackRequest, actor: string) {
  const state = await ctx.scope(ref);
  const decision = input.decision_id ? await new ToolDecisions(ctx.db, ref).get(input.decision_id) : null;
  if (input.decision_id && !decision) throw notFound('tool decision', input.decision_id, ref.scope, { decision_id: input.decision_id });
  const request = taskRequest({
    query_text: input.input_text ?? input.query_text ?? decision?.query_text ?? null,
    context: {
      goal: input.context?.goal ?? decision?.goal ?? null,
      task_kind: input.context?.task_kind ?? decision?.task_kind ?? null,
      file_path: input.context?.file_path ?? decision?.file_path ?? null,
    },
    candidates: [...(input.candidates ?? []), ...(input.tool_candidates ?? [])],
  });
  state.noteTools([input.selected_tool, ...request.candidates]);
  if (!decision && request.terms.length === 0 && !request.task_kind) {
    throw new LoreError('invalid_request', 'feedback needs the task it is about: input_text, context.goal, context.task_kind or a decision_id', {
      issues: [{ path: 'input_text', message: 'describe the task (or cite a decision_id)' }],
    });
  }
  const r = await recordFeedback(ctx.persist, ref, state, {
    outcome: input.outcome,
    tool: input.selected_tool,
    request,
    run_id: input.run_id ?? null,
    decision: decision ? { id: decision._id, family_id: decision.family_id, label: decision.goal ?? decision.query_text } : null,
    reason: input.reason ?? null,
    actor,
    at: ctx.clock.now().toISOString(),
  });
  return {
    recorded: true,
    decision_id: decision?._id ?? null,
    run_key: r.run_key,
    task_family: { family_id: r.family.family_id, label: r.family.label, known: r.family.known },
    pattern: patternView(r.pattern),
    policy_memory: r.policy ? policyMemoryView(r.policy) : null,
    policy_materialized: r.materialized,
    learning: { patterns_updated: [r.pattern.node.id], policies_updated: r.policy ? [r.policy.node.id] : [] },
  };
}
