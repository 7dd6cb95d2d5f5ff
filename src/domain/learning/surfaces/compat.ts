import type { Plan } from '../planner';
import type { PastTask } from '../past-tasks';
import type { Entry } from './packet';

/**
 * Fields existing clients read (docs/compatibility.md) that say again, under their names, what a
 * surface already answers: nothing here is computed twice or differently.
 */

/** `rationale: {summary}`: why the recommendation is what it is, or why there is none. */
export function rationaleOf(p: Plan): { summary: string } {
  const fa = p.first_action;
  return { summary: fa ? fa.rationale : p.uncertainty.reasons.join('; ') || 'nothing relevant has been learned for this task yet' };
}

/** Why a similar past task counts, in one line (action/retrieval evidence). */
export function pastTaskWhy(t: PastTask): string {
  const files = t.obs.target_files.slice(0, 3).join(', ');
  const outcome = t.obs.outcome ?? 'outcome not stated';
  return `similar past task (similarity ${Math.round(t.sim * 1000) / 1000}, ${outcome})${files ? ` that worked on ${files}` : ''}`;
}

/** The tool view of action/retrieval: the ranking as ordered, preferred and allowed lists. */
export function toolView(p: Plan, selected: string | null) {
  const denied = new Set(p.rules.deny);
  const ordered = p.ranking.filter((t) => !t.denied).map((t) => t.tool);
  for (const c of p.request.candidates) if (!denied.has(c) && !ordered.includes(c)) ordered.push(c);
  return {
    selected_tool: selected,
    ordered_tools: ordered,
    preferred_tools: p.ranking.filter((t) => !t.denied && t.source_kinds.length > 0 && t.score > 0).map((t) => t.tool),
    allowed_tools: p.request.candidates.filter((c) => !denied.has(c)),
  };
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/**
 * execution/introspect's workflows split as existing clients read them: stable ones under
 * recommended_workflows, candidates under candidate_workflows, each with anchor_id (the workflow
 * node id) and file_path (its first step's file, else its first target file).
 */
export function workflowLists(workflows: Entry[]): { recommended_workflows: Entry[]; candidate_workflows: Entry[] } {
  const withRefs = workflows.map((e): Entry => {
    const steps = Array.isArray(e.steps) ? (e.steps as { file_path?: unknown }[]) : [];
    const targets = Array.isArray(e.target_files) ? (e.target_files as unknown[]) : [];
    return { ...e, anchor_id: e.id, file_path: str(steps[0]?.file_path) ?? str(targets[0]) };
  });
  return {
    recommended_workflows: withRefs.filter((e) => e.promotion_state === 'stable'),
    candidate_workflows: withRefs.filter((e) => e.promotion_state !== 'stable'),
  };
}
