import type { ScopeRef } from '../../../store/scope';
import { findFamily } from '../family';
import { plan, type Plan } from '../planner';
import { taskRequest, taskText, type RawTaskRequest, type TaskRequest } from '../request';
import type { LearningCtx } from '../runtime';
import type { ScopeLearning } from '../scope-state';

/** What every planning surface starts from: the scope's state, the parsed task and the plan. */
export interface Planned {
  state: ScopeLearning;
  request: TaskRequest;
  plan: Plan;
}

export async function planFor(ctx: LearningCtx, ref: ScopeRef, raw: RawTaskRequest, request: TaskRequest = taskRequest(raw)): Promise<Planned> {
  const state = await ctx.scope(ref);
  state.noteTools(request.candidates);
  const vector = ctx.vectors && state.workflows.size > 0 ? await ctx.vectors.query(taskText(request)) : null;
  return { state, request, plan: await plan(ctx.memory, ref, state, request, { vector }) };
}

export function taskFamilyView(state: ScopeLearning, r: TaskRequest) {
  const f = findFamily(state, r);
  return f ? { family_id: f.family_id, label: f.label, known: true } : null;
}
