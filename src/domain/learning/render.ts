import { patternClass, type PatternSlot } from './pattern-model';
import type { PolicySlot } from './policy-model';
import type { RuleSlot } from '../../model/learning/slots';
import type { WorkflowStep } from './types';
import type { WorkflowSlot } from './workflow-model';

/**
 * Readable text of learned nodes. Learned objects are ordinary memory nodes, so recall, packs and
 * forgetting show them; their text says what was learned and from what, in words a person (or a
 * prompt) can use directly.
 */

export interface Rendered {
  title: string;
  text: string;
  summary: string;
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

export function stepLine(s: WorkflowStep): string {
  const what = [s.tool ?? 'open', s.file_path].filter(Boolean).join(' ');
  return s.next_action ? `${what} — ${s.next_action}` : what;
}

export function renderWorkflow(w: WorkflowSlot): Rendered {
  const first = w.steps[0];
  const lines = [
    `Workflow (${w.promotion_state}${w.promotion_ready ? ', promotion ready' : ''}): ${w.goal}`,
    w.task_kind ? `Task kind: ${w.task_kind}` : null,
    ...w.steps.map((s, i) => `Step ${i + 1}: ${stepLine(s)}`),
    w.target_files.length > 0 ? `Target files: ${w.target_files.join(', ')}` : null,
    // No counters in the text: the text changes only when what was learned changes, so the
    // recall index (and its embeddings) is not re-fed on every observation.
    `Learned from repeated successful executions; origin ${w.distillation_origin}.`,
    w.goals.length > 1 ? `Also seen as: ${w.goals.filter((g) => g !== w.goal).join(' | ')}` : null,
  ].filter((l): l is string => l !== null);
  return {
    title: clip(`Workflow: ${w.goal}`, 200),
    text: lines.join('\n'),
    summary: clip(`${w.promotion_state} workflow for "${w.goal}"${first ? `; first step ${stepLine(first)}` : ''}`, 280),
  };
}

export function renderPattern(p: PatternSlot, label: string): Rendered {
  const cls = patternClass(p);
  return {
    title: clip(`Pattern: ${p.tool} for ${label}`, 200),
    text: [
      `Tool pattern (${cls}): ${p.tool} for tasks like "${label}"`,
      p.task_kind ? `Task kind: ${p.task_kind}` : null,
      p.suppressed ? `Suppressed by ${p.suppressed.actor}: ${p.suppressed.reason}` : null,
    ]
      .filter((l): l is string => l !== null)
      .join('\n'),
    summary: clip(`${cls} pattern: ${p.tool} for "${label}"`, 280),
  };
}

export function renderPolicy(p: PolicySlot): Rendered {
  return {
    title: clip(`Policy: prefer ${p.tool} for ${p.family_label}`, 200),
    text: [
      `Policy memory (${p.state}, ${p.activation_mode}): prefer ${p.tool} for tasks like "${p.family_label}"`,
      p.file_path ? `File: ${p.file_path}` : null,
      p.avoid_tools.length > 0 ? `Avoid: ${p.avoid_tools.join(', ')}` : null,
      `Reason: ${p.reason}`,
    ]
      .filter((l): l is string => l !== null)
      .join('\n'),
    summary: clip(`${p.state} policy: prefer ${p.tool} for "${p.family_label}"`, 280),
  };
}

export function renderRule(r: RuleSlot): Rendered {
  const effects = r.effects.map((e) => `${e.effect} ${e.tool}`).join(', ');
  return {
    title: clip(`Rule ${r.rule_id}: ${effects}`, 200),
    text: [`Rule ${r.rule_id} (${r.state}): ${effects}`, r.description, `Conditions: ${JSON.stringify(r.conditions)}`].filter((l): l is string => !!l).join('\n'),
    summary: clip(`${r.state} rule ${r.rule_id}: ${effects}`, 280),
  };
}
