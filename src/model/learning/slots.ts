/**
 * The shapes the learning family stores in memory-node slots (docs/learning.md): a workflow
 * (slots.workflow_v1), a pattern (slots.pattern_v1), a policy memory (slots.policy_memory_v1) and
 * a rule (slots.rule_v1). Their state machines, and the slot names, are in
 * src/domain/learning/*-model.ts.
 */

import type { FeedbackOutcome } from '../memory/vocabulary';
import type {
  ActivationMode,
  DistillationOrigin,
  PatternClass,
  PatternState,
  PatternTransitionTrigger,
  PolicySource,
  PolicyState,
  PolicyTransitionAction,
  PolicyTransitionTrigger,
  PromotionState,
  RuleEffectKind,
  RuleState,
  StableReason,
} from './vocabulary';

/** How many observations came from each distillation origin. */
export type OriginCounts = Record<DistillationOrigin, number>;

/** One step of a workflow: the tool, the file it acted on and what came next. */
export interface WorkflowStep {
  /** Null when the carrier named a file but no tool (e.g. a handoff's target file). */
  tool: string | null;
  file_path: string | null;
  next_action: string | null;
}

/** slots.workflow_v1 of a node of kind `workflow` (state machine: src/domain/learning/workflow-model.ts). */
export interface WorkflowSlot {
  version: 1;
  family_id: string;
  task_kind: string | null;
  /** The goal of the founding execution (the family's name). */
  goal: string;
  goals: string[];
  term_counts: Record<string, number>;
  /** Descriptions that went into term_counts. */
  samples: number;
  steps: WorkflowStep[];
  target_files: string[];
  file_counts: Record<string, number>;
  first_steps: Record<string, number>;
  sequences: { key: string; steps: WorkflowStep[]; count: number; last_at: string }[];
  counts: { observations: number; successes: number; failures: number; partials: number; unresolved_failures: number };
  origin_counts: OriginCounts;
  distillation_origin: DistillationOrigin;
  promotion_state: PromotionState;
  promotion_ready: boolean;
  stable_reason: StableReason | null;
  consistent_first_step: boolean;
  playbook_ids: string[];
  active_playbook_ids: string[];
  provenance_ids: string[];
  recent: { source_id: string; origin: DistillationOrigin; outcome: string; run_id: string | null; at: string }[];
  open_failure_ids: string[];
  first_seen_at: string;
  last_seen_at: string;
  last_success_at: string | null;
  history: { at: string; from: PromotionState | null; to: PromotionState; reason: string }[];
}

/**
 * What a scope keeps in memory of every workflow (src/domain/learning/scope-state.ts): the slot without the two lists
 * only a change of the workflow reads (`recent`: the last observations, to count an attempt once;
 * `sequences`: the step sequences its steps are chosen from). They were ~57 % of a workflow's
 * heap (8.6 of 15.2 KB, measured on 3 300 workflows); a change reads the whole slot
 * (ScopeLearning.loadFullWorkflow).
 */
export type WorkflowHead = Omit<WorkflowSlot, 'recent' | 'sequences'>;

/** A move of a pattern's class, as kept in PatternSlot.history. */
export interface PatternTransition {
  at: string;
  from: PatternClass;
  to: PatternClass;
  actor: string;
  reason: string;
  trigger: PatternTransitionTrigger;
  run_key?: string;
}

/** slots.pattern_v1 of a node of kind `pattern`, one per (task family, tool) (state machine: src/domain/learning/pattern-model.ts). */
export interface PatternSlot {
  version: 1;
  family_id: string;
  /** A readable name of the task family (the goal or task text it was first seen with). */
  label: string;
  tool: string;
  task_kind: string | null;
  term_counts: Record<string, number>;
  samples: number;
  files: string[];
  state: PatternState;
  suppressed: { actor: string; reason: string; at: string } | null;
  counts: { positive: number; negative: number; neutral: number };
  positive_runs: string[];
  negative_runs: string[];
  /** Negative runs not yet answered by fresh positives (before trust) or since the contest. */
  open_counter_runs: string[];
  /** Positive runs after the latest negative. */
  fresh_positive_runs: string[];
  trusted_at: string | null;
  contested_at: string | null;
  recent: { run_key: string; outcome: FeedbackOutcome; at: string; decision_id: string | null; actor: string }[];
  history: PatternTransition[];
}

/** A move of a policy memory's state, as kept in PolicySlot.history. */
export interface PolicyTransition {
  at: string;
  actor: string;
  action: PolicyTransitionAction;
  from: PolicyState | 'none';
  to: PolicyState;
  reason: string;
  trigger: PolicyTransitionTrigger;
  run_key?: string;
}

/** slots.policy_memory_v1 of a node of kind `policy_memory`, one per (task family, tool) (state machine: src/domain/learning/policy-model.ts). */
export interface PolicySlot {
  version: 1;
  family_id: string;
  family_label: string;
  task_kind: string | null;
  term_counts: Record<string, number>;
  samples: number;
  tool: string;
  state: PolicyState;
  activation_mode: ActivationMode;
  source: PolicySource;
  avoid_tools: string[];
  file_path: string | null;
  target_files: string[];
  supporting_anchor_ids: string[];
  reason: string;
  confidence: number;
  counts: { positive: number; negative: number; after_retire: number };
  positive_runs: string[];
  fresh_positive_runs: string[];
  history: PolicyTransition[];
}

/** When a rule applies: all given conditions must hold (an empty object matches every task). */
export interface RuleConditions {
  task_kind?: string[];
  terms_any?: string[];
  terms_all?: string[];
  file_path_prefix?: string[];
  tools_any?: string[];
}

export interface RuleEffect {
  effect: RuleEffectKind;
  tool: string;
}

/** slots.rule_v1 of a node of type `rule`: an operator-authored tool preference (src/domain/learning/rule-model.ts). */
export interface RuleSlot {
  version: 1;
  rule_id: string;
  state: RuleState;
  description: string | null;
  conditions: RuleConditions;
  effects: RuleEffect[];
  priority: number;
  history: { at: string; actor: string; from: RuleState | null; to: RuleState; reason: string }[];
}
