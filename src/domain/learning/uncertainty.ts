import type { FirstAction } from './first-action';
import type { PatternMatch, PolicyMatch, WorkflowMatch } from './matches';
import type { LoadProgress } from './scopes';
import type { GateAction, UncertaintyLevel } from '../../model/learning/vocabulary';

/**
 * How sure the runtime is about its guidance, and what to do about it (contract.md §2,
 * action/retrieval): low for a first action of confidence ≥ 0.6 (its evidence agrees: most of
 * the similar past tasks, or a settled workflow, start there) unless a candidate workflow drives
 * it; moderate for a less sure one or contested evidence; high with nothing relevant, where the honest next step is to look wider,
 * not to guess.
 */

export type RecommendedAction = GateAction;

export interface Uncertainty {
  level: UncertaintyLevel;
  confidence: number;
  reasons: string[];
  recommended_actions: RecommendedAction[];
}

/** The parts of a plan uncertainty is judged from (the planner passes the plan it built). */
export interface PlanEvidence {
  workflows: WorkflowMatch[];
  archived: WorkflowMatch[];
  patterns: PatternMatch[];
  policies: PolicyMatch[];
  first_action: FirstAction | null;
  /** How many similar past tasks were found (past-tasks.ts). */
  tasks: number;
  /** Set while the scope's learned state is still loading after a start (scopes.ts): the plan saw only part of it. */
  loading?: LoadProgress | null;
}

export function uncertaintyOf(p: PlanEvidence): Uncertainty {
  const reasons: string[] = [];
  const actions = new Set<RecommendedAction>();
  const fa = p.first_action;
  let level: Uncertainty['level'];
  if (fa) {
    reasons.push(`first action from ${fa.source_kind} (confidence ${fa.confidence}, relevance ${fa.relevance})`);
    // A candidate workflow's first move is not settled over three runs yet: at most moderate.
    level = fa.confidence >= 0.6 && fa.source_kind !== 'candidate_workflow' ? 'low' : 'moderate';
    actions.add('proceed');
    if (level === 'moderate') actions.add('inspect_context');
    if (fa.confidence < 0.6) reasons.push('the evidence does not agree on one place to start: the alternatives are worth a look');
    if (fa.source_kind === 'recall') reasons.push('from similar past tasks; not yet learned as a workflow');
    if (fa.source_kind === 'candidate_workflow') reasons.push('the workflow is a candidate: not yet consistent over three successful runs');
  } else {
    level = 'high';
    reasons.push(
      p.tasks === 0 && p.workflows.length + p.patterns.length + p.policies.length === 0
        ? 'no similar past task, learned workflow, pattern or policy memory matches this task'
        : 'what is known is related but too unlike this task to act on',
    );
    actions.add('widen_recall');
    actions.add('inspect_context');
  }
  if (p.archived.length > 0) {
    reasons.push(`${p.archived.length} matching workflow(s) are archived; rehydrate to use them`);
    actions.add('rehydrate_payload');
  }
  const contested = p.patterns.filter((m) => m.cls === 'contested').map((m) => m.entry.slot.tool);
  const contestedPolicies = p.policies.filter((m) => m.entry.slot.state === 'contested').map((m) => m.entry.slot.tool);
  if (contested.length + contestedPolicies.length > 0) {
    reasons.push(`contested evidence for ${[...new Set([...contested, ...contestedPolicies])].join(', ')}`);
    actions.add('request_operator_review');
    if (level === 'low') level = 'moderate';
  }
  if (fa && fa.workflow_id) {
    const w = p.workflows.find((m) => m.entry.node.id === fa.workflow_id);
    if (w && w.entry.slot.counts.unresolved_failures > 0) {
      reasons.push('the workflow has an unresolved failure since its last success');
      if (level === 'low') level = 'moderate';
      actions.add('inspect_context');
    }
  }
  if (p.loading) {
    reasons.push(
      `this scope's learned state is still loading after a start (${p.loading.applied} learned entries so far, reading ${p.loading.reading}): what has not loaded yet was not considered`,
    );
    if (level === 'low') level = 'moderate';
    actions.add('inspect_context');
  }
  const confidence = fa ? fa.confidence : 0;
  const order: RecommendedAction[] = ['proceed', 'rehydrate_payload', 'widen_recall', 'inspect_context', 'request_operator_review'];
  return { level, confidence, reasons, recommended_actions: order.filter((a) => actions.has(a)) };
}
