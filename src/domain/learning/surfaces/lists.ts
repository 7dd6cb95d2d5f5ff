import { notFound } from '../../../contract/errors';
import type { ScopeRef } from '../../../store/scope';
import { decodeCursor, encodeCursor } from '../../memory/cursor';
import { patternClass } from '../pattern-model';
import type { LearningCtx } from '../context';
import type { Learned, ScopeLearning } from '../scope-state';
import { patternView, policyMemoryView, workflowView } from '../views';
import { countsOf } from './introspect';
import type { PatternClass, PolicyState, PromotionState } from '../../../model/learning/vocabulary';

/**
 * workflows/list, workflows/get, patterns/list, policies/list: what the scope has learned, from
 * its in-process learning state, newest first (node ids are time-ordered), one page at a time.
 */

type Page = { limit: number; cursor?: string | undefined };

/** One page of `items` below the cursor's id, newest first, and the cursor of the next page. */
function page<T>(route: string, items: Iterable<Learned<T>>, keep: (l: Learned<T>) => boolean, p: Page): { shown: Learned<T>[]; next_cursor: string | null } {
  const before = p.cursor !== undefined ? decodeCursor(p.cursor, route) : null;
  const matching = [...items].filter((l) => (before === null || l.node.id < before) && keep(l)).sort((a, b) => (a.node.id < b.node.id ? 1 : -1));
  const shown = matching.slice(0, p.limit);
  return { shown, next_cursor: matching.length > p.limit ? encodeCursor(route, shown[shown.length - 1]!.node.id) : null };
}

function learnedCounts(state: ScopeLearning) {
  const c = countsOf(state);
  return { workflows: c.workflow_counts, patterns: c.pattern_counts, policies: c.policy_counts };
}

export async function listWorkflows(ctx: LearningCtx, ref: ScopeRef, input: Page & { promotion_state?: PromotionState | undefined }) {
  const state = await ctx.scope(ref);
  const r = page('learning.workflows.list', state.workflows.values(), (w) => !input.promotion_state || w.slot.promotion_state === input.promotion_state, input);
  return { workflows: r.shown.map((w) => workflowView(w)), counts: learnedCounts(state), next_cursor: r.next_cursor };
}

export async function getWorkflow(ctx: LearningCtx, ref: ScopeRef, input: { workflow_id?: string | undefined; client_id?: string | undefined }) {
  const state = await ctx.scope(ref);
  const w = input.workflow_id !== undefined ? state.workflows.get(input.workflow_id) : [...state.workflows.values()].find((x) => x.node.client_id === input.client_id);
  const id = input.workflow_id ?? input.client_id!;
  if (!w) throw notFound('workflow', id, ref.scope, input.workflow_id !== undefined ? { workflow_id: id } : { client_id: id });
  return { workflow: workflowView(w) };
}

export async function listPatterns(ctx: LearningCtx, ref: ScopeRef, input: Page & { state?: PatternClass | undefined }) {
  const state = await ctx.scope(ref);
  const r = page('learning.patterns.list', state.patterns.values(), (p) => !input.state || patternClass(p.slot) === input.state, input);
  return { patterns: r.shown.map((p) => patternView(p)), counts: learnedCounts(state), next_cursor: r.next_cursor };
}

export async function listPolicies(ctx: LearningCtx, ref: ScopeRef, input: Page & { state?: PolicyState | undefined }) {
  const state = await ctx.scope(ref);
  const r = page('learning.policies.list', state.policies.values(), (p) => !input.state || p.slot.state === input.state, input);
  return { policies: r.shown.map((p) => policyMemoryView(p)), counts: learnedCounts(state), next_cursor: r.next_cursor };
}
