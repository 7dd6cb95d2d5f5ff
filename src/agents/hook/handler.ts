import type { LoreApi } from '../../sdk/api.gen';
import { ApiError } from '../../sdk/errors';
import type { Binding } from '../binding';
import { projectPath, projectRoot, projectScope } from '../project';
import { kickoffContext } from './context';
import type { HookLog } from './log';
import type { HookEvent } from './payload';
import { redactText, redactValue } from './redact';
import { isEditTool, isEvidenceTool, stepResult, toolCommand, toolFile, type StepResult } from './signature';
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
  now?: () => Date;
}

export interface HookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
}

const MAX_GOAL = 4000;
const MAX_INPUT_STRING = 2000;
const MAX_INPUT_JSON = 48 * 1024;
const MAX_EVIDENCE_STEPS = 200;

/** Characters a run_id or client_id may hold (contract CallerId). */
const safeId = (s: string) => s.replace(/[^A-Za-z0-9._@/+=-]/g, '_').slice(0, 120);
export const hookRunId = (sessionId: string, n: number) => `claude-code:${safeId(sessionId)}:${n}`;
const firstLine = (s: string) => (s.split('\n').find((l) => l.trim() !== '') ?? s).trim().slice(0, 200);

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

interface Ctx {
  binding: Binding;
  lore: LoreApi;
  now: string;
}

/** The session's state (new, or as recorded) and who it records for. */
function begin(ev: HookEvent, deps: HookDeps, s: SessionState | null): SessionState {
  const now = (deps.now?.() ?? new Date()).toISOString();
  if (s) return { ...s, updated_at: now };
  const cwd = ev.cwd ?? process.cwd();
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
  return { binding, lore: deps.api(binding), now: s.updated_at };
}

function newTask(s: SessionState, goal: string, now: string): TaskState {
  s.prompts += 1;
  return { n: s.prompts, run_id: hookRunId(s.session_id, s.prompts), goal, next_index: 0, pending: {}, steps: [], started_at: now };
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

async function startRun(ctx: Ctx, s: SessionState, t: TaskState): Promise<void> {
  await ctx.lore.replay.run.start({
    run_id: t.run_id,
    goal: t.goal,
    metadata: { source: 'claude-code', session_id: s.session_id, prompt_index: t.n, project_root: s.project_root },
  });
}

/** Runs fn; when the run does not exist yet (its run/start was lost or timed out), starts it and runs fn again. */
async function withRun<T>(ctx: Ctx, s: SessionState, t: TaskState, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
    await startRun(ctx, s, t);
    return fn();
  }
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
  const goal = redactText(ev.prompt ?? '').trim().slice(0, MAX_GOAL) || '(empty prompt)';
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
    task.steps.push(step);
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  await withRun(ctx, s, task, () => before(ctx, task, step, ev));
  return null;
}

function before(ctx: Ctx, t: TaskState, step: StepState, ev: HookEvent) {
  return ctx.lore.replay.step.before({ run_id: t.run_id, step_index: step.index, tool_name: step.tool, tool_input: compactInput(ev.tool_input) });
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
    const index = task.pending[key];
    delete task.pending[key];
    let found = index === undefined ? undefined : task.steps.find((x) => x.index === index);
    if (!found) {
      // Its PreToolUse was not seen: the step is announced now.
      found = stepOf(ev, s, task.next_index++);
      task.steps.push(found);
      unannounced = true;
    }
    found.status = result.status;
    found.error_signature = result.error_signature;
    step = { ...found };
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  const after = () =>
    ctx.lore.replay.step.after({
      run_id: task.run_id,
      step_index: step.index,
      status: result.status,
      output_signature: signatureOf(step, result),
      ...(result.error ? { error: result.error } : {}),
    });
  await withRun(ctx, s, task, async () => {
    if (unannounced) await before(ctx, task, step, ev);
    try {
      return await after();
    } catch (err) {
      // Its step/before never arrived (timed out): announce it, then record the result.
      if (!(err instanceof ApiError && err.code === 'invalid_state' && err.details.state === 'not_started')) throw err;
      await before(ctx, task, step, ev);
      return after();
    }
  });
  return null;
}

function signatureOf(step: StepState, r: StepResult): Record<string, unknown> {
  return {
    kind: `claude-code/${step.tool}`.slice(0, 200),
    exit_code: r.exit_code,
    summary: r.status === 'success' ? 'ok' : (r.error_signature ?? 'failed'),
    error_signature: r.error_signature,
    files_touched: step.file_path ? [step.file_path] : [],
    ...(r.interrupted ? { interrupted: true } : {}),
  };
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

/** run/end and the execution write of one prompt's work. status null: from its steps. */
async function finishTask(ctx: Ctx, s: SessionState, t: TaskState, forced: 'partial' | null): Promise<void> {
  const steps = t.steps.filter((x) => isEvidenceTool(x.tool)).slice(0, MAX_EVIDENCE_STEPS);
  const last = [...t.steps].reverse().find((x) => x.status !== null);
  const outcome: 'success' | 'failure' | 'partial' = forced ?? (last?.status === 'failed' ? 'failure' : 'success');
  const edited = unique(steps.filter((x) => isEditTool(x.tool) && x.file_path).map((x) => x.file_path!));
  const targets = edited.length > 0 ? edited : unique(steps.filter((x) => x.file_path).map((x) => x.file_path!));
  const summary = `${t.steps.length} tool call${t.steps.length === 1 ? '' : 's'} (${unique(t.steps.map((x) => x.tool)).join(', ') || 'none'}); ${outcome}${edited.length ? `; edited ${edited.slice(0, 10).join(', ')}` : ''}`;
  await Promise.all([
    withRun(ctx, s, t, () => ctx.lore.replay.run.end({ run_id: t.run_id, status: outcome, summary })).catch((err) => {
      // Ended already (a repeated Stop): nothing to do.
      if (!(err instanceof ApiError && err.code === 'invalid_state')) throw err;
    }),
    // A turn without tool calls (a question answered) is no execution to learn from.
    steps.length === 0
      ? null
      : ctx.lore.memory.write({
          client_id: `claude-code:${safeId(s.session_id)}:${t.n}`,
          title: firstLine(t.goal),
          tags: ['claude-code'],
          execution: {
            goal: t.goal,
            run_id: t.run_id,
            steps: steps.map((x) => ({
              tool: x.tool,
              ...(x.file_path ? { file_path: x.file_path } : {}),
              ...(x.command ? { command: x.command } : {}),
              ...(x.status ? { outcome: x.status === 'failed' ? 'failure' : 'success' } : {}),
            })),
            target_files: targets.slice(0, 200),
            outcome,
            ...(outcome === 'failure' && last?.error_signature ? { error_signature: last.error_signature } : {}),
          },
        }),
  ]);
}

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

/** A tool input as stored: redacted, long strings cut, and kept well under the 64 KiB a step may hold. */
export function compactInput(input: Record<string, unknown>): Record<string, unknown> {
  const cut = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return v.length > MAX_INPUT_STRING ? `${v.slice(0, MAX_INPUT_STRING)}… [${v.length - MAX_INPUT_STRING} more characters]` : v;
    if (Array.isArray(v)) return v.slice(0, 50).map((x) => cut(x, depth + 1));
    if (v && typeof v === 'object' && depth < 8) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x, depth + 1)]));
    return v;
  };
  const out = cut(redactValue(input), 0) as Record<string, unknown>;
  if (JSON.stringify(out).length <= MAX_INPUT_JSON) return out;
  const keep = Object.fromEntries(Object.entries(out).filter(([, v]) => typeof v !== 'object' || v === null).map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 500) : v]));
  return { ...keep, truncated: true };
}
