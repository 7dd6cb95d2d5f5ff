/**
 * The learning family's vocabulary (docs/learning.md): the states of what it learns (workflows,
 * patterns, policy memories, rules), where its evidence comes from, and the values of its
 * surfaces' answers. The learned records' shapes are in ./slots.ts.
 */

/** The interface spec's five distillation origins. */
export const DISTILLATION_ORIGINS = [
  'handoff_continuity_carrier',
  'session_event_continuity_carrier',
  'session_continuity_carrier',
  'execution_write_projection',
  'replay_learning_episode',
] as const;
export type DistillationOrigin = (typeof DISTILLATION_ORIGINS)[number];

/** A workflow is a candidate until it is seen often enough (or its playbook is active). */
export const PROMOTION_STATES = ['candidate', 'stable'] as const;
export type PromotionState = (typeof PROMOTION_STATES)[number];
export const STABLE_REASONS = ['observations', 'playbook_active'] as const;
export type StableReason = (typeof STABLE_REASONS)[number];

export const PATTERN_STATES = ['observed', 'trusted', 'contested'] as const;
export type PatternState = (typeof PATTERN_STATES)[number];
/** A pattern's class: its state, or `suppressed` (an operator overlay). */
export const PATTERN_CLASSES = [...PATTERN_STATES, 'suppressed'] as const;
export type PatternClass = (typeof PATTERN_CLASSES)[number];

export const POLICY_STATES = ['active', 'contested', 'retired'] as const;
export type PolicyState = (typeof POLICY_STATES)[number];
export const ACTIVATION_MODES = ['default', 'hint'] as const;
export type ActivationMode = (typeof ACTIVATION_MODES)[number];
export const POLICY_SOURCES = ['trusted_pattern', 'stable_workflow', 'blended'] as const;
export type PolicySource = (typeof POLICY_SOURCES)[number];
/** What an operator may do to a policy memory (governance)… */
export const GOVERNANCE_ACTIONS = ['retire', 'reactivate'] as const;
export type GovernanceAction = (typeof GOVERNANCE_ACTIONS)[number];
/** …the last one applied, or none… */
export const GOVERNANCE_ACTIONS_OR_NONE = ['none', ...GOVERNANCE_ACTIONS] as const;
/** …and what the evolution review recommends. */
export const GOVERNANCE_RECOMMENDATIONS = [...GOVERNANCE_ACTIONS, 'keep', 'wait_for_revalidation'] as const;
export type GovernanceRecommendation = (typeof GOVERNANCE_RECOMMENDATIONS)[number];
/** How a policy memory's state changed, and what made it change. */
export const POLICY_TRANSITION_ACTIONS = ['materialize', 'contest', 'revalidate', ...GOVERNANCE_ACTIONS] as const;
export type PolicyTransitionAction = (typeof POLICY_TRANSITION_ACTIONS)[number];
/** What moved a pattern from one state to another. */
export const PATTERN_TRANSITION_TRIGGERS = ['feedback', 'operator'] as const;
export type PatternTransitionTrigger = (typeof PATTERN_TRANSITION_TRIGGERS)[number];
export const POLICY_TRANSITION_TRIGGERS = ['feedback', 'governance'] as const;
export type PolicyTransitionTrigger = (typeof POLICY_TRANSITION_TRIGGERS)[number];
/** A policy contract computed for the answer, or read from a persisted policy memory. */
export const MATERIALIZATION_STATES = ['computed', 'persisted'] as const;

export const RULE_STATES = ['draft', 'shadow', 'active', 'disabled'] as const;
export type RuleState = (typeof RULE_STATES)[number];
export const RULE_EFFECTS = ['prefer', 'deny'] as const;
export type RuleEffectKind = (typeof RULE_EFFECTS)[number];

/** Where a kickoff recommendation or a tool ranking's support comes from. */
export const SOURCE_KINDS = ['stable_workflow', 'candidate_workflow', 'trusted_pattern', 'policy_memory', 'handoff', 'replay_playbook', 'recall'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
/**
 * What a continuity review contract is read from: the handoff store's record, the newest handoff's
 * free text, or the evidence that names the anchor (no handoff at all).
 */
export const REVIEW_CONTRACT_BASES = ['handoff', 'handoff_text', 'evidence'] as const;
export type ReviewContractBasis = (typeof REVIEW_CONTRACT_BASES)[number];
/** What a continuity evidence item is. */
export const EVIDENCE_KINDS = ['memory', 'session', 'session_event', 'handoff', 'replay_run', 'automation_run'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** The retrieval gate's recommendation before acting. */
export const GATE_ACTIONS = ['proceed', 'widen_recall', 'rehydrate_payload', 'inspect_context', 'request_operator_review'] as const;
export type GateAction = (typeof GATE_ACTIONS)[number];
export const UNCERTAINTY_LEVELS = ['low', 'moderate', 'high'] as const;
export type UncertaintyLevel = (typeof UNCERTAINTY_LEVELS)[number];
/** What a first action touches: a file, or a tool. */
export const FIRST_ACTION_KINDS = ['file_step', 'tool_step'] as const;
export type FirstActionKind = (typeof FIRST_ACTION_KINDS)[number];
/** How tools/select chose: learned ranking, rules, the caller's order, or nothing to choose from. */
export const SELECTION_BASES = ['learned', 'rules', 'candidate_order', 'none'] as const;
export type SelectionBasis = (typeof SELECTION_BASES)[number];
/** What tools/feedback is about. */
export const FEEDBACK_TARGETS = ['tool'] as const;
/** How a context budget is counted. */
export const BUDGET_UNITS = ['chars', 'tokens'] as const;
export type BudgetUnit = (typeof BUDGET_UNITS)[number];
/** An evolution review check: fine, or needs attention. */
export const CHECK_STATUSES = ['pass', 'attention'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];
/** How strongly an operator action hint asks for a field. */
export const HINT_PRIORITIES = ['required', 'recommended'] as const;
/** Whether a candidate's task kind matches the query's (none: either has none). */
export const TASK_KIND_MATCHES = ['match', 'mismatch', 'none'] as const;
export type TaskKindMatch = (typeof TASK_KIND_MATCHES)[number];
