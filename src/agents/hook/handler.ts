import type { LoreApi } from '../../sdk/api.gen';
import { ApiError } from '../../sdk/errors';
import type { Binding } from '../binding';
import { projectPath, projectRoot, projectScope } from '../project';
import { type AgentKind, agentLabel } from './agents';
import { type ContextBlock, DEFAULT_CONTEXT_CHARS, handoffBlock, kickoffBlock, withinBudget } from './context';
import { handoffAnchor, handoffOf } from './handoff';
import type { HookLog } from './log';
import type { HookEvent } from './payload';
import { redactText } from './redact';
import { finishTask, hookRunId, MAX_EVIDENCE_STEPS, startRun, stepAfter, stepBefore, withRun, type Ctx } from './run';
import { classifyPrompt, IDLE_NEW_TASK_MS, pathTerms, termsOf, type RunningTask, type Verdict } from './segment';
import { stepResult, toolCommand, toolFiles, writtenText } from './signature';
import type { HookStateStore, SessionState, StepState, TaskState, TurnEnd } from './state';

/**
 * One agent event in, what it means for Lore out (docs/agents.md, "What the hooks record"):
 *
 *   SessionStart         clear: the running task ends. compact / resume: the running task's
 *                        handoff (and its learned start) back into the context
 *   UserPromptSubmit     continues the running task or starts a new one (segment.ts); a new task
 *                        gets a replay run and, as added context, the learned first step
 *   PreToolUse           replay step/before (tool name, redacted input)
 *   PostToolUse(Failure) replay step/after (status, output signature: exit status, error signature, files)
 *   Stop / Interrupt     the turn ends (how it ended steers the next prompt's verdict); the
 *                        task goes on
 *   SubagentStop         the subagent's calls are steps of the running task; its end is one more
 *   PreCompact           a handoff of the running task (goal, files, last outcome, next step)
 *   SessionEnd           the task ends: replay run/end and one execution write
 *
 * A task also ends when the next prompt starts new work, and when its session has been idle for
 * IDLE_NEW_TASK_MS (finished by the next SessionStart of the same tenant). Shared by `lore hook`
 * (a process per event) and the API's hook route. Everything sent or kept is redacted first.
 * Errors are thrown to the caller, which logs them and still answers (the hooks fail open); the
 * session state is written before any network call, so an event that times out loses only its
 * own call.
 */

export interface HookDeps {
  /** Which agent sends the events (names runs, client ids, tags and the actor). */
  agent?: AgentKind;
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
  /** The cap on added context, in characters (LORE_HOOK_CONTEXT_CHARS). */
  contextChars?: number;
  /** A session idle this long: its next prompt starts new work, and another session's start ends its task. */
  idleNewTaskMs?: number;
  now?: () => Date;
}

export interface HookOutput {
  hookSpecificOutput: { hookEventName: string; additionalContext: string };
}

const MAX_GOAL = 4000;
const MAX_PROMPTS = 30;
const MAX_REFINEMENTS = 10;
const MAX_VOCABULARY = 600;
/** Words one call's written code adds to its task's vocabulary. */
const MAX_WRITTEN_TERMS = 30;
const MAX_FILES = 200;
/** Idle sessions whose tasks one SessionStart finishes (the rest wait for the next one). */
const IDLE_SWEEP = 3;

export { compactInput, hookRunId } from './run';

export async function handleHookEvent(ev: HookEvent, deps: HookDeps): Promise<HookOutput | null> {
  switch (ev.event) {
    case 'SessionStart':
      return onSessionStart(ev, deps);
    case 'UserPromptSubmit':
      return ev.agent_id ? onSubagentEvent(ev, deps) : onPrompt(ev, deps);
    case 'PreToolUse':
      return onPreTool(ev, deps);
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return onPostTool(ev, deps);
    case 'Stop':
      return ev.agent_id ? onSubagentStop(ev, deps) : onTurnEnd(ev, deps, 'stop');
    case 'Interrupt':
      return onTurnEnd(ev, deps, 'interrupt');
    case 'SubagentStop':
      return onSubagentStop(ev, deps);
    case 'PreCompact':
      return ev.agent_id ? null : onPreCompact(ev, deps);
    case 'SessionEnd':
      return onSessionEnd(ev, deps);
    default:
      return null;
  }
}

const agentOf = (deps: HookDeps): AgentKind => deps.agent ?? 'claude-code';
const nowOf = (deps: HookDeps) => deps.now?.() ?? new Date();

/** The session's state (new, or as recorded) and who it records for. */
function begin(ev: HookEvent, deps: HookDeps, s: SessionState | null): SessionState {
  const now = nowOf(deps).toISOString();
  if (s) return { ...s, updated_at: now };
  const cwd = ev.cwd ?? deps.cwd;
  return {
    version: 2,
    agent: agentOf(deps),
    session_id: ev.session_id,
    tenant_id: deps.tenant,
    scope: deps.scope ?? projectScope(cwd),
    project_root: projectRoot(cwd),
    tasks: 0,
    task: null,
    created_at: now,
    updated_at: now,
  };
}

function ctxOf(s: SessionState, deps: HookDeps): Ctx {
  const binding = { tenant_id: s.tenant_id, scope: s.scope, actor: s.agent };
  return { binding, lore: deps.api(binding) };
}

const capPush = <T>(xs: T[], x: T, max: number) => {
  if (xs.length < max) xs.push(x);
};

function learnWords(t: TaskState, terms: string[]): void {
  for (const term of terms) if (!t.vocabulary.includes(term) && t.vocabulary.length < MAX_VOCABULARY) t.vocabulary.push(term);
}

function newTask(s: SessionState, prompt: string | null, now: string): TaskState {
  s.tasks += 1;
  const goal = prompt ?? '';
  return {
    n: s.tasks,
    run_id: hookRunId(s.session_id, s.tasks, s.agent),
    goal: goal || `${agentLabel(s.agent)} session ${s.session_id} (no prompt seen)`,
    prompts: prompt === null ? [] : [prompt],
    refinements: [],
    vocabulary: prompt === null ? [] : termsOf(prompt),
    files: [],
    next_index: 0,
    pending: {},
    steps: [],
    last: null,
    turns: prompt === null ? 0 : 1,
    turn_open: true,
    turn_calls: 0,
    last_turn: null,
    outcome: null,
    subagents: [],
    handoff_id: null,
    started_at: now,
  };
}

/** A tool event with no prompt seen (hooks installed mid-session, a lost prompt event): a task all the same. */
function taskOf(s: SessionState, now: string): TaskState {
  s.task ??= newTask(s, null, now);
  if (!s.task.turn_open) {
    s.task.turn_open = true;
    s.task.turn_calls = 0;
  }
  return s.task;
}

/** The task as segmentation sees it. A task started by a tool event has no goal yet. */
function runningOf(s: SessionState, t: TaskState, now: Date): RunningTask {
  return {
    goal: t.prompts.length ? t.goal : '',
    vocabulary: t.vocabulary,
    files: t.files,
    lastTurn: t.last_turn,
    turnOpen: t.turn_open,
    idleMs: Math.max(0, now.getTime() - Date.parse(s.updated_at)),
  };
}

/** A turn ends: Stop (how its calls went), or Interrupt / a prompt typed over it (partial). */
function endTurn(t: TaskState, how: 'stop' | 'interrupt'): void {
  if (!t.turn_open) return;
  t.turn_open = false;
  let end: TurnEnd;
  if (how === 'interrupt') end = 'partial';
  else if (t.turn_calls === 0) end = 'no_tools';
  else end = t.last?.status === 'failed' ? 'failure' : 'success';
  t.last_turn = end;
  if (t.turn_calls > 0) t.outcome = end === 'no_tools' ? t.outcome : end;
}

async function kickoffBlockFor(ctx: Ctx, goal: string): Promise<ContextBlock | null> {
  return kickoffBlock(await ctx.lore.learning.kickoffRecommendation({ query_text: goal }));
}

function answer(hookEventName: string, blocks: (ContextBlock | null | undefined)[], deps: HookDeps): HookOutput | null {
  const text = withinBudget(
    blocks.filter((b): b is ContextBlock => !!b),
    deps.contextChars ?? DEFAULT_CONTEXT_CHARS,
  );
  return text ? { hookSpecificOutput: { hookEventName, additionalContext: text } } : null;
}

/** Tasks of this tenant's sessions idle for IDLE_NEW_TASK_MS (an agent closed without SessionEnd) end now. */
async function finishIdleSessions(ev: HookEvent, deps: HookDeps): Promise<void> {
  const idle = deps.idleNewTaskMs ?? IDLE_NEW_TASK_MS;
  const stale = deps.store
    .idleTasks(idle, IDLE_SWEEP * 4, nowOf(deps).getTime())
    .filter((x) => x.tenant_id === deps.tenant && x.session_id !== ev.session_id)
    .slice(0, IDLE_SWEEP);
  await Promise.all(
    stale.map(async (x) => {
      let task: TaskState | null = null;
      let kept: SessionState | null = null;
      await deps.store.update(x.tenant_id, x.session_id, (s) => {
        if (!s?.task) return s;
        task = s.task;
        kept = s;
        return null;
      });
      const t = task as TaskState | null;
      const k = kept as SessionState | null;
      if (t && k) await finishTask(ctxOf(k, deps), k, t, null);
    }),
  );
}

async function onSessionStart(ev: HookEvent, deps: HookDeps): Promise<HookOutput | null> {
  deps.store.prune();
  let ended: TaskState | null = null;
  const { state } = await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    const s = begin(ev, deps, prior);
    // /clear: the conversation starts over, and so does the work.
    if (ev.source === 'clear' && s.task) {
      ended = s.task;
      s.task = null;
    }
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  const restore = ev.source === 'compact' || ev.source === 'resume' ? restoreContext(ev, deps, s, ctx) : null;
  const [, , blocks] = await settle(deps, ev, [finishIdleSessions(ev, deps), ended ? finishTask(ctx, s, ended, null) : null, restore] as const);
  return blocks ? answer('SessionStart', blocks, deps) : null;
}

/** After compaction (or a resume): the running task's handoff first, then its learned start. */
async function restoreContext(ev: HookEvent, deps: HookDeps, s: SessionState, ctx: Ctx): Promise<ContextBlock[]> {
  const why = ev.source === 'compact' ? 'compact' : 'resume';
  const t = s.task;
  const [stored, kick] = await settle(deps, ev, [
    ctx.lore.handoff.recover({ anchor: handoffAnchor(s) }).catch((err) => {
      if (err instanceof ApiError && err.code === 'not_found') return null;
      throw err;
    }),
    t && t.prompts.length ? kickoffBlockFor(ctx, t.goal) : null,
  ] as const);
  const h = stored?.handoff ?? null;
  const blocks: ContextBlock[] = [];
  // The stored handoff when it is this task's (or no task is left: a resumed session), else the
  // task as the hook knows it.
  if (h && (!t || h.run_id === t.run_id)) blocks.push(handoffBlock(h, why));
  else if (t) blocks.push(handoffBlock({ ...handoffOf(s, t, null), handoff_id: t.handoff_id ?? t.run_id, run_id: t.run_id }, why));
  if (kick) blocks.push(kick);
  return blocks;
}

async function onPrompt(ev: HookEvent, deps: HookDeps): Promise<HookOutput | null> {
  const prompt =
    redactText(ev.prompt ?? '')
      .trim()
      .slice(0, MAX_GOAL) || '(empty prompt)';
  const now = nowOf(deps);
  let finished: TaskState | null = null;
  let verdict!: Verdict;
  let goalChanged = false;
  const { state } = await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    const t = prior?.task ?? null;
    verdict = classifyPrompt(prompt, prior && t ? runningOf(prior, t, now) : null, deps.idleNewTaskMs);
    const s = begin(ev, deps, prior);
    const task = s.task;
    // A prompt typed over a running turn: that turn was interrupted.
    if (task) endTurn(task, 'interrupt');
    if (task && verdict.continues) {
      capPush(task.prompts, prompt.slice(0, 300), MAX_PROMPTS);
      task.turns += 1;
      task.turn_open = true;
      task.turn_calls = 0;
      if (verdict.rule === 'refines_goal' || task.prompts.length === 1) {
        // The goal had no subject ("continue", or no prompt seen): this prompt says what it is.
        task.goal = prompt;
        goalChanged = true;
      } else if (verdict.novel.length > 0) capPush(task.refinements, prompt.slice(0, 300), MAX_REFINEMENTS);
      learnWords(task, verdict.terms);
    } else {
      finished = task;
      s.task = newTask(s, prompt, s.updated_at);
      goalChanged = true;
    }
    return s;
  });
  const s = state!;
  const t = s.task!;
  const ctx = ctxOf(s, deps);
  const done = finished as TaskState | null;
  const [, , kick] = await settle(deps, ev, [
    done ? finishTask(ctx, s, done, null) : null,
    // A lost run/start is made up for by the next step (withRun).
    verdict.continues ? null : startRun(ctx, s, t),
    // The learned start of the task, when its goal is new: not for "yes" or "try again".
    goalChanged ? kickoffBlockFor(ctx, t.goal) : null,
  ] as const);
  return answer('UserPromptSubmit', [kick], deps);
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
  const files = toolFiles(ev.tool_name!, ev.tool_input).map((f) => redactText(projectPath(s.project_root, f)));
  return {
    index,
    tool: ev.tool_name!,
    file_path: files[0] ?? null,
    ...(files.length > 1 ? { files } : {}),
    command: toolCommand(ev.tool_name!, ev.tool_input),
    status: null,
    error_signature: null,
    ...(ev.agent_id ? { agent_id: ev.agent_id } : {}),
  };
}

/** What a call adds to its task: its files, the words of its files, command and of the code it wrote, and its subagent. */
function noteCall(t: TaskState, step: StepState, ev: HookEvent): void {
  for (const f of step.files ?? (step.file_path ? [step.file_path] : [])) {
    if (!t.files.includes(f) && t.files.length < MAX_FILES) t.files.push(f);
    learnWords(t, pathTerms(f));
  }
  if (step.command) learnWords(t, termsOf(step.command));
  learnWords(t, termsOf(redactText(writtenText(step.tool, ev.tool_input))).slice(0, MAX_WRITTEN_TERMS));
  t.turn_calls += 1;
  if (ev.agent_id) subagentOf(t, ev).calls += 1;
}

function subagentOf(t: TaskState, ev: HookEvent) {
  let a = t.subagents.find((x) => x.agent_id === ev.agent_id);
  if (!a) {
    a = { agent_id: ev.agent_id!, agent_type: ev.agent_type, calls: 0, status: null, summary: null };
    if (t.subagents.length < 50) t.subagents.push(a);
  }
  a.agent_type ??= ev.agent_type;
  return a;
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
    noteCall(task, step, ev);
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  await withRun(ctx, s, task, () => stepBefore(ctx, s, task, step, ev.tool_input));
  return null;
}

/** The steps the execution write will list (the first MAX_EVIDENCE_STEPS: a task's start is what is learned). */
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
    if (unannounced) noteCall(task, step, ev);
    if (result.error_signature) learnWords(task, termsOf(result.error_signature));
    task.last = { status: result.status, error_signature: result.error_signature, command: step.command };
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  await withRun(ctx, s, task, async () => {
    if (unannounced) await stepBefore(ctx, s, task, step, ev.tool_input);
    try {
      return await stepAfter(ctx, s, task, step, result);
    } catch (err) {
      // Its step/before never arrived (timed out): announce it, then record the result.
      if (!(err instanceof ApiError && err.code === 'invalid_state' && err.details.state === 'not_started')) throw err;
      await stepBefore(ctx, s, task, step, ev.tool_input);
      return stepAfter(ctx, s, task, step, result);
    }
  });
  return null;
}

/** Stop or Interrupt: the turn is over, the task is not (the next prompt decides). Nothing to send. */
async function onTurnEnd(ev: HookEvent, deps: HookDeps, how: 'stop' | 'interrupt'): Promise<null> {
  await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    if (!prior?.task) return prior;
    const s = begin(ev, deps, prior);
    endTurn(s.task!, how);
    return s;
  });
  return null;
}

/** A subagent's own prompt (its instructions from the parent): part of the parent's task, not a user prompt. */
async function onSubagentEvent(ev: HookEvent, deps: HookDeps): Promise<null> {
  await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    const s = begin(ev, deps, prior);
    subagentOf(taskOf(s, s.updated_at), ev);
    return s;
  });
  return null;
}

/**
 * A subagent finished. Its calls arrived as tool events carrying its agent_id and are steps of the
 * running task already; its end is recorded as one more step (`Subagent`, its type and last
 * message), so the replay run shows where its work ended and how.
 */
async function onSubagentStop(ev: HookEvent, deps: HookDeps): Promise<null> {
  let task!: TaskState;
  let step!: StepState;
  const summary = ev.last_assistant_message ? redactText(ev.last_assistant_message).trim().slice(0, 2000) : null;
  const { state } = await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    const s = begin(ev, deps, prior);
    task = taskOf(s, s.updated_at);
    const agent = ev.agent_id ? subagentOf(task, ev) : null;
    const own = task.steps.filter((x) => ev.agent_id && x.agent_id === ev.agent_id && x.status !== null);
    const failed = own.at(-1)?.status === 'failed';
    if (agent) Object.assign(agent, { status: failed ? 'failed' : 'success', summary: summary?.slice(0, 300) ?? null });
    step = {
      index: task.next_index++,
      tool: 'Subagent',
      file_path: null,
      command: null,
      status: failed ? 'failed' : 'success',
      error_signature: failed ? (own.at(-1)?.error_signature ?? null) : null,
      ...(ev.agent_id ? { agent_id: ev.agent_id } : {}),
    };
    keep(task, step);
    return s;
  });
  const s = state!;
  const ctx = ctxOf(s, deps);
  const files = [...new Set(task.steps.filter((x) => ev.agent_id && x.agent_id === ev.agent_id).flatMap((x) => x.files ?? (x.file_path ? [x.file_path] : [])))];
  await withRun(ctx, s, task, async () => {
    await stepBefore(ctx, s, task, step, { agent_id: ev.agent_id, agent_type: ev.agent_type });
    return ctx.lore.replay.step.after({
      run_id: task.run_id,
      step_index: step.index,
      status: step.status === 'failed' ? 'failed' : 'success',
      output_signature: {
        kind: `${s.agent}/Subagent`,
        summary: (summary ?? `${ev.agent_type ?? 'subagent'} finished`).split('\n')[0]!.slice(0, 500),
        files_touched: files.slice(0, 200),
        ...(step.error_signature ? { error_signature: step.error_signature } : {}),
      },
    });
  });
  return null;
}

/** The agent is about to compact its context: the running task's handoff is stored for SessionStart(compact). */
async function onPreCompact(ev: HookEvent, deps: HookDeps): Promise<null> {
  const s = deps.store.read(deps.tenant, ev.session_id);
  if (!s?.task) return null;
  const ctx = ctxOf(s, deps);
  const stored = await ctx.lore.handoff.store(handoffOf(s, s.task, ev.trigger));
  const runId = s.task.run_id;
  await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    if (prior?.task?.run_id === runId) prior.task.handoff_id = stored.handoff.handoff_id;
    return prior;
  });
  return null;
}

async function onSessionEnd(ev: HookEvent, deps: HookDeps): Promise<null> {
  let task: TaskState | null = null;
  let kept: SessionState | null = null;
  await deps.store.update(deps.tenant, ev.session_id, (prior) => {
    if (!prior) return null;
    const s = begin(ev, deps, prior);
    task = s.task;
    kept = s;
    // The session is over: its state goes (a later event would start a new one).
    return null;
  });
  const t = task as TaskState | null;
  const s = kept as SessionState | null;
  if (!t || !s) return null;
  // A session that ends inside a turn (no Stop) leaves its task unfinished.
  await finishTask(ctxOf(s, deps), s, t, t.turn_open && t.turn_calls > 0 ? 'partial' : null);
  return null;
}
