import { patternConfidence } from './pattern-model';
import type { PatternMatch, PolicyMatch } from './matches';
import type { TaskRequest } from './request';
import type { RuleEvaluation } from './rule-model';
import { THRESHOLDS } from './score';
import type { Vote } from './file-vote';
import type { SourceKind } from './tool-ranking';
import { workflowConfidence } from './workflow-model';
import { usableStep } from './workflow-moves';
import type { FirstActionKind } from '../../model/learning/vocabulary';

/**
 * Task start's compact first move (contract.md §2, kickoff; docs/learning.md, "Task start"): the
 * file the vote of similar past tasks and matching workflows puts first (file-vote.ts), with the
 * tool the evidence used on it, unless the evidence is weak: the best past task is barely similar
 * and no workflow matches (MIN_SIMILARITY), or the vote is split many ways (MIN_CONFIDENCE). Without a file, an active policy memory or a trusted pattern may still
 * name the tool to start with. Every action lists the node ids it rests on. An active policy or
 * trusted pattern that applies also names the tool on the voted file.
 */

export interface FirstAction {
  action_kind: FirstActionKind;
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
  vote: Vote;
  patterns: PatternMatch[];
  policies: PolicyMatch[];
  rules: RuleEvaluation;
}

/** Below this, the best evidence (past task or workflow) is too unlike the task to start from. */
export const MIN_SIMILARITY = THRESHOLDS.task;
/** Below this share of the evidence, the vote is split too many ways to name one file. */
export const MIN_CONFIDENCE = 0.12;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

function describe(tool: string | null, file: string | null, nextAction: string | null = null): string {
  if (nextAction) return nextAction;
  if (tool && file) return `${tool} ${file}`;
  if (file) return `open ${file}`;
  return `use ${tool}`;
}

export const allowedBy = (r: TaskRequest, rules: RuleEvaluation) => (tool: string | null) =>
  tool === null || (!rules.deny.includes(tool) && (r.candidates.length === 0 || r.candidates.includes(tool)));

/** A learned tool preference that applies: an active policy memory, else a trusted pattern (not behind a retired policy). */
function preferredTool(i: Input, allowed: (tool: string | null) => boolean): { tool: string; policy: PolicyMatch | null; pattern: PatternMatch | null } | null {
  const policy = i.policies.find((p) => p.applies && p.score >= THRESHOLDS.action && allowed(p.entry.slot.tool));
  if (policy) return { tool: policy.entry.slot.tool, policy, pattern: null };
  const pattern = i.patterns.find((p) => p.cls === 'trusted' && !p.retired_policy_id && p.score >= THRESHOLDS.action && allowed(p.entry.slot.tool));
  if (pattern) return { tool: pattern.entry.slot.tool, policy: null, pattern };
  return null;
}

export function firstActionOf(i: Input): FirstAction | null {
  const allowed = allowedBy(i.request, i.rules);
  const base = { workflow_id: null, policy_memory_id: null, pattern_id: null, history_applied: true };
  const preferred = preferredTool(i, allowed);
  const top = i.vote.files[0];
  if (top && i.vote.best >= MIN_SIMILARITY && top.confidence >= MIN_CONFIDENCE) {
    const w = top.workflow;
    const step = w ? usableStep(w.entry.slot.steps, allowed) : null;
    const stepFile = step ? (step.step.file_path ?? w!.entry.slot.target_files[0] ?? null) : null;
    // The learned step when a workflow starts on this file; else a learned preference; else what the past tasks did there.
    const stepAgrees = !!step && stepFile === top.file;
    const tool = (stepAgrees ? step!.step.tool : null) ?? preferred?.tool ?? top.tool;
    const source: SourceKind = w
      ? w.entry.slot.promotion_state === 'stable'
        ? w.entry.slot.active_playbook_ids.length > 0
          ? 'replay_playbook'
          : 'stable_workflow'
        : 'candidate_workflow'
      : preferred?.policy
        ? 'policy_memory'
        : preferred?.pattern
          ? 'trusted_pattern'
          : 'recall';
    const learned = w ? workflowConfidence(w.entry.slot) * (0.5 + 0.5 * w.score) : 0;
    const tasks = top.evidence.filter((id) => id !== w?.entry.node.id);
    const why = [
      tasks.length > 0 ? `${tasks.length} similar past task${tasks.length === 1 ? '' : 's'} worked on ${top.file}` : null,
      w
        ? `${w.entry.slot.promotion_state} workflow "${w.entry.slot.goal}" starts there (${w.entry.slot.counts.successes} successful runs, relevance ${r3(w.score)})${stepAgrees && step!.index > 0 ? `; step ${step!.index + 1}, the first whose tool is available` : ''}`
        : null,
      preferred?.policy && tool === preferred.tool ? `active policy memory for "${preferred.policy.entry.slot.family_label}" prefers ${tool}` : null,
      preferred?.pattern && tool === preferred.tool ? `trusted pattern prefers ${tool} for "${preferred.pattern.entry.slot.label}"` : null,
    ].filter(Boolean);
    return {
      ...base,
      action_kind: 'file_step',
      selected_tool: tool,
      file_path: top.file,
      next_action: describe(tool, top.file, stepAgrees ? step!.step.next_action : null),
      source_kind: source,
      confidence: r3(Math.max(top.confidence, learned)),
      relevance: r3(Math.max(i.vote.best, w?.score ?? 0)),
      evidence_ids: [...new Set([...(w ? [w.entry.node.id, ...w.entry.slot.provenance_ids.slice(-5)] : []), ...tasks.slice(0, 5)])],
      rationale: why.join('; '),
      workflow_id: w?.entry.node.id ?? null,
      policy_memory_id: preferred?.policy?.entry.node.id ?? null,
      pattern_id: preferred?.pattern?.entry.node.id ?? null,
    };
  }
  if (preferred?.policy) {
    const p = preferred.policy;
    const s = p.entry.slot;
    return {
      ...base,
      action_kind: s.file_path ? 'file_step' : 'tool_step',
      selected_tool: s.tool,
      file_path: s.file_path,
      next_action: describe(s.tool, s.file_path),
      source_kind: 'policy_memory',
      confidence: r3(s.confidence * (0.5 + 0.5 * p.score)),
      relevance: r3(p.score),
      evidence_ids: [p.entry.node.id, ...s.supporting_anchor_ids],
      rationale: `active policy memory for "${s.family_label}": ${s.reason}`,
      policy_memory_id: p.entry.node.id,
    };
  }
  if (preferred?.pattern) {
    const p = preferred.pattern;
    const s = p.entry.slot;
    const file = s.files[0] ?? null;
    return {
      ...base,
      action_kind: file ? 'file_step' : 'tool_step',
      selected_tool: s.tool,
      file_path: file,
      next_action: describe(s.tool, file),
      source_kind: 'trusted_pattern',
      confidence: r3(patternConfidence(s) * (0.5 + 0.5 * p.score)),
      relevance: r3(p.score),
      evidence_ids: [p.entry.node.id],
      rationale: `trusted pattern: ${s.tool} for "${s.label}" (${s.positive_runs.length} positive runs)`,
      pattern_id: p.entry.node.id,
    };
  }
  return null;
}
