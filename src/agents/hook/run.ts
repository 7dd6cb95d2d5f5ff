import type { LoreApi } from '../../sdk/api.gen';
import { ApiError } from '../../sdk/errors';
import type { Binding } from '../binding';
import { redactValue } from './redact';
import { isEditTool, isEvidenceTool, type StepResult } from './signature';
import type { SessionState, StepState, TaskState } from './state';
import type { ExecutionOutcome } from '../../model/memory/vocabulary';

/**
 * The Lore side of one task: its replay run (started, stepped, ended) and, when the task ends,
 * its one execution write. The hook handler (handler.ts) decides when; this says what is sent.
 *
 * Each task is learned once, from the execution write (goal, steps with project-relative paths,
 * target files, outcome): the replay run is started with `learn: false`, a record for review and
 * playbook compilation that keeps the tool inputs as the agent sent them.
 */

export interface Ctx {
  binding: Binding;
  lore: LoreApi;
}

/** Steps kept per task for the execution write (the replay run records every call). */
export const MAX_EVIDENCE_STEPS = 200;
const MAX_INPUT_STRING = 2000;
const MAX_INPUT_JSON = 48 * 1024;

/** Characters a run_id or client_id may hold (contract CallerId). */
export const safeId = (s: string) => s.replace(/[^A-Za-z0-9._@/+=-]/g, '_').slice(0, 120);
export const hookRunId = (sessionId: string, n: number, agent = 'claude-code') => `${agent}:${safeId(sessionId)}:${n}`;
const firstLine = (s: string) => (s.split('\n').find((l) => l.trim() !== '') ?? s).trim().slice(0, 200);
const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

export async function startRun(ctx: Ctx, s: SessionState, t: TaskState): Promise<void> {
  await ctx.lore.replay.run.start({
    run_id: t.run_id,
    goal: t.prompts[0] ?? t.goal,
    learn: false,
    metadata: { source: s.agent, session_id: s.session_id, task_index: t.n, project_root: s.project_root },
  });
}

/** Runs fn; when the run does not exist yet (its run/start was lost or timed out), starts it and runs fn again. */
export async function withRun<T>(ctx: Ctx, s: SessionState, t: TaskState, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
    await startRun(ctx, s, t);
    return fn();
  }
}

export function stepBefore(ctx: Ctx, _s: SessionState, t: TaskState, step: StepState, input: Record<string, unknown>) {
  return ctx.lore.replay.step.before({
    run_id: t.run_id,
    step_index: step.index,
    tool_name: step.tool,
    tool_input: compactInput(input),
    ...(step.agent_id ? { metadata: { agent_id: step.agent_id } } : {}),
  });
}

export function stepAfter(ctx: Ctx, s: SessionState, t: TaskState, step: StepState, r: StepResult) {
  return ctx.lore.replay.step.after({
    run_id: t.run_id,
    step_index: step.index,
    status: r.status,
    output_signature: {
      kind: `${s.agent}/${step.tool}`.slice(0, 200),
      exit_code: r.exit_code,
      summary: r.status === 'success' ? 'ok' : (r.error_signature ?? 'failed'),
      ...(r.error_signature ? { error_signature: r.error_signature } : {}),
      files_touched: step.files ?? (step.file_path ? [step.file_path] : []),
      ...(r.interrupted ? { interrupted: true } : {}),
    },
    ...(r.error ? { error: r.error } : {}),
  });
}

/** The outcome a task ends with: forced (the session ended inside a turn), else that of its latest turn that called tools. */
export function taskOutcome(t: TaskState, forced: 'partial' | null): ExecutionOutcome {
  if (forced) return forced;
  if (t.turn_open && t.turn_calls > 0) return 'partial';
  return t.outcome ?? 'success';
}

/** The execution write of a task, or null when it has nothing to learn from (no tool calls: a question answered). */
export function executionWrite(s: SessionState, t: TaskState, outcome: ExecutionOutcome) {
  const steps = t.steps.filter((x) => isEvidenceTool(x.tool));
  if (steps.length === 0) return null;
  const edited = unique(steps.filter((x) => isEditTool(x.tool)).flatMap((x) => x.files ?? (x.file_path ? [x.file_path] : [])));
  const targets = edited.length > 0 ? edited : unique(steps.filter((x) => x.file_path).map((x) => x.file_path!));
  return {
    client_id: `${s.agent}:${safeId(s.session_id)}:${t.n}`,
    title: firstLine(t.goal),
    tags: [s.agent],
    execution: {
      goal: t.goal,
      run_id: t.run_id,
      steps: steps.map((x) => ({
        tool: x.tool,
        ...(x.file_path ? { file_path: x.file_path } : {}),
        ...(x.command ? { command: x.command } : {}),
        ...(x.status ? { outcome: x.status === 'failed' ? ('failure' as const) : ('success' as const) } : {}),
      })),
      target_files: targets.slice(0, 200),
      outcome,
      ...(outcome === 'failure' && t.last?.error_signature ? { error_signature: t.last.error_signature } : {}),
    },
    slots: {
      agent_task_v1: {
        agent: s.agent,
        session_id: s.session_id,
        task_index: t.n,
        prompts: t.prompts.map(firstLine),
        refinements: t.refinements,
        turns: t.turns,
        tool_calls: t.next_index,
        subagents: t.subagents.map((a) => ({ agent_id: a.agent_id, agent_type: a.agent_type, calls: a.calls, status: a.status })),
      },
    },
  };
}

/** run/end and the execution write of one task. */
export async function finishTask(ctx: Ctx, s: SessionState, t: TaskState, forced: 'partial' | null): Promise<void> {
  const outcome = taskOutcome(t, forced);
  const tools = unique(t.steps.map((x) => x.tool)).join(', ') || 'none';
  const summary = `${t.turns} prompt${t.turns === 1 ? '' : 's'}, ${t.next_index} tool call${t.next_index === 1 ? '' : 's'} (${tools}); ${outcome}${t.files.length ? `; files ${t.files.slice(0, 10).join(', ')}` : ''}`;
  const write = executionWrite(s, t, outcome);
  await Promise.all([
    withRun(ctx, s, t, () => ctx.lore.replay.run.end({ run_id: t.run_id, status: outcome, summary: summary.slice(0, 2000) })).catch((err) => {
      // Ended already (a repeated end): nothing to do.
      if (!(err instanceof ApiError && err.code === 'invalid_state')) throw err;
    }),
    write ? ctx.lore.memory.write(write) : null,
  ]);
}

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
  const keep = Object.fromEntries(
    Object.entries(out)
      .filter(([, v]) => typeof v !== 'object' || v === null)
      .map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 500) : v]),
  );
  return { ...keep, truncated: true };
}
