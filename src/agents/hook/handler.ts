import type { LoreApi } from '../../sdk/api.gen';
import { ApiError } from '../../sdk/errors';
import type { Binding } from '../binding';
import { projectPath, projectRoot, projectScope } from '../project';
import { kickoffContext } from './context';
import type { HookLog } from './log';
import type { HookEvent } from './payload';
import { redactText } from './redact';
import { finishTask, hookRunId, MAX_EVIDENCE_STEPS, startRun, stepAfter, stepBefore, withRun, type Ctx } from './run';
import { stepResult, toolCommand, toolFile } from './signature';
import type { HookStateStore, SessionState, StepState, TaskState } from './state';

/**
 * One agent event in, what it means for Lore out (docs/agents.md, "What the hooks record"):
 *
 *   SessionStart         (resume/compact) the last prompt's kickoff again, as added context
 *   UserPromptSubmit     a replay run for the prompt, and its kickoff: the learned first step as added context
 *   PreToolUse           replay step/before (tool name, redacted input)
 *   PostToolUse(Failure) replay step/after (status, output signature: exit status, error signature, files)
 *   Stop / SessionEnd    replay run/end and one execution write (goal, steps, target files, outcome)
 *
 * Shared by `lore hook` (a process per event) and the API's hook route. Everything sent or kept
 * is redacted first. Errors are thrown to the caller, which logs them and still answers (the
 * hooks fail open); the session state is written before any network call, so an event that
 * times out loses only its own call.
 */

export const HOOK_ACTOR = 'claude-code';

export interface HookDeps {
  /** LORE_MCP_TENANT / the API key's tenant. */
  tenant: string;
  /** LORE_MCP_SCOPE / ?scope=; null: the project the event's cwd belongs to. */
  scope: string | null;
  /** The SDK bound to a tenant+scope. */
  api: (binding: Binding) => LoreApi;
  store: HookStateStore;
  log: HookLog;
  /** The working directory when an event names none (`lore hook`: its own, as the agent started it). */
  cwd: string;
  now?: () => Date;
}

export interface HookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
}

const MAX_GOAL = 4000;

export { compactInput, hookRunId } from './run';

export async function handleHookEvent(ev: HookEvent, deps: HookDeps): Promise<HookOutput | null> {
  switch (ev.event) {
    case 'SessionStart':
      return onSessionStart(ev, deps);
    case 'UserPromptSubmit':
      return onPrompt(ev, deps);
    case 'PreToolUse':
      return onPreTool(ev, deps);
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return onPostTool(ev, deps);
    case 'Stop':
      return onStop(ev, deps, false);
    case 'SessionEnd':
      return onStop(ev, deps, true);
    default:
      return null;
  }
}

/** The session's state (new, or as recorded) and who it records for. */
function begin(ev: HookEvent, deps: HookDeps, s: SessionState | null): SessionState {
  const now = (deps.now?.() ?? new Date()).toISOString();
  if (s) return { ...s, updated_at: now };
  const cwd = ev.cwd ?? deps.cwd;
  return {
    version: 1,
    session_id: ev.session_id,
    tenant_id: deps.tenant,
    scope: deps.scope ?? projectScope(cwd),
    project_root: projectRoot(cwd),
    prompts: 0,
    last_goal: null,
    task: null,
    created_at: now,
    updated_at: now,
  };
}

function ctxOf(s: SessionState, deps: HookDeps): Ctx {
  const binding = { tenant_id: s.tenant_id, scope: s.scope, actor: HOOK_ACTOR };
  return { binding, lore: deps.api(binding) };
}

function newTask(s: SessionState, goal: string, now: string): TaskState {
  s.prompts += 1;
  return { n: s.prompts, run_id: hookRunId(s.session_id, s.prompts), goal, next_index: 0, pending: {}, steps: [], last: null, started_at: now };
}

/** A tool event with no prompt seen (hooks installed mid-session, a lost prompt event): a task all the same. */
function taskOf(s: SessionState, now: string): TaskState {
  s.task ??= newTask(s, s.last_goal ?? `Claude Code session ${s.session_id}`, now);
  return s.task;
}

async function kickoff(ctx: Ctx, goal: string, hookEventName: string): Promise<HookOutput | null> {
  const k = await ctx.lore.learning.kickoffRecommendation({ query_text: goal });
  const text = kickoffContext(k);
  return text ? { hookSpecificOutput: { hookEventName, additionalContext: text } } : null;
}

async function onSessionStart(ev: HookEvent, deps: HookDeps): Promise<HookOutput | null> {
  deps.store.prune();
  const { state } = await deps.store.update(deps.tenant, ev.session_id, (s) => begin(ev, deps, s));
  const s = state!;
  // A resumed or compacted session gets its current task's learned start back into context.
  if ((ev.source === 'resume' || ev.source === 'compact') && s.last_goal) return kickoff(ctxOf(s, deps), s.last_goal, 'SessionStart');
  return null;
}

async function onPrompt(ev: HookEvent, deps: HookDeps): Promise<HookOutput | null> {
  const goal =
    redactText(ev.prompt ?? '')
      .trim()
      .slice(0, MAX_GOAL) || '(empty prompt)';
  let previous: TaskState | null = null;
  const { state } = await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    const s = begin(ev, deps, prior);
    previous = s.task;
    s.task = newTask(s, goal, s.updated_at);
    s.last_goal = goal;
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  const prev = previous as TaskState | null;
  const [, , context] = await settle(deps, ev, [
    // A prompt whose turn never reached Stop: its run ends partial before the next one starts.
    prev ? finishTask(ctx, s, prev, 'partial') : null,
    // A lost run/start is made up for by the next step (withRun).
    startRun(ctx, s, s.task!),
    kickoff(ctx, goal, 'UserPromptSubmit'),
  ] as const);
  return context ?? null;
}

/** Waits for independent calls; a failed one is logged and answers undefined, the others still count. */
async function settle<T extends readonly unknown[]>(deps: HookDeps, ev: HookEvent, calls: T): Promise<{ [K in keyof T]: Awaited<T[K]> | undefined }> {
  const results = await Promise.allSettled(calls);
  return results.map((r) => {
    if (r.status === 'fulfilled') return r.value;
    deps.log.problem(ev.event, errorText(r.reason), { session_id: ev.session_id });
    return undefined;
  }) as never;
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `${err.code}: ${err.message}`;
  return (err as Error)?.message ?? String(err);
}

/** A tool call's identity between its Pre and Post events. */
const callKey = (ev: HookEvent) => ev.tool_use_id ?? `${ev.tool_name}:${JSON.stringify(ev.tool_input).slice(0, 500)}`;

function stepOf(ev: HookEvent, s: SessionState, index: number): StepState {
  const file = toolFile(ev.tool_name!, ev.tool_input);
  return {
    index,
    tool: ev.tool_name!,
    file_path: file === null ? null : redactText(projectPath(s.project_root, file)),
    command: toolCommand(ev.tool_name!, ev.tool_input),
    status: null,
    error_signature: null,
  };
}

async function onPreTool(ev: HookEvent, deps: HookDeps): Promise<null> {
  let task!: TaskState;
  let step!: StepState;
  const { state } = await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    const s = begin(ev, deps, prior);
    task = taskOf(s, s.updated_at);
    step = stepOf(ev, s, task.next_index++);
    task.pending[callKey(ev)] = step.index;
    keep(task, step);
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  await withRun(ctx, s, task, () => stepBefore(ctx, task, step, ev.tool_input));
  return null;
}

/** The steps the execution write will list (the first MAX_EVIDENCE_STEPS: a turn's start is what is learned). */
function keep(task: TaskState, step: StepState): void {
  if (task.steps.length < MAX_EVIDENCE_STEPS) task.steps.push(step);
}

async function onPostTool(ev: HookEvent, deps: HookDeps): Promise<null> {
  const result = stepResult(ev.tool_name!, ev.event === 'PostToolUseFailure', ev.tool_response, ev.error);
  let task!: TaskState;
  let step!: StepState;
  let unannounced = false;
  const { state } = await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    const s = begin(ev, deps, prior);
    task = taskOf(s, s.updated_at);
    const key = callKey(ev);
    let index = task.pending[key];
    delete task.pending[key];
    if (index === undefined) {
      // Its PreToolUse was not seen: the step is announced now.
      index = task.next_index++;
      unannounced = true;
    }
    step = { ...stepOf(ev, s, index), status: result.status, error_signature: result.error_signature };
    const kept = task.steps.find((x) => x.index === index);
    if (kept) Object.assign(kept, { status: result.status, error_signature: result.error_signature });
    else if (unannounced) keep(task, step);
    task.last = { status: result.status, error_signature: result.error_signature };
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  await withRun(ctx, s, task, async () => {
    if (unannounced) await stepBefore(ctx, task, step, ev.tool_input);
    try {
      return await stepAfter(ctx, task, step, result);
    } catch (err) {
      // Its step/before never arrived (timed out): announce it, then record the result.
      if (!(err instanceof ApiError && err.code === 'invalid_state' && err.details.state === 'not_started')) throw err;
      await stepBefore(ctx, task, step, ev.tool_input);
      return stepAfter(ctx, task, step, result);
    }
  });
  return null;
}

async function onStop(ev: HookEvent, deps: HookDeps, sessionEnds: boolean): Promise<null> {
  let task: TaskState | null = null;
  let kept: SessionState | null = null;
  await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    if (!prior) return null;
    const s = begin(ev, deps, prior);
    task = s.task;
    s.task = null;
    kept = s;
    // The session is over: its state goes (a later event would start a new one).
    return sessionEnds ? null : s;
  });
  const t = task as TaskState | null;
  const s = kept as SessionState | null;
  if (!t || !s) return null;
  // A session that ends inside a turn (no Stop) leaves its task unfinished.
  await finishTask(ctxOf(s, deps), s, t, sessionEnds ? 'partial' : null);
  return null;
}
