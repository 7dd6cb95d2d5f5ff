import type { StoredNode } from '../../../store/memory/nodes';
import type { ScopeRef } from '../../../store/scope';
import type { LearningCtx } from '../context';
import type { Entry } from './packet';
import { asObject } from '../../values';

/**
 * Workflow anchors the caller declared (nodes of kind `workflow_anchor`: written with
 * slots.anchor_v1, anchor_kind "workflow", as existing clients write them; docs/memory.md,
 * "Workflow anchors"), as execution/introspect lists them beside the learned workflows: stable
 * when the anchor says its promotion is stable, else a candidate. Lore does not learn from them
 * (they are declarations, not executions), and does not count them in the learning counts.
 *
 * Every workflow entry also says how forgetting stands for it (semantic_forgetting_action,
 * lifecycle_state, archive_relocation_state, from the forgetting view), so an archived workflow
 * reads as archived where it is listed.
 */

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter((x): x is string => x !== null) : []);
const int = (v: unknown, dflt: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : dflt);

function anchorEntry(n: StoredNode): Entry {
  const a = asObject(n.slots.anchor_v1);
  const promo = asObject(a.workflow_promotion);
  const stable = promo.promotion_state === 'stable';
  const goal = str(a.summary) ?? n.title ?? n.summary;
  const file = str(a.file_path) ?? strs(a.target_files)[0] ?? null;
  const tool = str(a.selected_tool);
  const observed = int(promo.observed_count, 0);
  return {
    id: n.id,
    kind: 'workflow_anchor',
    line: `[${stable ? 'stable' : 'candidate'} workflow anchor${n.tier === 'archive' ? ', archived' : ''}] ${goal}${tool || file ? ` — first: ${[tool, file].filter(Boolean).join(' ')}` : ''} (declared)`,
    relevance: null,
    workflow_id: n.id,
    client_id: n.client_id,
    source: 'declared',
    goal,
    task_family: str(a.task_family),
    promotion_state: stable ? 'stable' : 'candidate',
    steps: tool || file ? [{ tool, file_path: file, next_action: str(a.next_action) }] : [],
    target_files: strs(a.target_files),
    tool_set: strs(a.tool_set),
    observed_count: observed,
    required_observations: int(promo.required_observations, observed),
    tier: n.tier,
    updated_at: n.updated_at,
  };
}

/** The scope's declared workflow anchors (at most `limit`, one indexed query by kind). */
export async function declaredAnchors(ctx: LearningCtx, ref: ScopeRef, limit: number): Promise<Entry[]> {
  const nodes = await ctx.memory.nodes(ref).find({ kinds: ['workflow_anchor'] }, { limit });
  return nodes.map(anchorEntry);
}

/** The entries with their forgetting state (a node the view has not seen yet gets none). */
export async function withForgetting(ctx: LearningCtx, ref: ScopeRef, entries: Entry[]): Promise<Entry[]> {
  const states = await ctx.lifecycle.nodeForgetting(
    ref,
    entries.map((e) => e.id),
  );
  return entries.map((e) => {
    const f = states.get(e.id);
    return f ? { ...e, semantic_forgetting_action: f.action, lifecycle_state: f.lifecycle_state, archive_relocation_state: f.relocation_state } : e;
  });
}
