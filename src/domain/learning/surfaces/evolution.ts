import type { ScopeRef } from '../../../store/scope';
import { canGovern, GOVERNANCE_TRANSITIONS, REVALIDATE_RUNS, type GovernanceAction } from '../policy-model';
import type { Plan } from '../planner';
import type { RawTaskRequest } from '../request';
import type { LearningCtx } from '../context';
import type { Learned, ScopeLearning } from '../scope-state';
import type { PolicySlot } from '../policy-model';
import { patternClass } from '../pattern-model';
import { patternView, policyContractOf, workflowView } from '../views';
import { planFor } from './common';
import { derivedPolicy, experienceView, policyContract, policyHints } from './experience';
import { countsOf } from './introspect';
import { latestGovernanceResult, learningRecommendations, type Proposal } from './recommendations';
import type { CheckStatus, GovernanceRecommendation } from '../../../model/learning/vocabulary';

/**
 * evolution/review-pack (interface spec, "Review packs"): is the runtime learning the right
 * thing for this task? Without task text it reviews the whole scope. Governance proposals are
 * built only from transitions policy-model.ts allows from the policy's current state, so every
 * proposed payload is one policies/governance/apply accepts.
 */

const status = (ok: boolean): CheckStatus => (ok ? 'pass' : 'attention');

function review(state: ScopeLearning, p: Learned<PolicySlot>): { finding: string; recommended_action: GovernanceRecommendation; proposal: Proposal | null } {
  const s = p.slot;
  const pattern = state.patternOf(s.family_id, s.tool);
  const cls = pattern ? patternClass(pattern.slot) : null;
  const propose = (action: GovernanceAction, reason: string) => (canGovern(s.state, action) ? { policy_memory_id: p.node.id, action, reason } : null);
  if (s.state === 'contested' && cls === 'contested') {
    return {
      finding: 'negative feedback after activation, and its tool pattern is contested too',
      recommended_action: 'retire',
      proposal: propose('retire', `contested policy for ${s.tool}: negative feedback after activation and a contested pattern`),
    };
  }
  if (s.state === 'contested') return { finding: 'contested by negative feedback; fresh positive runs revalidate it', recommended_action: 'wait_for_revalidation', proposal: null };
  if (s.state === 'retired' && cls === 'trusted' && s.fresh_positive_runs.length >= REVALIDATE_RUNS) {
    return {
      finding: `retired, but ${s.fresh_positive_runs.length} fresh positive runs since and its tool pattern is trusted`,
      recommended_action: 'reactivate',
      proposal: propose('reactivate', `pattern for ${s.tool} is trusted and ${s.fresh_positive_runs.length} positive runs arrived since the retirement`),
    };
  }
  if (s.state === 'retired') return { finding: 'retired by an operator; not applied, and feedback does not revive it', recommended_action: 'keep', proposal: null };
  return { finding: `active (${s.activation_mode}), backed by ${s.source.replace('_', ' ')}`, recommended_action: 'keep', proposal: null };
}

export async function evolutionReviewPack(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest, actor: string) {
  const { pack } = await evolutionReview(ctx, ref, raw, actor);
  return { evolution_review_pack: pack };
}

/** The pack with the plan and state it was built from (the agent inspect surface reads both). */
export async function evolutionReview(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest, actor: string) {
  // Whole state: a review pack lists everything learned, not what has loaded so far.
  const { state, plan } = await planFor(ctx, ref, raw, undefined, { whole: true });
  const scoped = plan.request.terms.length === 0 && !plan.request.task_kind;
  const policies = scoped ? [...state.policies.values()] : plan.policies.map((m) => m.entry);
  const workflows = scoped
    ? [...state.workflows.values()].map((entry) => ({ entry, score: null as number | null }))
    : plan.workflows.map((m) => ({ entry: m.entry, score: m.score as number | null }));
  const patterns = scoped
    ? [...state.patterns.values()].map((entry) => ({ entry, score: null as number | null, cls: patternClass(entry.slot) }))
    : plan.patterns.map((m) => ({ entry: m.entry, score: m.score as number | null, cls: m.cls }));

  const policyReview = policies.map((p) => {
    const r = review(state, p);
    return {
      policy_memory_id: p.node.id,
      tool: p.slot.tool,
      state: p.slot.state,
      finding: r.finding,
      recommended_action: r.recommended_action,
      proposal: r.proposal,
      contract: policyContractOf(p),
    };
  });
  const proposals = policyReview.map((r) => r.proposal).filter((x): x is Proposal => x !== null);
  const payload = proposals[0]
    ? { tenant_id: ref.tenant_id, scope: ref.scope, actor, policy_memory_id: proposals[0].policy_memory_id, action: proposals[0].action, reason: proposals[0].reason }
    : undefined;
  const governanceContract = {
    route: '/v1/memory/policies/governance/apply',
    transitions: GOVERNANCE_TRANSITIONS,
    allowed_actions: Object.fromEntries(policies.map((p) => [p.node.id, (Object.keys(GOVERNANCE_TRANSITIONS) as GovernanceAction[]).filter((a) => canGovern(p.slot.state, a))])),
    proposals,
    required_fields: ['tenant_id', 'scope', 'actor', 'policy_memory_id', 'action', 'reason'],
  };

  const stable = workflows.filter((w) => w.entry.slot.promotion_state === 'stable');
  const ready = workflows.filter((w) => w.entry.slot.promotion_ready);
  const byClass = (c: string) => patterns.filter((m) => m.cls === c).map((m) => patternView(m.entry, m.score));
  const recommendations = learningRecommendations(ref, actor, { ready, patterns, workflows, proposals, archived: plan.archived });
  const applyResult = latestGovernanceResult(policies);

  const reviewCandidates = (await ctx.lifecycle.reviewCandidates(ref, { limit: 10 })).map((c) => ({ ...c }) as typeof c & Record<string, unknown>);
  const ei = experienceView(state, plan);
  const inspect = {
    experience_intelligence: ei,
    policy_hints: policyHints(plan),
    derived_policy: derivedPolicy(plan),
    policy_contract: policyContract(plan),
    policy_review: policyReview,
    policy_governance_contract: governanceContract,
    ...(payload ? { policy_governance_apply_payload: payload } : {}),
    ...(applyResult ? { policy_governance_apply_result: applyResult } : {}),
  };
  const evidence = [...new Set([...stable.map((w) => w.entry.node.id), ...patterns.map((m) => m.entry.node.id), ...policies.map((p) => p.node.id)])];
  return {
    state,
    plan,
    policies,
    pack: {
      review_contract: {
        question: 'Is the runtime learning the right thing for this task?',
        task: { query_text: plan.request.text, goal: plan.request.goal, task_kind: plan.request.task_kind, file_path: plan.request.file_path, scope_wide: scoped },
        checks: [
          { check: 'a stable workflow covers the task', status: status(stable.length > 0), detail: `${stable.length} stable, ${ready.length} promotion ready` },
          {
            check: 'no contested evidence',
            status: status(byClass('contested').length === 0 && policies.every((p) => p.slot.state !== 'contested')),
            detail: `${byClass('contested').length} contested pattern(s)`,
          },
          { check: 'policies are governed', status: status(proposals.length === 0), detail: `${proposals.length} governance proposal(s)` },
        ],
        evidence_ids: evidence,
      },
      learning_summary: { ...countsOf(state), matched: { workflows: workflows.length, patterns: patterns.length, policies: policies.length } },
      learning_recommendations: recommendations,
      selected_tool: plan.selected_tool,
      recommended_file_path: plan.first_action?.file_path ?? derivedPolicy(plan).file_path,
      stable_workflows: stable.map((w) => workflowView(w.entry, w.score)),
      promotion_ready_workflows: ready.map((w) => workflowView(w.entry, w.score)),
      trusted_patterns: byClass('trusted'),
      contested_patterns: byClass('contested'),
      suppressed_patterns: byClass('suppressed'),
      review_candidates: reviewCandidates,
      evolution_inspect: inspect,
      policy_governance_contract: governanceContract,
      ...(payload ? { policy_governance_apply_payload: payload } : {}),
      ...(applyResult ? { policy_governance_apply_result: applyResult } : {}),
    },
  };
}

export type { Plan };
