import { z } from 'zod';
import { BoundedText, CallerId, Timestamp, countsOf } from '../common';
import { FEEDBACK_OUTCOMES } from '../../model/memory/vocabulary';
import {
  ACTIVATION_MODES,
  DISTILLATION_ORIGINS,
  FIRST_ACTION_KINDS,
  GATE_ACTIONS,
  HINT_PRIORITIES,
  MATERIALIZATION_STATES,
  PATTERN_CLASSES,
  PATTERN_STATES,
  POLICY_SOURCES,
  POLICY_STATES,
  POLICY_TRANSITION_ACTIONS,
  POLICY_TRANSITION_TRIGGERS,
  PROMOTION_STATES,
  RULE_EFFECTS,
  RULE_STATES,
  SOURCE_KINDS,
  STABLE_REASONS,
  TASK_KIND_MATCHES,
  UNCERTAINTY_LEVELS,
} from '../../model/learning/vocabulary';
import { ForgettingSummary } from '../shapes/forgetting';

/** Schemas shared by the learning routes (contract.md §2 planning surfaces, §3, §5; docs/learning.md). */

export const ToolName = z.string().min(1).max(200);
export const ToolList = z.array(ToolName).max(200);

/** context {goal, task_kind, file_path}: unknown fields inside are accepted and ignored. */
export const TaskContextInput = z.object({
  goal: BoundedText().nullish(),
  task_kind: z.string().max(200).nullish(),
  file_path: BoundedText(4096).nullish(),
});

/** What every learning read takes: the task (query_text and/or context) and tool candidates. */
export const taskInputFields = {
  query_text: BoundedText().nullish(),
  context: TaskContextInput.nullish(),
  tool_candidates: ToolList.nullish(),
  candidates: ToolList.nullish(),
};

export const SourceKindEnum = z.enum(SOURCE_KINDS);
export const OriginEnum = z.enum(DISTILLATION_ORIGINS);
export const OriginCounts = countsOf(DISTILLATION_ORIGINS);

export const RecommendedActionEnum = z.enum(GATE_ACTIONS);
export const Uncertainty = z.object({
  level: z.enum(UNCERTAINTY_LEVELS),
  confidence: z.number(),
  reasons: z.array(z.string()),
  recommended_actions: z.array(RecommendedActionEnum),
});

export const FirstAction = z.object({
  action_kind: z.enum(FIRST_ACTION_KINDS),
  selected_tool: z.string().nullable(),
  file_path: z.string().nullable(),
  next_action: z.string(),
  source_kind: SourceKindEnum,
  history_applied: z.boolean(),
  confidence: z.number(),
  relevance: z.number(),
  evidence_ids: z.array(z.string()),
  rationale: z.string(),
  workflow_id: z.string().nullable(),
  policy_memory_id: z.string().nullable(),
  pattern_id: z.string().nullable(),
});

export const ToolScoreView = z.object({
  tool: z.string(),
  score: z.number(),
  denied: z.boolean(),
  reasons: z.array(z.string()),
  source_kinds: z.array(SourceKindEnum),
  evidence_ids: z.array(z.string()),
});

export const WorkflowStepView = z.object({ tool: z.string().nullable(), file_path: z.string().nullable(), next_action: z.string().nullable() });

export const WorkflowView = z.object({
  workflow_id: z.string(),
  client_id: z.string().nullable(),
  task_family: z.string(),
  goal: z.string(),
  task_kind: z.string().nullable(),
  promotion_state: z.enum(PROMOTION_STATES),
  promotion_ready: z.boolean(),
  stable_reason: z.enum(STABLE_REASONS).nullable(),
  distillation_origin: OriginEnum,
  origin_counts: OriginCounts,
  steps: z.array(WorkflowStepView),
  target_files: z.array(z.string()),
  counts: z.object({ observations: z.number().int(), successes: z.number().int(), failures: z.number().int(), partials: z.number().int(), unresolved_failures: z.number().int() }),
  observed_count: z.number().int().describe('successful observations (counts.successes)'),
  required_observations: z.number().int().describe('consistent successes the workflow needs to be stable: 3, or 2 when learned only from continuity carriers'),
  consistent_first_step: z.boolean(),
  provenance_ids: z.array(z.string()),
  playbook_ids: z.array(z.string()),
  tier: z.string(),
  confidence: z.number(),
  relevance: z.number().nullable(),
  line: z.string(),
  updated_at: Timestamp,
});

export const PatternClassEnum = z.enum(PATTERN_CLASSES);
export const PatternView = z.object({
  pattern_id: z.string(),
  tool: z.string(),
  task_family: z.string(),
  task_family_label: z.string(),
  task_kind: z.string().nullable(),
  state: PatternClassEnum,
  underlying_state: z.enum(PATTERN_STATES),
  suppressed: z.object({ actor: z.string(), reason: z.string(), at: Timestamp }).nullable(),
  distinct_positive_runs: z.number().int(),
  distinct_negative_runs: z.number().int(),
  fresh_positive_runs: z.number().int(),
  open_counter_evidence: z.number().int(),
  counts: countsOf(FEEDBACK_OUTCOMES),
  trusted_at: z.string().nullable(),
  contested_at: z.string().nullable(),
  confidence: z.number(),
  relevance: z.number().nullable(),
  history: z.array(z.object({ at: z.string(), from: z.string(), to: z.string(), actor: z.string(), reason: z.string(), trigger: z.string() })),
  line: z.string(),
});

export const PolicyHistoryEntry = z.object({
  at: z.string(),
  actor: z.string(),
  action: z.enum(POLICY_TRANSITION_ACTIONS),
  from: z.string(),
  to: z.string(),
  reason: z.string(),
  trigger: z.enum(POLICY_TRANSITION_TRIGGERS),
});

export const PolicyContract = z.object({
  policy_memory_id: z.string().nullable(),
  materialization_state: z.enum(MATERIALIZATION_STATES),
  policy_memory_state: z.enum(POLICY_STATES).nullable(),
  activation_mode: z.enum(ACTIVATION_MODES),
  applies: z.boolean(),
  selected_tool: z.string().nullable(),
  avoid_tools: z.array(z.string()),
  task_family: z.string().nullable(),
  task_family_label: z.string().nullable(),
  task_kind: z.string().nullable(),
  source: z.enum(POLICY_SOURCES).nullable(),
  file_path: z.string().nullable(),
  target_files: z.array(z.string()),
  supporting_anchor_ids: z.array(z.string()),
  reason: z.string(),
  confidence: z.number(),
  history: z.array(PolicyHistoryEntry),
});

export const PolicyMemoryView = z.object({
  node_id: z.string(),
  policy_memory_state: z.enum(POLICY_STATES).describe('policy_contract.policy_memory_state'),
  selected_tool: z.string().describe('policy_contract.selected_tool'),
  activation_mode: z.enum(ACTIVATION_MODES).describe('policy_contract.activation_mode'),
  policy_contract: PolicyContract,
  counts: z.object({ positive: z.number().int(), negative: z.number().int(), after_retire: z.number().int() }),
  updated_at: Timestamp,
});

export const RuleStateEnum = z.enum(RULE_STATES);
export const RuleEffect = z.object({ effect: z.enum(RULE_EFFECTS), tool: ToolName });
export const RuleConditions = z.object({
  task_kind: z.array(z.string().min(1).max(200)).max(50).optional(),
  terms_any: z.array(z.string().min(1).max(200)).max(50).optional(),
  terms_all: z.array(z.string().min(1).max(200)).max(50).optional(),
  file_path_prefix: z.array(z.string().min(1).max(1024)).max(50).optional(),
  tools_any: ToolList.max(50).optional(),
});
/** What a request may send: conditions and effects are filters, so an unknown key is validation_failed, never ignored. */
export const RuleEffectInput = z.strictObject(RuleEffect.shape);
export const RuleConditionsInput = z.strictObject(RuleConditions.shape);

export const RuleView = z.object({
  rule_node_id: z.string(),
  rule_id: z.string(),
  state: RuleStateEnum,
  description: z.string().nullable(),
  conditions: RuleConditions,
  effects: z.array(RuleEffect),
  priority: z.number(),
  history: z.array(z.object({ at: z.string(), actor: z.string(), from: RuleStateEnum.nullable(), to: RuleStateEnum, reason: z.string() })),
});

export const RuleEvaluationView = z.object({
  matched: z.array(z.object({ rule_id: z.string(), rule_node_id: z.string(), state: RuleStateEnum, applied: z.boolean(), effects: z.array(RuleEffect), why: z.array(z.string()) })),
  applied: z.object({ prefer: z.array(z.string()), deny: z.array(z.string()) }),
  shadow: z.object({ prefer: z.array(z.string()), deny: z.array(z.string()) }),
});

export const PolicyHints = z.object({
  preferred_tool: z.string().nullable(),
  avoid_tools: z.array(z.string()),
  contested_tools: z.array(z.string()),
  rehydration_suggested: z.boolean(),
  workflow_reuse: z.boolean(),
  denied_tools: z.array(z.string()),
});

export const DerivedPolicy = z.object({
  selected_tool: z.string().nullable(),
  source: z.enum(POLICY_SOURCES).nullable(),
  file_path: z.string().nullable(),
  target_files: z.array(z.string()),
  reason: z.string(),
  evidence_ids: z.array(z.string()),
});

export const KickoffRecommendation = z.object({
  history_applied: z.boolean(),
  selected_tool: z.string().nullable(),
  file_path: z.string().nullable(),
  next_action: z.string().nullable(),
  source_kind: SourceKindEnum.nullable(),
  confidence: z.number(),
  rationale: z.string(),
  evidence_ids: z.array(z.string()),
  workflow_id: z.string().nullable(),
  alternatives: z.array(
    z.object({
      source_kind: SourceKindEnum,
      id: z.string(),
      selected_tool: z.string().nullable(),
      file_path: z.string().nullable(),
      relevance: z.number(),
      confidence: z.number().describe('0..1: how likely this file or move is where the task starts'),
      evidence_ids: z.array(z.string()).describe('the past tasks (or the workflow and its runs) behind it'),
      why: z.string(),
    }),
  ),
});

export const ContinuityCarrierSummary = z.object({
  total_count: z.number().int(),
  handoff_count: z.number().int(),
  session_event_count: z.number().int(),
  session_count: z.number().int(),
  scope_carrier_counts: z.object({ handoffs: z.number().int(), sessions: z.number().int(), session_events: z.number().int() }),
});

export const DistillationSignalSummary = z.object({
  origin_counts: OriginCounts,
  scope_origin_counts: OriginCounts,
  observation_origin_counts: OriginCounts,
  workflow_count: z.number().int(),
  promotion_ready_count: z.number().int(),
});

export const ActionRetrievalGate = z
  .object({
    summary_version: z.literal('action_retrieval_gate_v1'),
    gate_action: RecommendedActionEnum.describe('the first recommended action (proceed when a first action stands), as action/retrieval’s gate_action'),
    escalates_task_start: z
      .boolean()
      .describe('true when the task should not start on the first action as it is: none, high uncertainty, or widen recall / rehydrate / operator review recommended'),
    level: z.enum(UNCERTAINTY_LEVELS),
    confidence: z.number(),
    primary_reason: z.string().nullable(),
    recommended_actions: z.array(RecommendedActionEnum).describe('what to do besides proceeding'),
    instruction: z.string().nullable(),
    selected_tool: z.string().nullable(),
    file_path: z.string().nullable(),
    rehydration_candidate_count: z.number().int(),
    preferred_rehydration: z.object({ anchor_id: z.string(), goal: z.string(), relevance: z.number(), mode: z.literal('differential') }).nullable(),
  })
  .describe('one place to branch on before acting on the first action (docs/learning.md, "Surfaces")');

export const PlanningSummary = z.object({
  forgetting_summary: ForgettingSummary,
  continuity_carrier_summary: ContinuityCarrierSummary,
  distillation_signal_summary: DistillationSignalSummary,
  counts: z.object({
    workflows: z.number().int(),
    stable_workflows: z.number().int(),
    candidate_workflows: z.number().int(),
    rehydration_candidates: z.number().int(),
    patterns: z.number().int(),
    trusted_patterns: z.number().int(),
    contested_patterns: z.number().int(),
    suppressed_patterns: z.number().int(),
    policy_memories: z.number().int(),
    active_policy_memories: z.number().int(),
    rules_applied: z.number().int(),
  }),
  selected_tool: z.string().nullable(),
  history_applied: z.boolean(),
  planner_explanation: z.string(),
  action_retrieval_uncertainty: Uncertainty.describe('the same as the answer’s uncertainty (where existing clients read it)'),
  action_retrieval_gate: ActionRetrievalGate,
});

const ActionHint = z.object({
  summary_version: z.literal('context_operator_action_hint_v1'),
  action: RecommendedActionEnum,
  priority: z.enum(HINT_PRIORITIES),
  instruction: z.string(),
  selected_tool: z.string().nullable(),
  file_path: z.string().nullable(),
  tool_route: z.string(),
  tool_method: z.literal('POST'),
  payload: z.record(z.string(), z.unknown()).describe('a body the route accepts (add tenant_id and scope)'),
  example_call: z.string(),
  preferred_rehydration_anchor_id: z.string().nullable(),
});

export const OperatorProjection = z
  .object({ action_retrieval_gate: ActionRetrievalGate, action_hints: z.array(ActionHint) })
  .describe('the gate, and one hint per recommended action besides proceeding, with the route that carries it out');

/** A planner-packet section entry: an object, with a one-line `line` for prompts. */
export const SectionEntry = z.object({ id: z.string(), kind: z.string(), line: z.string(), relevance: z.number().nullable() }).catchall(z.unknown());

export const PlannerPacket = z.object({
  sections: z.object({
    recommended_workflows: z.array(SectionEntry),
    candidate_workflows: z.array(SectionEntry),
    trusted_patterns: z.array(SectionEntry),
    contested_patterns: z.array(SectionEntry),
    rehydration_candidates: z.array(SectionEntry),
    supporting_knowledge: z.array(SectionEntry),
  }),
  merged_text: z.string(),
});

export const SignalView = z.object({
  id: z.string(),
  kind: z.string(),
  state: z.string(),
  relevance: z.number(),
  lexical: z.number(),
  dense: z.number().nullable(),
  dense_baseline: z.number().nullable(),
  task_kind_match: z.enum(TASK_KIND_MATCHES),
  file_match: z.boolean(),
  line: z.string(),
  observed_count: z.number().int().optional().describe('workflow signals: successful observations'),
  required_observations: z.number().int().optional().describe('workflow signals: consistent successes needed to be stable'),
});

export const EvidenceView = z.object({ id: z.string(), source_kind: z.string(), title: z.string().nullable(), score: z.number(), why: z.string() });

export { CallerId };
