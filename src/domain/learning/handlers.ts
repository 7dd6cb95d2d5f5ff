import type { learningRoutes } from '../../contract/families/learning';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import type { LearningCtx } from './context';
import { agentHandoffPack, agentInspect, agentResumePack, agentReviewPack } from './surfaces/agent';
import { assembleContext } from './surfaces/assemble';
import { rationaleOf, workflowLists } from './surfaces/compat';
import { planFor, taskFamilyView } from './surfaces/common';
import { continuityReviewPack } from './surfaces/continuity';
import { evolutionReviewPack } from './surfaces/evolution';
import { experienceIntelligence } from './surfaces/experience';
import { applyGovernance, evaluateRulesFor, setRuleState, setSuppressed } from './surfaces/governance';
import { executionIntrospect } from './surfaces/introspect';
import { kickoffRecommendation } from './surfaces/kickoff';
import { getWorkflow, listPatterns, listPolicies, listWorkflows } from './surfaces/lists';
import { planningContext } from './surfaces/planning';
import { actionRetrieval } from './surfaces/retrieval';
import { toolsFeedback, toolsSelect } from './surfaces/tools';

/** HTTP handlers of the learning family: each parses nothing itself (the contract did) and formats one surface. */
export function createLearningHandlers(ctx: LearningCtx): Handlers<typeof learningRoutes> {
  return {
    'learning.kickoffRecommendation': async (input, c) => {
      const { state, request, plan } = await planFor(ctx, refOf(c), input);
      return {
        summary_version: 'kickoff_recommendation_v1' as const,
        query_text: request.text ?? request.goal ?? '',
        first_action: plan.first_action,
        kickoff_recommendation: kickoffRecommendation(plan),
        rationale: rationaleOf(plan),
        uncertainty: plan.uncertainty,
        action_retrieval_uncertainty: plan.uncertainty,
        task_family: taskFamilyView(state, request),
      };
    },
    'learning.planningContext': (input, c) => planningContext(ctx, refOf(c), input),
    'learning.contextAssemble': (input, c) => assembleContext(ctx, refOf(c), input),
    'learning.actionRetrieval': (input, c) => actionRetrieval(ctx, refOf(c), input),
    'learning.experienceIntelligence': (input, c) => experienceIntelligence(ctx, refOf(c), input),
    'learning.executionIntrospect': async (input, c) => {
      const r = await executionIntrospect(ctx, refOf(c), { limit: input.limit });
      return { ...r, ...workflowLists(r.demo_surface.sections.workflows) };
    },
    'learning.toolsSelect': (input, c) => toolsSelect(ctx, refOf(c), input, c.actor),
    'learning.toolsFeedback': (input, c) => toolsFeedback(ctx, refOf(c), input, c.actor),
    'learning.patternsSuppress': (input, c) => setSuppressed(ctx, refOf(c), input, c.actor, true),
    'learning.patternsUnsuppress': (input, c) => setSuppressed(ctx, refOf(c), input, c.actor, false),
    'learning.policiesGovernanceApply': (input, c) => applyGovernance(ctx, refOf(c), input, c.actor),
    'learning.rulesState': (input, c) => setRuleState(ctx, refOf(c), input, c.actor),
    'learning.rulesEvaluate': (input, c) => evaluateRulesFor(ctx, refOf(c), input),
    'learning.evolutionReviewPack': async (input, c) => {
      const r = await evolutionReviewPack(ctx, refOf(c), input, c.actor);
      return { ...r, evolution_inspect: r.evolution_review_pack.evolution_inspect };
    },
    'learning.continuityReviewPack': (input, c) => continuityReviewPack(ctx, refOf(c), input.anchor),
    'learning.agentInspect': (input, c) => agentInspect(ctx, refOf(c), input, c.actor),
    'learning.agentReviewPack': (input, c) => agentReviewPack(ctx, refOf(c), input, c.actor),
    'learning.agentResumePack': (input, c) => agentResumePack(ctx, refOf(c), input, c.actor),
    'learning.agentHandoffPack': (input, c) => agentHandoffPack(ctx, refOf(c), input, c.actor),
    'learning.workflows.list': (input, c) => listWorkflows(ctx, refOf(c), input),
    'learning.workflows.get': (input, c) => getWorkflow(ctx, refOf(c), input),
    'learning.patterns.list': (input, c) => listPatterns(ctx, refOf(c), input),
    'learning.policies.list': (input, c) => listPolicies(ctx, refOf(c), input),
  };
}
