import { normaliseTaskKind, requestTerms } from './similarity';
import type { Attempt, ExecOutcome, WorkflowStep } from './types';

/**
 * Replay runs as learning episodes (contract.md §3 and §6): the replay family feeds a
 * successful run of an active playbook (or any ended run it wants learned) as one observation
 * with origin `replay_learning_episode`, and reports playbook promotions so the workflows learned
 * from them become stable.
 */

export interface ReplayEpisode {
  run_id: string;
  playbook_id?: string | null;
  goal: string;
  task_kind?: string | null;
  /** success | failure | partial; other run statuses (cancelled) are not learned from. */
  status: string;
  steps: { tool_name: string; tool_input?: Record<string, unknown> | null; file_path?: string | null; next_action?: string | null }[];
  target_files?: string[];
  next_action?: string | null;
  at: string;
}

export const replaySourceId = (runId: string) => `replay:${runId}`;

const FILE_KEYS = ['file_path', 'path', 'file', 'filename', 'target_file'];

function fileOf(input: Record<string, unknown> | null | undefined): string | null {
  if (!input) return null;
  for (const k of FILE_KEYS) {
    const v = input[k];
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
  }
  return null;
}

export function replayObservation(e: ReplayEpisode): Attempt | null {
  if (e.status !== 'success' && e.status !== 'failure' && e.status !== 'partial') return null;
  const steps: WorkflowStep[] = e.steps.map((s, i) => ({
    tool: s.tool_name.toLowerCase(),
    file_path: s.file_path ?? fileOf(s.tool_input),
    next_action: s.next_action ?? (i === 0 ? (e.next_action ?? null) : null),
  }));
  const files = [...new Set([...(e.target_files ?? []), ...steps.map((s) => s.file_path).filter((f): f is string => !!f)])];
  return {
    source_id: replaySourceId(e.run_id),
    origin: 'replay_learning_episode',
    task_kind: normaliseTaskKind(e.task_kind ?? null),
    goal: e.goal.slice(0, 300),
    terms: requestTerms(e.goal),
    steps,
    target_files: files.slice(0, 20),
    targets_named: (e.target_files ?? []).length > 0,
    outcome: e.status as ExecOutcome,
    run_id: e.run_id,
    playbook_id: e.playbook_id ?? null,
    error_signature: null,
    at: e.at,
  };
}
