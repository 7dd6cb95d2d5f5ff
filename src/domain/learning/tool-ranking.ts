import type { PatternMatch, PolicyMatch, WorkflowMatch } from './matches';
import { patternConfidence } from './pattern-model';
import type { TaskRequest } from './request';
import type { RuleEvaluation } from './rule-model';
import type { SourceKind } from '../../model/learning/vocabulary';

/**
 * Tool ranking (docs/learning.md, "Tool selection"): each learned source adds to a tool's score
 * in proportion to how relevant its task family is, and says so in `reasons`:
 *
 *   active policy memory   default +2.0, hint +1.0; its avoid_tools −1.0
 *   trusted pattern        +1.5 × confidence;  contested −1.0;  observed +0.3 × confidence
 *   stable workflow        +1.0 if the tool is in its steps, +0.5 more for the first step
 *   candidate workflow     +0.4, +0.2 more for the first step
 *   active rule            prefer +1.5; deny removes the tool (denied: true)
 *
 * all × relevance (rules are not scaled: they are explicit). Suppressed patterns, retired and
 * contested policies, trusted patterns whose policy memory an operator retired, and shadow rules
 * add nothing; they appear in reasons so a reader sees why.
 */

export type { SourceKind } from '../../model/learning/vocabulary';

export interface ToolScore {
  tool: string;
  score: number;
  denied: boolean;
  reasons: string[];
  source_kinds: SourceKind[];
  evidence_ids: string[];
}

export interface RankInput {
  request: TaskRequest;
  workflows: WorkflowMatch[];
  patterns: PatternMatch[];
  policies: PolicyMatch[];
  rules: RuleEvaluation;
}

const r2 = (x: number) => Math.round(x * 1000) / 1000;

export function rankTools(i: RankInput): ToolScore[] {
  const scores = new Map<string, ToolScore>();
  const restrict = i.request.candidates.length > 0;
  const entry = (tool: string): ToolScore | null => {
    if (restrict && !i.request.candidates.includes(tool)) return null;
    let s = scores.get(tool);
    if (!s) scores.set(tool, (s = { tool, score: 0, denied: false, reasons: [], source_kinds: [], evidence_ids: [] }));
    return s;
  };
  const add = (tool: string, delta: number, reason: string, kind: SourceKind | null, id: string | null) => {
    const s = entry(tool);
    if (!s) return;
    s.score += delta;
    s.reasons.push(reason);
    if (kind && delta > 0 && !s.source_kinds.includes(kind)) s.source_kinds.push(kind);
    if (id && !s.evidence_ids.includes(id)) s.evidence_ids.push(id);
  };
  for (const t of i.request.candidates) entry(t);

  for (const p of i.policies) {
    const s = p.entry.slot;
    const id = p.entry.node.id;
    if (!p.applies) {
      add(s.tool, 0, `policy memory ${id} is ${s.state}: not applied`, null, id);
      continue;
    }
    const w = s.activation_mode === 'default' ? 2 : 1;
    add(s.tool, w * p.score, `active policy memory ${id} (${s.activation_mode}, relevance ${r2(p.score)})`, 'policy_memory', id);
    for (const avoid of s.avoid_tools) add(avoid, -1 * p.score, `policy memory ${id} says avoid ${avoid}`, null, id);
  }
  for (const p of i.patterns) {
    const s = p.entry.slot;
    const id = p.entry.node.id;
    const runs = `${s.positive_runs.length}+/${s.negative_runs.length}- runs`;
    if (p.cls === 'suppressed') add(s.tool, 0, `pattern ${id} is suppressed by an operator: not applied`, null, id);
    else if (p.cls === 'trusted' && p.retired_policy_id) add(s.tool, 0, `trusted pattern ${id} backs retired policy memory ${p.retired_policy_id}: not applied`, null, id);
    else if (p.cls === 'trusted') add(s.tool, 1.5 * patternConfidence(s) * p.score, `trusted pattern ${id} (${runs}, relevance ${r2(p.score)})`, 'trusted_pattern', id);
    else if (p.cls === 'contested') add(s.tool, -1 * p.score, `contested pattern ${id} (${runs}): negative feedback after trust`, null, id);
    else add(s.tool, 0.3 * patternConfidence(s) * p.score, `observed pattern ${id} (${runs}, not yet trusted)`, null, id);
  }
  for (const w of i.workflows) {
    const s = w.entry.slot;
    const id = w.entry.node.id;
    const stable = s.promotion_state === 'stable';
    const kind: SourceKind = stable ? (s.active_playbook_ids.length > 0 ? 'replay_playbook' : 'stable_workflow') : 'candidate_workflow';
    const seen = new Set<string>();
    s.steps.forEach((step, k) => {
      if (!step.tool || seen.has(step.tool)) return;
      seen.add(step.tool);
      const base = stable ? 1 : 0.4;
      const first = k === 0 ? (stable ? 0.5 : 0.2) : 0;
      add(step.tool, (base + first) * w.score, `${s.promotion_state} workflow ${id} uses ${step.tool}${k === 0 ? ' first' : ''} (relevance ${r2(w.score)})`, kind, id);
    });
  }
  for (const m of i.rules.matched) {
    for (const e of m.effects) {
      if (!m.applied) {
        add(e.tool, 0, `shadow rule ${m.rule_id} would ${e.effect} ${e.tool} (not applied)`, null, m.rule_node_id);
        continue;
      }
      if (e.effect === 'prefer' && !i.rules.deny.includes(e.tool)) add(e.tool, 1.5, `active rule ${m.rule_id} prefers ${e.tool} (${m.why.join(', ')})`, null, m.rule_node_id);
    }
  }
  for (const t of i.rules.deny) {
    const s = entry(t);
    if (!s) continue;
    s.denied = true;
    const by = i.rules.matched.filter((m) => m.applied && m.effects.some((e) => e.effect === 'deny' && e.tool === t)).map((m) => m.rule_id);
    s.reasons.push(`denied by active rule ${by.join(', ')}`);
  }
  const order = restrict ? (t: string) => i.request.candidates.indexOf(t) : () => 0;
  return [...scores.values()]
    .map((s) => ({ ...s, score: r2(s.score) }))
    .sort((a, b) => Number(a.denied) - Number(b.denied) || b.score - a.score || order(a.tool) - order(b.tool) || (a.tool < b.tool ? -1 : 1));
}
