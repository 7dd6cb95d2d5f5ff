import { safeId } from './run';
import type { SessionState, TaskState } from './state';

/**
 * The handoff a hook stores when the agent is about to compact its context (PreCompact): what a
 * fresh context needs to go on with the running task — its goal and how the user steered it, the
 * files it touched, how its last call ended, and the next step as far as the events show it. It
 * is stored under one anchor per session (`<agent>:<session>`), so each compaction supersedes the
 * last and recover returns the latest; SessionStart with source `compact` or `resume` puts it back
 * into the context (context.ts, within the budget).
 */

export const handoffAnchor = (s: Pick<SessionState, 'agent' | 'session_id'>) => `${s.agent}:${s.session_id}`.slice(0, 512);

const firstLine = (text: string, max = 300) => (text.split('\n').find((l) => l.trim() !== '') ?? text).trim().slice(0, max);

/** The next step, inferred from the events (never invented): finish the failing call, or go on with the latest request. */
export function nextStep(t: TaskState): string {
  const latest = firstLine(t.prompts.at(-1) ?? t.goal, 240);
  if (t.last?.status === 'failed') {
    const what = t.last.command ? `\`${t.last.command.slice(0, 200)}\`` : 'the last call';
    return `${what} failed${t.last.error_signature ? ` (${t.last.error_signature})` : ''}: fix that, then go on with "${latest}"`;
  }
  if (t.turn_open) return `go on with the request in progress: "${latest}"`;
  return `the last request ("${latest}") was answered; wait for the user's next one`;
}

export function handoffOf(s: SessionState, t: TaskState, trigger: string | null) {
  const edited = [...new Set(t.steps.filter((x) => x.status !== null && /edit|write|patch/i.test(x.tool)).flatMap((x) => x.files ?? (x.file_path ? [x.file_path] : [])))];
  const lastOutcome = t.last
    ? `${t.last.status === 'failed' ? 'failed' : 'succeeded'}${t.last.command ? `: \`${t.last.command.slice(0, 200)}\`` : ''}${t.last.error_signature ? ` — ${t.last.error_signature}` : ''}`
    : 'no tool call finished yet';
  const text = [
    `Task: ${firstLine(t.goal)}`,
    ...(t.refinements.length ? [`Steered by: ${t.refinements.map((r) => `"${firstLine(r, 160)}"`).join('; ')}`] : []),
    `Progress: ${t.turns} prompt${t.turns === 1 ? '' : 's'}, ${t.next_index} tool call${t.next_index === 1 ? '' : 's'}${edited.length ? `; edited ${edited.slice(0, 10).join(', ')}` : ''}`,
    `Last outcome: ${lastOutcome}`,
    ...(t.subagents.length ? [`Subagents: ${t.subagents.map((a) => `${a.agent_type ?? 'agent'} (${a.calls} calls${a.status ? `, ${a.status}` : ''})`).join(', ')}`] : []),
  ].join('\n');
  const failing = t.last?.status === 'failed' && t.last.command ? [`\`${t.last.command.slice(0, 200)}\` succeeds`] : [];
  return {
    anchor: handoffAnchor(s),
    title: `Handoff: ${firstLine(t.goal, 180)}`,
    summary: firstLine(t.goal),
    handoff_text: text,
    target_files: (edited.length ? edited : t.files).slice(0, 200),
    next_action: nextStep(t),
    acceptance_checks: failing,
    handoff_kind: trigger === 'manual' ? 'compaction_manual' : 'compaction',
    session_id: safeId(s.session_id),
    run_id: t.run_id,
    tags: [s.agent, 'compaction'],
  };
}
