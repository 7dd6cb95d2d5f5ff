import type { ScopeRef } from '../../../store/scope';
import { findFamily } from '../family';
import { plan, type Plan } from '../planner';
import { taskRequest, taskText, type RawTaskRequest, type TaskRequest } from '../request';
import type { LearningCtx } from '../context';
import type { ScopeLearning } from '../scope-state';

/** What every planning surface starts from: the scope's state, the parsed task and the plan. */
export interface Planned {
  state: ScopeLearning;
  request: TaskRequest;
  plan: Plan;
}

/**
 * A task start (`whole: false`): while the scope is still loading after a start, the plan is made
 * from what has loaded and its uncertainty says so; a large scope's load is not waited for.
 * Surfaces that record a decision against a task family or review everything learned take the
 * whole state (`whole: true`).
 */
export async function planFor(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest, request: TaskRequest = taskRequest(raw), opts: { whole?: boolean } = {}): Promise<Planned> {
  const { state, loading } = opts.whole ? { state: await ctx.scope(ref), loading: null } : await ctx.scopeForReading(ref);
  state.noteTools(request.candidates);
  // A query vector is worth its encoder run when something can be compared with it: learned
  // workflows' goals, or the vectors of the scope's past tasks in the recall index.
  const comparable = state.workflows.size > 0 || ctx.memory.index.vectorDim(ref.tenant_id, ref.scope) > 0;
  const vector = ctx.vectors && comparable ? await ctx.vectors.query(taskText(request)) : null;
  return { state, request, plan: await plan(ctx.memory, ref, state, request, { vector, loading }) };
}

export function taskFamilyView(state: ScopeLearning, r: TaskRequest) {
  const f = findFamily(state, r);
  return f ? { family_id: f.family_id, label: f.label, known: true } : null;
}
