import { patternConfidence } from './pattern-model';
import type { PatternMatch, PolicyMatch, WorkflowMatch } from './matches';
import type { TaskRequest } from './request';
import type { RuleEvaluation } from './rule-model';
import { relevance, THRESHOLDS } from './score';
import type { SimilarExecution } from './similar-executions';
import type { SourceKind } from './tool-ranking';
import type { WorkflowStep } from './types';
import { workflowConfidence, type WorkflowSlot } from './workflow-model';

/**
 * Task start's compact first move (contract.md §2, kickoff): from the most relevant learned
 * source that clears THRESHOLDS.action, in this order: a workflow (stable before candidate at
 * similar relevance; its first step whose tool the caller can use), an active policy memory, a
 * trusted pattern; else one prior successful execution found by recall (source_kind `recall`,
 * confidence capped low: seen once is not learned). Nothing relevant: null. Every action lists the
 * node ids it rests on.
 */

export interface FirstAction {
  action_kind: 'file_step' | 'tool_step';
  selected_tool: string | null;
  file_path: string | null;
  next_action: string;
  source_kind: SourceKind;
  history_applied: boolean;
  confidence: number;
  relevance: number;
  evidence_ids: string[];
  rationale: string;
  workflow_id: string | null;
  policy_memory_id: string | null;
  pattern_id: string | null;
}

interface Input {
  request: TaskRequest;
  workflows: WorkflowMatch[];
  patterns: PatternMatch[];
  policies: PolicyMatch[];
  rules: RuleEvaluation;
  recall: SimilarExecution[];
}

const RECALL_CONFIDENCE_CAP = 0.4;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

function describe(step: WorkflowStep): string {
  if (step.next_action) return step.next_action;
  if (step.tool && step.file_path) return `${step.tool} ${step.file_path}`;
  if (step.file_path) return `open ${step.file_path}`;
  return `use ${step.tool}`;
}

function usableStep(steps: WorkflowStep[], allowed: (tool: string | null) => boolean): { step: WorkflowStep; index: number } | null {
  const index = steps.findIndex((s) => allowed(s.tool));
  return index >= 0 ? { step: steps[index]!, index } : null;
}

/**
 * The two best actionable workflows are a tie with different first moves (e.g. a task_kind that
 * several families share, and no words or files to tell them apart).
 */
export function ambiguousWorkflows(usable: Pick<WorkflowMatch, 'score' | 'entry'>[], allowed: (tool: string | null) => boolean = () => true): boolean {
  const [a, b] = usable;
  if (!a || !b || a.score - b.score >= THRESHOLDS.ambiguity) return false;
  const move = (w: Pick<WorkflowMatch, 'entry'>) => {
    const st = usableStep(w.entry.slot.steps, allowed)?.step;
    return `${st?.tool ?? ''}|${st?.file_path ?? w.entry.slot.target_files[0] ?? ''}`;
  };
  return move(a) !== move(b);
}

/**
 * Whether a workflow's learned first move is settled: stable, or a candidate whose runs so far
 * all began the same way with no failure since (`promotion_ready`).
 */
export const settledFirstMove = (s: Pick<WorkflowSlot, 'promotion_state' | 'promotion_ready'>) => s.promotion_state === 'stable' || s.promotion_ready;

/**
 * Whether a match reaches the action threshold only through its dense part: without the
 * embedding (words, task_kind and files alone) it would not act.
 */
export const denseLed = (w: Pick<WorkflowMatch, 'score' | 'signals'>) =>
  w.signals.dense !== null && w.score >= THRESHOLDS.action && relevance({ ...w.signals, dense: null }) < THRESHOLDS.action;

/**
 * Workflows that may drive the first move: actionable, with a step whose tool the caller can use,
 * and — when only the dense part (a paraphrase guess) makes them actionable — with a settled first
 * move. A guess from meaning alone is one uncertainty; a first move the workflow's own runs do not
 * agree on is a second, and together they are not a recommendation (docs/learning.md,
 * "Thresholds").
 */
export function actionableWorkflows(workflows: WorkflowMatch[], allowed: (tool: string | null) => boolean): WorkflowMatch[] {
  return workflows.filter((w) => w.score >= THRESHOLDS.action && usableStep(w.entry.slot.steps, allowed) && (!denseLed(w) || settledFirstMove(w.entry.slot)));
}

export function firstActionOf(i: Input): FirstAction | null {
  const allowed = (tool: string | null) => tool === null || (!i.rules.deny.includes(tool) && (i.request.candidates.length === 0 || i.request.candidates.includes(tool)));
  const base = { workflow_id: null, policy_memory_id: null, pattern_id: null, history_applied: true };

  const usable = actionableWorkflows(i.workflows, allowed);
  if (ambiguousWorkflows(usable, allowed)) return null;
  for (const w of usable) {
    const s = w.entry.slot;
    const pick = usableStep(s.steps, allowed)!;
    const stable = s.promotion_state === 'stable';
    const file = pick.step.file_path ?? s.target_files[0] ?? null;
    const source: SourceKind = stable ? (s.active_playbook_ids.length > 0 ? 'replay_playbook' : 'stable_workflow') : 'candidate_workflow';
    return {
      ...base,
      action_kind: file ? 'file_step' : 'tool_step',
      selected_tool: pick.step.tool,
      file_path: file,
      next_action: describe({ ...pick.step, file_path: file }),
      source_kind: source,
      confidence: r3(workflowConfidence(s) * (0.5 + 0.5 * w.score)),
      relevance: r3(w.score),
      evidence_ids: [w.entry.node.id, ...s.provenance_ids.slice(-5)],
      rationale: `${s.promotion_state} workflow "${s.goal}" (${s.counts.successes} successful runs, relevance ${r3(w.score)})${pick.index > 0 ? `; step ${pick.index + 1}, the first whose tool is available` : ''}`,
      workflow_id: w.entry.node.id,
    };
  }
  const policy = i.policies.find((p) => p.applies && p.score >= THRESHOLDS.action && allowed(p.entry.slot.tool));
  if (policy) {
    const s = policy.entry.slot;
    return {
      ...base,
      action_kind: s.file_path ? 'file_step' : 'tool_step',
      selected_tool: s.tool,
      file_path: s.file_path,
      next_action: s.file_path ? `${s.tool} ${s.file_path}` : `use ${s.tool}`,
      source_kind: 'policy_memory',
      confidence: r3(s.confidence * (0.5 + 0.5 * policy.score)),
      relevance: r3(policy.score),
      evidence_ids: [policy.entry.node.id, ...s.supporting_anchor_ids],
      rationale: `active policy memory for "${s.family_label}": ${s.reason}`,
      policy_memory_id: policy.entry.node.id,
    };
  }
  // A trusted pattern whose policy memory was retired does not steer the first move either.
  const pattern = i.patterns.find((p) => p.cls === 'trusted' && !p.retired_policy_id && p.score >= THRESHOLDS.action && allowed(p.entry.slot.tool));
  if (pattern) {
    const s = pattern.entry.slot;
    const file = s.files[0] ?? null;
    return {
      ...base,
      action_kind: file ? 'file_step' : 'tool_step',
      selected_tool: s.tool,
      file_path: file,
      next_action: file ? `${s.tool} ${file}` : `use ${s.tool}`,
      source_kind: 'trusted_pattern',
      confidence: r3(patternConfidence(s) * (0.5 + 0.5 * pattern.score)),
      relevance: r3(pattern.score),
      evidence_ids: [pattern.entry.node.id],
      rationale: `trusted pattern: ${s.tool} for "${s.label}" (${s.positive_runs.length} positive runs)`,
      pattern_id: pattern.entry.node.id,
    };
  }
  for (const hit of i.recall) {
    const pick = usableStep(hit.obs.steps, allowed);
    if (!pick) continue;
    const file = pick.step.file_path ?? hit.obs.target_files[0] ?? null;
    return {
      ...base,
      action_kind: file ? 'file_step' : 'tool_step',
      selected_tool: pick.step.tool,
      file_path: file,
      next_action: describe({ ...pick.step, file_path: file }),
      source_kind: 'recall',
      confidence: r3(Math.min(RECALL_CONFIDENCE_CAP, 0.25 + 0.2 * hit.score)),
      relevance: r3(hit.score),
      evidence_ids: [hit.node_id],
      rationale: `one earlier successful execution of a similar task (${hit.node_id}); seen once, not yet a learned workflow`,
    };
  }
  return null;
}
