import { z } from 'zod';
import { BoundedText, CallerId, countsOf, echoFields, identityFields } from '../common';
import { route } from '../route';
import {
  ACTIVATION_MODES,
  BUDGET_UNITS,
  CHECK_STATUSES,
  EVIDENCE_KINDS,
  FEEDBACK_TARGETS,
  GATE_ACTIONS,
  GOVERNANCE_ACTIONS,
  GOVERNANCE_ACTIONS_OR_NONE,
  GOVERNANCE_RECOMMENDATIONS,
  PATTERN_CLASSES,
  POLICY_SOURCES,
  POLICY_STATES,
  PROMOTION_STATES,
  REVIEW_CONTRACT_BASES,
  RULE_STATES,
  SELECTION_BASES,
} from '../../model/learning/vocabulary';
import { FEEDBACK_OUTCOMES } from '../../model/memory/vocabulary';
import { ForgettingSummary } from '../shapes/forgetting';
import { learningListRoutes } from './learning-lists';
import {
  ContinuityCarrierSummary,
  DistillationSignalSummary,
  EvidenceView,
  FirstAction,
  KickoffRecommendation,
  OriginCounts,
  PatternView,
  OperatorProjection,
  PlannerPacket,
  PlanningSummary,
  PolicyContract,
  PolicyHints,
  PolicyMemoryView,
  DerivedPolicy,
  RuleConditionsInput,
  RuleEffectInput,
  RuleEvaluationView,
  RuleStateEnum,
  RuleView,
  SectionEntry,
  SignalView,
  SourceKindEnum,
  ToolList,
  ToolName,
  ToolScoreView,
  Uncertainty,
  WorkflowView,
  taskInputFields,
} from './learning-schemas';

/** Routes of the learning family (contract.md §2 planning surfaces, §3, §5; docs/learning.md). */

const NodeId = z.string().min(1).max(200);
const Reason = BoundedText(8192);

const TaskFamilyView = z.object({ family_id: z.string(), label: z.string(), known: z.boolean() });

export const KickoffInput = z.object({ ...identityFields, ...taskInputFields });

/** planning/context and experience/intelligence take the task as query_text (interface spec): without it there is no task. */
const needsQueryText = (v: { query_text?: string | null | undefined }, ctx: z.RefinementCtx) => {
  if (typeof v.query_text !== 'string' || v.query_text.trim() === '')
    ctx.addIssue({ code: 'custom', path: ['query_text'], message: 'query_text is required (the task, in words)' });
};

const ExperienceInput = KickoffInput.superRefine(needsQueryText);

const PlanningInput = z.object({ ...identityFields, ...taskInputFields, return_layered_context: z.boolean().default(false) }).superRefine(needsQueryText);

/** A pattern by pattern_id, or anchor_id (what existing clients call it). */
const patternRef = (defaultReason: string) =>
  z
    .object({ ...identityFields, pattern_id: NodeId.optional(), anchor_id: NodeId.optional().describe('alias of pattern_id'), reason: Reason.default(defaultReason) })
    .superRefine((v, ctx) => {
      if (!v.pattern_id && !v.anchor_id) ctx.addIssue({ code: 'custom', path: ['pattern_id'], message: 'pattern_id (or anchor_id) is required' });
    })
    .transform(({ anchor_id, ...v }) => ({ ...v, pattern_id: (v.pattern_id ?? anchor_id)! }));

/** A short explanation object (existing clients read `rationale.summary`). */
const Rationale = z.object({ summary: z.string() });

const LayeredContext = z.object({
  layers: z.array(z.object({ name: z.string(), text: z.string(), ids: z.array(z.string()) })),
  text: z.string(),
});

const AssembleInput = z.object({
  ...identityFields,
  ...taskInputFields,
  char_budget: z.number().int().min(200).max(200_000).optional(),
  token_budget: z.number().int().min(50).max(50_000).optional(),
  include_supporting_knowledge: z.boolean().default(true),
});

const ReviewPackInput = z.object({ ...identityFields, ...taskInputFields });

const GovernancePayload = z.object({
  tenant_id: z.string(),
  scope: z.string(),
  actor: z.string(),
  policy_memory_id: z.string(),
  action: z.enum(GOVERNANCE_ACTIONS),
  reason: z.string(),
});
const GovernanceContract = z.object({
  route: z.string(),
  transitions: z.record(z.string(), z.object({ from: z.array(z.string()), to: z.string() })),
  allowed_actions: z.record(z.string(), z.array(z.enum(GOVERNANCE_ACTIONS))),
  proposals: z.array(z.object({ policy_memory_id: z.string(), action: z.enum(GOVERNANCE_ACTIONS), reason: z.string() })),
  required_fields: z.array(z.string()),
});
const PolicyReview = z.object({
  policy_memory_id: z.string(),
  tool: z.string(),
  state: z.enum(POLICY_STATES),
  finding: z.string(),
  recommended_action: z.enum(GOVERNANCE_RECOMMENDATIONS),
  proposal: z.object({ policy_memory_id: z.string(), action: z.enum(GOVERNANCE_ACTIONS), reason: z.string() }).nullable(),
  contract: PolicyContract,
});
const Counts = z.record(z.string(), z.number().int());
/** A recommendation with the route that carries it out and a payload that route accepts as it stands. */
const LearningRecommendation = z.object({
  action: z.string(),
  target_id: z.string(),
  reason: z.string(),
  route: z.string(),
  payload: z.record(z.string(), z.unknown()),
  precondition: z.string().nullable().describe('when sending the payload is right (null: whenever the reviewer agrees)'),
});
/** The latest policies/governance/apply decision on the reviewed policies (from their history). */
const GovernanceApplyResult = z
  .object({
    policy_memory_id: z.string(),
    action: z.enum(GOVERNANCE_ACTIONS),
    previous_state: z.enum(POLICY_STATES),
    state: z.enum(POLICY_STATES),
    actor: z.string(),
    reason: z.string(),
    applied_at: z.string(),
    current_state: z.enum(POLICY_STATES),
    tool: z.string(),
  })
  .catchall(z.unknown());

/** evolution_review_pack (interface spec "Review packs"; docs/learning.md). */
const EvolutionReviewPack = z.object({
  review_contract: z.object({
    question: z.string(),
    task: z.object({ query_text: z.string().nullable(), goal: z.string().nullable(), task_kind: z.string().nullable(), file_path: z.string().nullable(), scope_wide: z.boolean() }),
    checks: z.array(z.object({ check: z.string(), status: z.enum(CHECK_STATUSES), detail: z.string() })),
    evidence_ids: z.array(z.string()),
  }),
  learning_summary: z.object({
    workflow_counts: Counts,
    pattern_counts: Counts,
    policy_counts: Counts,
    rule_counts: Counts,
    continuity_carrier_counts: Counts,
    matched: Counts,
  }),
  learning_recommendations: z.array(LearningRecommendation),
  selected_tool: z.string().nullable(),
  recommended_file_path: z.string().nullable(),
  stable_workflows: z.array(WorkflowView),
  promotion_ready_workflows: z.array(WorkflowView),
  trusted_patterns: z.array(PatternView),
  contested_patterns: z.array(PatternView),
  suppressed_patterns: z.array(PatternView),
  review_candidates: z.array(
    z
      .object({ id: z.string(), kind: z.string().nullable(), title: z.string().nullable(), summary: z.string(), lifecycle_state: z.string(), rationale: z.array(z.string()) })
      .catchall(z.unknown()),
  ),
  evolution_inspect: z.object({
    experience_intelligence: z.record(z.string(), z.unknown()),
    policy_hints: PolicyHints,
    derived_policy: DerivedPolicy,
    policy_contract: PolicyContract,
    policy_review: z.array(PolicyReview),
    policy_governance_contract: GovernanceContract,
    policy_governance_apply_payload: GovernancePayload.optional(),
    policy_governance_apply_result: GovernanceApplyResult.optional(),
  }),
  policy_governance_contract: GovernanceContract,
  policy_governance_apply_payload: GovernancePayload.optional(),
  policy_governance_apply_result: GovernanceApplyResult.optional(),
});

/** continuity_review_pack (interface spec "Review packs"; docs/learning.md). */
const EvidenceSourceKind = z.enum(EVIDENCE_KINDS);
const ContinuityReviewPack = z.object({
  anchor: z.string(),
  review_contract: z.object({
    basis: z
      .enum(REVIEW_CONTRACT_BASES)
      .describe(
        'handoff: the handoff store’s record; handoff_text: the newest handoff is free text (or a handoff event), read from its words; evidence: no handoff at all, the contract is assembled from what names the anchor, and resume_ready is false',
      ),
    target_files: z.array(z.string()),
    next_action: z.string().nullable(),
    acceptance_checks: z.array(z.string()),
    rollback_expectations: z.array(z.string()),
    resume_ready: z.boolean(),
    blockers: z.array(z.string()),
    evidence_ids: z.array(z.string()),
  }),
  latest_handoff: z
    .object({
      handoff_id: z.string().describe('the node id of the handoff (a store record, a free-text write or a session event)'),
      source_kind: EvidenceSourceKind.describe('handoff: the handoff store; memory: a write that reads as a handoff; session_event: a handoff event'),
      anchor: z.string().nullable(),
      title: z.string().nullable(),
      summary: z.string(),
      next_action: z.string().nullable(),
      revision: z.number().int(),
      previous_revision: z.object({ revision: z.number().int(), summary: z.string(), superseded_at: z.string() }).nullable(),
      updated_at: z.string(),
      evidence_ids: z.array(z.string()).describe('the handoff, the resume event and the latest terminal run it is read with'),
    })
    .nullable(),
  latest_resume: z.object({ event_id: z.string(), event_type: z.string(), title: z.string().nullable(), summary: z.string(), created_at: z.string() }).nullable(),
  latest_terminal_run: z
    .object({
      node_id: z.string().nullable().describe('null for a replay or automation run (not a memory node)'),
      run_id: z.string().nullable(),
      outcome: z.string().nullable(),
      title: z.string().nullable(),
      summary: z.string(),
      error_signatures: z.array(z.string()),
      created_at: z.string(),
      source_kind: EvidenceSourceKind,
      ended_at: z.string(),
    })
    .nullable(),
  recovered_handoff: z
    .object({
      handoff_id: z.string(),
      anchor: z.string().nullable(),
      title: z.string().nullable(),
      summary: z.string(),
      handoff_text: z.string(),
      target_files: z.array(z.string()),
      next_action: z.string().nullable(),
      acceptance_checks: z.array(z.string()),
      rollback_notes: z.array(z.string()),
      handoff_kind: z.string().nullable(),
      session_id: z.string().nullable(),
      run_id: z.string().nullable(),
      revision: z.number().int(),
      tier: z.string(),
      actor: z.string(),
      updated_at: z.string(),
    })
    .nullable(),
  anchor_evidence: z
    .array(
      z.object({
        id: z.string(),
        source_kind: EvidenceSourceKind,
        node_id: z.string().nullable(),
        run_id: z.string().nullable(),
        title: z.string().nullable(),
        summary: z.string(),
        outcome: z.string().nullable(),
        files: z.array(z.string()),
        at: z.string(),
      }),
    )
    .describe('what names the anchor, newest first: memory, sessions and their events, handoffs, replay and automation runs of the task'),
});

/**
 * The agent memory surfaces (an extension: the existing SDK's memory.agent.* methods call them;
 * docs/compatibility.md): the task's evolution review pack and, given an anchor, the anchor's
 * continuity review pack, summed up in agent_memory_summary.
 */
const AgentInput = z
  .object({
    ...identityFields,
    ...taskInputFields,
    anchor: z.string().min(1).max(1024).optional().describe('the anchor whose continuity to include (nothing naming it: continuity is null)'),
    file_path: BoundedText(4096).optional().describe('the task’s file (read as context.file_path when the context has none)'),
  })
  .transform(({ file_path, ...v }) => (file_path && !v.context?.file_path ? { ...v, context: { ...(v.context ?? {}), file_path } } : v));

const PolicyStateEnum = z.enum(POLICY_STATES);
const AgentMemorySummary = z.object({
  summary_version: z.literal('agent_memory_inspect_summary_v1'),
  has_continuity: z.boolean(),
  latest_handoff_anchor: z.string().nullable(),
  latest_resume_source_kind: z.string().nullable(),
  selected_tool: z.string().nullable(),
  recommended_file_path: z.string().nullable(),
  recommended_next_action: z.string().nullable(),
  history_applied: z.boolean(),
  stable_workflow_count: z.number().int(),
  promotion_ready_workflow_count: z.number().int(),
  trusted_pattern_count: z.number().int(),
  suppressed_pattern_count: z.number().int(),
  handoff_related_items: z.number().int(),
  resume_related_items: z.number().int(),
  derived_policy_source_kind: z.enum(POLICY_SOURCES).nullable(),
  derived_policy_selected_tool: z.string().nullable(),
  derived_policy_state: z.enum(PROMOTION_STATES).nullable(),
  policy_activation_mode: z.enum(ACTIVATION_MODES).nullable(),
  policy_review_recommended: z.boolean(),
  contested_policy_count: z.number().int(),
  retired_policy_count: z.number().int(),
  selected_policy_memory_id: z.string().nullable().describe('the persisted policy memory that speaks for the task'),
  selected_policy_memory_state: PolicyStateEnum.nullable(),
  policy_governance_action: z.enum(GOVERNANCE_ACTIONS_OR_NONE).describe('the last governance action applied to the selected policy memory'),
  policy_governance_applied_at: z.string().nullable(),
  policy_governance_proposed_action: z.enum(GOVERNANCE_ACTIONS_OR_NONE).describe('what the evolution review pack proposes now'),
  policy_governance_review_required: z.boolean(),
  policy_governance_apply_payload: GovernancePayload.nullable(),
  policy_governance_auto_applied: z.boolean().describe('always false: Lore applies governance only when asked'),
});
const AgentMemoryInspect = z.object({
  summary_version: z.literal('agent_memory_inspect_v1'),
  query_text: z.string(),
  agent_memory_summary: AgentMemorySummary,
  continuity_review_pack: ContinuityReviewPack.nullable(),
  evolution_review_pack: EvolutionReviewPack,
  derived_policy: DerivedPolicy,
  policy_contract: PolicyContract,
  policy_review: z.array(PolicyReview),
  policy_governance_contract: GovernanceContract,
  policy_governance_apply_payload: GovernancePayload.nullable(),
  policy_governance_apply_result: GovernanceApplyResult.nullable(),
});
const agentAnchors = {
  stable_workflow_anchor_id: z.string().nullable(),
  promotion_ready_anchor_ids: z.array(z.string()),
  trusted_pattern_anchor_ids: z.array(z.string()),
  suppressed_pattern_anchor_ids: z.array(z.string()),
};
const agentPackOutput = <K extends string>(summary_version: K, pack: z.ZodType) =>
  z.object({ ...echoFields, summary_version: z.literal(summary_version), query_text: z.string(), agent_memory_inspect: AgentMemoryInspect, pack });
const packObject = (version: string, fields: z.ZodRawShape) => z.object({ pack_version: z.literal(version), ...agentAnchors, ...fields }).catchall(z.unknown());
const agentRoute = <N extends string, O extends z.ZodType>(name: N, path: string, summary: string, output: O) => route({ name, path, summary, input: AgentInput, output });

const agentRoutes = {
  'learning.agentInspect': agentRoute(
    'learning.agentInspect',
    '/v1/memory/agent/inspect',
    'Extension (the existing SDK’s memory.agent.inspect): agent_memory_summary (first step, learned workflows and patterns, the selected policy memory with its state and last governance action) over the task’s evolution review pack and, given an anchor, its continuity review pack.',
    z.object({ ...echoFields, ...AgentMemoryInspect.shape }),
  ),
  'learning.agentReviewPack': agentRoute(
    'learning.agentReviewPack',
    '/v1/memory/agent/review-pack',
    'Extension (memory.agent.reviewPack): what a reviewer reads first — the first step, learned anchors, the handoff’s target files, checks and blockers, and the policy review — with the inspect answer.',
    agentPackOutput('agent_memory_review_pack_v1', z.never())
      .omit({ pack: true })
      .extend({
        agent_memory_review_pack: packObject('agent_memory_review_pack_v1', {
          selected_tool: z.string().nullable(),
          handoff_target_files: z.array(z.string()),
          acceptance_checks: z.array(z.string()),
          rollback_required: z.boolean(),
        }),
      }),
  ),
  'learning.agentResumePack': agentRoute(
    'learning.agentResumePack',
    '/v1/memory/agent/resume-pack',
    'Extension (memory.agent.resumePack): how to resume — the file, target files and next action of the anchor’s handoff (else the learned first step), whether it is resume-ready — with the inspect answer.',
    agentPackOutput('agent_memory_resume_pack_v1', z.never())
      .omit({ pack: true })
      .extend({
        agent_memory_resume_pack: packObject('agent_memory_resume_pack_v1', {
          resume_file_path: z.string().nullable(),
          resume_target_files: z.array(z.string()),
          resume_next_action: z.string().nullable(),
          rollback_required: z.boolean(),
        }),
      }),
  ),
  'learning.agentHandoffPack': agentRoute(
    'learning.agentHandoffPack',
    '/v1/memory/agent/handoff-pack',
    'Extension (memory.agent.handoffPack): the anchor’s latest handoff as the next agent receives it (kind, target files, next action, checks, rollback) with the learned anchors and the inspect answer.',
    agentPackOutput('agent_memory_handoff_pack_v1', z.never())
      .omit({ pack: true })
      .extend({
        agent_memory_handoff_pack: packObject('agent_memory_handoff_pack_v1', {
          handoff_kind: z.string().nullable(),
          handoff_target_files: z.array(z.string()),
          handoff_next_action: z.string().nullable(),
          rollback_required: z.boolean(),
        }),
      }),
  ),
};

export const learningRoutes = {
  'learning.kickoffRecommendation': route({
    name: 'learning.kickoffRecommendation',
    path: '/v1/memory/kickoff/recommendation',
    summary:
      'Task start: a compact first_action (tool, file, next action) learned from prior executions of similar tasks, with evidence ids, or null when nothing relevant was learned; the raw recommendation with rationale and alternatives; uncertainty.',
    input: KickoffInput,
    output: z.object({
      ...echoFields,
      summary_version: z.literal('kickoff_recommendation_v1'),
      query_text: z.string().describe('the task text the recommendation was made for'),
      first_action: FirstAction.nullable(),
      kickoff_recommendation: KickoffRecommendation,
      rationale: Rationale,
      uncertainty: Uncertainty,
      action_retrieval_uncertainty: Uncertainty.describe('the same as uncertainty (the name existing clients read)'),
      task_family: TaskFamilyView.nullable(),
    }),
  }),
  'learning.planningContext': route({
    name: 'learning.planningContext',
    path: '/v1/memory/planning/context',
    summary:
      'Planning context for a task: kickoff recommendation, planner packet (recommended and candidate workflows, trusted and contested patterns, rehydration candidates, supporting knowledge, merged text), workflow and pattern signals, planning_summary (forgetting, continuity carriers, distillation signals, counts, selected tool, explanation), and layered context on request.',
    input: PlanningInput,
    output: z.object({
      ...echoFields,
      first_action: FirstAction.nullable(),
      kickoff_recommendation: KickoffRecommendation,
      planner_packet: PlannerPacket,
      workflow_signals: z.array(SignalView),
      pattern_signals: z.array(SignalView),
      planning_summary: PlanningSummary,
      uncertainty: Uncertainty,
      operator_projection: OperatorProjection,
      layered_context: LayeredContext.optional(),
    }),
  }),
  'learning.contextAssemble': route({
    name: 'learning.contextAssemble',
    path: '/v1/memory/context/assemble',
    summary:
      'Prompt-ready context for a task within char_budget/token_budget: layers (first action, workflows, patterns and policies, rules, supporting knowledge), the ids used, the budget used, and what was dropped and why.',
    input: AssembleInput,
    output: z.object({
      ...echoFields,
      context_text: z.string(),
      layers: z.record(z.string(), z.object({ text: z.string(), chars: z.number().int(), ids: z.array(z.string()) })),
      sources: z.array(z.string()),
      budget: z.object({ used: z.number().int(), limit: z.number().int(), unit: z.enum(BUDGET_UNITS) }),
      dropped: z.array(z.object({ layer: z.string(), id: z.string().nullable(), reason: z.string() })),
      planning_summary: PlanningSummary,
      operator_projection: OperatorProjection,
    }),
  }),
  'learning.actionRetrieval': route({
    name: 'learning.actionRetrieval',
    path: '/v1/memory/action/retrieval',
    summary: 'The next action for a task with its evidence, source kind and uncertainty (level, confidence, reasons, recommended actions) and a gate action.',
    input: KickoffInput,
    output: z.object({
      ...echoFields,
      selected_tool: z.string().nullable(),
      file_path: z.string().nullable(),
      next_action: z.string().nullable(),
      source_kind: SourceKindEnum.nullable(),
      recommended_file_path: z.string().nullable().describe('the same as file_path'),
      recommended_next_action: z.string().nullable().describe('the same as next_action'),
      tool_source_kind: SourceKindEnum.nullable().describe('where the selected tool comes from (source_kind values)'),
      tool: z.object({
        selected_tool: z.string().nullable(),
        ordered_tools: z.array(z.string()).describe('candidates best first; denied tools left out'),
        preferred_tools: z.array(z.string()).describe('tools with learned support (a workflow, pattern or policy memory)'),
        allowed_tools: z.array(z.string()).describe('candidates no active rule denies'),
      }),
      rationale: Rationale,
      history_applied: z.boolean(),
      evidence: z.array(EvidenceView),
      uncertainty: Uncertainty,
      gate_action: z.enum(GATE_ACTIONS),
    }),
  }),
  'learning.experienceIntelligence': route({
    name: 'learning.experienceIntelligence',
    path: '/v1/memory/experience/intelligence',
    summary:
      'Workflow and tool guidance for a task: recommended workflows, selected tool and tool ranking with reasons, policy_hints, derived_policy, policy_contract (computed, or the persisted policy memory when one applies), path and uncertainty.',
    input: ExperienceInput,
    output: z.object({
      ...echoFields,
      recommended_workflows: z.array(WorkflowView),
      selected_tool: z.string().nullable(),
      tool_ranking: z.array(ToolScoreView),
      policy_hints: PolicyHints,
      derived_policy: DerivedPolicy,
      policy_contract: PolicyContract,
      policy_memory: PolicyMemoryView.nullable(),
      path: z.object({ file_path: z.string().nullable(), target_files: z.array(z.string()), next_action: z.string().nullable() }),
      history_applied: z.boolean(),
      uncertainty: Uncertainty,
      task_family: TaskFamilyView.nullable(),
    }),
  }),
  'learning.executionIntrospect': route({
    name: 'learning.executionIntrospect',
    path: '/v1/memory/execution/introspect',
    summary:
      'What the scope has learned: demo_surface sections (workflows, patterns, policies, handoffs, sessions), supporting knowledge including persisted policy memories, execution_summary with the forgetting summary, and execution_native_v1.distillation origin counts.',
    input: z.object({ ...identityFields, ...taskInputFields, limit: z.number().int().min(1).max(100).default(20) }),
    output: z.object({
      ...echoFields,
      demo_surface: z.object({
        sections: z.object({
          workflows: z.array(SectionEntry),
          patterns: z.array(SectionEntry),
          policies: z.array(SectionEntry),
          handoffs: z.array(SectionEntry),
          sessions: z.array(SectionEntry),
        }),
        merged_text: z.string(),
      }),
      recommended_workflows: z.array(SectionEntry).describe('stable workflows of demo_surface.sections.workflows, each with anchor_id and file_path'),
      candidate_workflows: z.array(SectionEntry).describe('candidate workflows of demo_surface.sections.workflows, each with anchor_id and file_path'),
      supporting_knowledge: z.array(SectionEntry),
      execution_summary: z.object({
        forgetting_summary: ForgettingSummary,
        workflow_counts: z.object({ total: z.number().int(), stable: z.number().int(), candidate: z.number().int(), promotion_ready: z.number().int() }),
        pattern_counts: countsOf(PATTERN_CLASSES),
        policy_counts: countsOf(POLICY_STATES),
        rule_counts: countsOf(RULE_STATES),
        continuity_carrier_counts: z.object({ handoffs: z.number().int(), sessions: z.number().int(), session_events: z.number().int() }),
      }),
      execution_native_v1: z.object({
        distillation: z.object({ origin_counts: OriginCounts, observation_origin_counts: OriginCounts, workflow_count: z.number().int() }),
      }),
      continuity_carrier_summary: ContinuityCarrierSummary.describe('the continuity carriers behind every workflow of the scope'),
      distillation_signal_summary: DistillationSignalSummary.describe('the distillation origins behind every workflow of the scope'),
    }),
  }),
  'learning.toolsSelect': route({
    name: 'learning.toolsSelect',
    path: '/v1/memory/tools/select',
    summary:
      'Ranks tool candidates for a task by trusted patterns, stable workflows, active policy memory and rules, with reasons; records a decision_id that tools/feedback can cite.',
    input: z.object({ ...identityFields, ...taskInputFields, run_id: CallerId.optional() }),
    output: z.object({
      ...echoFields,
      decision_id: z.string(),
      decision: z
        .object({ decision_id: z.string(), selected_tool: z.string().nullable(), candidates: z.array(z.string()), created_at: z.string() })
        .describe('the recorded decision (its id is what tools/feedback cites)'),
      selected_tool: z.string().nullable(),
      selection_basis: z.enum(SELECTION_BASES),
      ranking: z.array(ToolScoreView),
      candidates: z.array(z.string()),
      rules: RuleEvaluationView,
      task_family: TaskFamilyView.nullable(),
      history_applied: z.boolean(),
      uncertainty: Uncertainty,
    }),
  }),
  'learning.toolsFeedback': route({
    name: 'learning.toolsFeedback',
    path: '/v1/memory/tools/feedback',
    summary:
      'Records the outcome of using a tool for a task. Counts accumulate per distinct run (run_id, else decision_id, else the task text); patterns become trusted, contested or revalidated; positive feedback on a tool backed by a trusted pattern or stable workflow materialises a persisted policy memory.',
    errors: ['not_found'],
    input: z.object({
      ...identityFields,
      ...taskInputFields,
      outcome: z.enum(FEEDBACK_OUTCOMES),
      selected_tool: ToolName,
      target: z.enum(FEEDBACK_TARGETS).default('tool'),
      input_text: BoundedText().nullish(),
      decision_id: NodeId.optional(),
      run_id: CallerId.optional(),
      reason: Reason.nullish(),
    }),
    output: z.object({
      ...echoFields,
      recorded: z.boolean(),
      decision_id: z.string().nullable(),
      run_key: z.string(),
      task_family: TaskFamilyView,
      pattern: PatternView,
      policy_memory: PolicyMemoryView.nullable(),
      policy_materialized: z.boolean(),
      learning: z.object({ patterns_updated: z.array(z.string()), policies_updated: z.array(z.string()) }),
    }),
  }),
  'learning.patternsSuppress': route({
    name: 'learning.patternsSuppress',
    path: '/v1/memory/patterns/suppress',
    summary: 'Operator overlay: a suppressed pattern is never applied, whatever feedback arrives, until patterns/unsuppress.',
    errors: ['not_found'],
    input: patternRef('suppressed by operator'),
    output: z.object({ ...echoFields, pattern: PatternView, changed: z.boolean() }),
  }),
  'learning.patternsUnsuppress': route({
    name: 'learning.patternsUnsuppress',
    path: '/v1/memory/patterns/unsuppress',
    summary: 'Lifts the operator overlay; the pattern returns to the class its feedback gives it.',
    errors: ['not_found'],
    input: patternRef('unsuppressed by operator'),
    output: z.object({ ...echoFields, pattern: PatternView, changed: z.boolean() }),
  }),
  'learning.policiesGovernanceApply': route({
    name: 'learning.policiesGovernanceApply',
    path: '/v1/memory/policies/governance/apply',
    summary: 'Retires (active or contested → retired; no longer applied, later feedback does not revive it) or reactivates (retired → active) a persisted policy memory.',
    errors: ['not_found', 'invalid_state'],
    input: z.object({ ...identityFields, policy_memory_id: NodeId, action: z.enum(GOVERNANCE_ACTIONS), reason: Reason.default('operator decision') }),
    output: z.object({
      ...echoFields,
      action: z.enum(GOVERNANCE_ACTIONS),
      previous_state: z.enum(POLICY_STATES),
      next_state: z.enum(POLICY_STATES).describe('the policy memory’s state after the action (policy_memory.state)'),
      policy_memory: PolicyMemoryView,
      live_policy_contract: PolicyContract.describe('the policy contract as it stands after the action'),
    }),
  }),
  'learning.rulesState': route({
    name: 'learning.rulesState',
    path: '/v1/memory/rules/state',
    summary:
      'Creates a rule (give rule_id, state and rule {conditions, effects}) or moves an existing one (rule_id or rule_node_id) between draft, shadow, active and disabled. Active rules are applied by tool selection; shadow rules are evaluated and reported only.',
    errors: ['not_found', 'invalid_state', 'validation_failed'],
    input: z
      .object({
        ...identityFields,
        rule_id: CallerId.optional(),
        rule_node_id: NodeId.optional(),
        state: RuleStateEnum,
        rule: z
          .strictObject({
            description: BoundedText(4096).nullish(),
            conditions: RuleConditionsInput.default({}),
            effects: z.array(RuleEffectInput).min(1).max(50),
            priority: z.number().int().min(-1000).max(1000).default(0),
          })
          .optional(),
        reason: Reason.optional().describe("why (default 'state change')"),
        note: Reason.optional().describe('alias of reason'),
      })
      .superRefine((v, ctx) => {
        if (!v.rule_id && !v.rule_node_id) ctx.addIssue({ code: 'custom', path: ['rule_id'], message: 'give rule_id (or rule_node_id)' });
      })
      .transform(({ note, ...v }) => ({ ...v, reason: v.reason ?? note ?? 'state change' })),
    output: z.object({ ...echoFields, rule: RuleView, previous_state: RuleStateEnum.nullable(), created: z.boolean() }),
  }),
  'learning.rulesEvaluate': route({
    name: 'learning.rulesEvaluate',
    path: '/v1/memory/rules/evaluate',
    summary: 'Evaluates the scope’s shadow and active rules for a task: which match and why, the tool effects active rules apply, and the effects shadow rules would apply.',
    input: z.object({ ...identityFields, ...taskInputFields }),
    output: z.object({ ...echoFields, evaluation: RuleEvaluationView, candidates_after: z.array(z.string()) }),
  }),
  'learning.evolutionReviewPack': route({
    name: 'learning.evolutionReviewPack',
    path: '/v1/memory/evolution/review-pack',
    summary:
      'Is the runtime learning the right thing for this task: learning summary and recommendations, stable and promotion-ready workflows, trusted, contested and suppressed patterns, evolution_inspect (experience intelligence, policy hints, derived policy, policy contract, policy review, governance contract) and governance payloads that policies/governance/apply accepts.',
    input: ReviewPackInput,
    output: z.object({
      ...echoFields,
      evolution_review_pack: EvolutionReviewPack,
      evolution_inspect: EvolutionReviewPack.shape.evolution_inspect.describe('the same as evolution_review_pack.evolution_inspect (existing clients read it here)'),
    }),
  }),
  'learning.continuityReviewPack': route({
    name: 'learning.continuityReviewPack',
    path: '/v1/memory/continuity/review-pack',
    summary:
      'Can a task resume safely: review_contract (target files, next action, acceptance checks, rollback expectations), latest handoff, latest resume, latest terminal run of the task and recovered handoff for an anchor; without a handoff, assembled from the evidence that names the anchor (not_found when nothing does).',
    errors: ['not_found'],
    input: z.object({ ...identityFields, ...taskInputFields, anchor: z.string().min(1).max(1024) }),
    output: z.object({ ...echoFields, continuity_review_pack: ContinuityReviewPack }),
  }),
  ...agentRoutes,
  ...learningListRoutes,
} as const;

export { ToolList, ToolScoreView, PolicyHints, DerivedPolicy };
