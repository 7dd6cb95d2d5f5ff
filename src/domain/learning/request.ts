import { normaliseTaskKind, requestTerms } from './similarity';

/**
 * The task a planning, selection or feedback request is about, as every learning route reads it:
 * query_text (or input_text on feedback), context {goal, task_kind, file_path}, and tool
 * candidates (`tool_candidates` or `candidates`, both accepted everywhere; contract.md §2).
 */

export interface TaskContext {
  goal?: string | null;
  task_kind?: string | null;
  file_path?: string | null;
}

export interface RawTaskRequest {
  query_text?: string | null;
  input_text?: string | null;
  context?: TaskContext | null;
  tool_candidates?: string[] | null;
  candidates?: string[] | null;
}

export interface TaskRequest {
  text: string | null;
  goal: string | null;
  task_kind: string | null;
  file_path: string | null;
  terms: string[];
  /** Distinct tool names in the caller's order; empty when none were given. */
  candidates: string[];
  files: string[];
}

const clean = (s: string | null | undefined) => (typeof s === 'string' && s.trim() !== '' ? s.trim() : null);

export function taskRequest(r: RawTaskRequest): TaskRequest {
  const text = clean(r.query_text) ?? clean(r.input_text);
  const goal = clean(r.context?.goal);
  const filePath = clean(r.context?.file_path);
  const candidates = [...new Set([...(r.tool_candidates ?? []), ...(r.candidates ?? [])].map((t) => t.trim()).filter((t) => t !== ''))];
  return {
    text,
    goal,
    task_kind: normaliseTaskKind(r.context?.task_kind ?? null),
    file_path: filePath,
    terms: requestTerms(text, goal),
    candidates,
    files: filePath ? [filePath] : [],
  };
}

/** The words a request describes its task with (for labels and embeddings). */
export function taskText(r: TaskRequest): string {
  return [r.goal, r.text]
    .filter((s): s is string => !!s && s !== '')
    .filter((s, i, a) => a.indexOf(s) === i)
    .join('. ');
}
