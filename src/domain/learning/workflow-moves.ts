import type { WorkflowMatch } from './matches';
import { relevance, THRESHOLDS } from './score';
import type { WorkflowStep } from './types';
import type { WorkflowSlot } from './workflow-model';

/**
 * The first move a matched workflow proposes, and when it may propose it at all: its first step
 * whose tool the caller can use, and only when the match is actionable (task start's vote,
 * file-vote.ts, and first-action.ts read these).
 */

export function usableStep(steps: WorkflowStep[], allowed: (tool: string | null) => boolean): { step: WorkflowStep; index: number } | null {
  const index = steps.findIndex((s) => allowed(s.tool));
  return index >= 0 ? { step: steps[index]!, index } : null;
}

/**
 * Whether a match reaches the action threshold only through its dense part: without the
 * embedding (words, task_kind and files alone) it would not act.
 */
export const denseLed = (w: Pick<WorkflowMatch, 'score' | 'signals'>) =>
  w.signals.dense !== null && w.score >= THRESHOLDS.action && relevance({ ...w.signals, dense: null }) < THRESHOLDS.action;

/**
 * Whether a workflow's learned first move is settled: stable, or a candidate whose runs so far
 * all began the same way with no failure since (`promotion_ready`).
 */
export const settledFirstMove = (s: Pick<WorkflowSlot, 'promotion_state' | 'promotion_ready'>) => s.promotion_state === 'stable' || s.promotion_ready;

/**
 * Workflows that may vote for the first move: actionable, with a step whose tool the caller can
 * use, and — when only the dense part (a paraphrase guess) makes them actionable — with a settled
 * first move.
 */
export function actionableWorkflows(workflows: WorkflowMatch[], allowed: (tool: string | null) => boolean): WorkflowMatch[] {
  return workflows.filter((w) => w.score >= THRESHOLDS.action && usableStep(w.entry.slot.steps, allowed) && (!denseLed(w) || settledFirstMove(w.entry.slot)));
}
