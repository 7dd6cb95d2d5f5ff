import type { PatternClass, PatternSlot } from './pattern-model';
import type { PolicySlot } from './policy-model';
import type { Signals } from './score';
import type { Learned } from './scope-state';
import type { WorkflowHead } from './workflow-model';

/**
 * What the planner found relevant to a task, one shape per kind of learned knowledge. Kept apart
 * from planner.ts so tool ranking, the first action and uncertainty read them without importing
 * the planner that calls them.
 */

export interface WorkflowMatch {
  entry: Learned<WorkflowHead>;
  score: number;
  signals: Signals;
}

export interface PatternMatch {
  entry: Learned<PatternSlot>;
  score: number;
  signals: Signals;
  cls: PatternClass;
  /**
   * The policy memory of the same family and tool when an operator retired it: the pattern it
   * was materialised from no longer steers tool choice either (a retirement would otherwise be
   * undone by the trusted pattern behind it). Null otherwise.
   */
  retired_policy_id: string | null;
}

export interface PolicyMatch {
  entry: Learned<PolicySlot>;
  score: number;
  /** Active and not retired: it shapes tool ranking and selection. */
  applies: boolean;
}
