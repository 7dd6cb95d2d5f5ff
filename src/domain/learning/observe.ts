import type { StoredNode } from '../../store/memory/nodes';
import { EXECUTION_SLOT, extractExecution, type ExecutionNative } from '../memory/extract';
import { isStructuralTerm, taskTerms } from './similarity';
import { taskPhrase, textSteps } from './text-evidence';
import type { DistillationOrigin, ExecOutcome, Observation, WorkflowStep } from './types';

/**
 * What a written node tells learning (docs/learning.md, "What is learned from"): the execution
 * the memory family extracted into slots.execution_native_v1, read as one observation with the
 * distillation origin of its carrier. Learned nodes themselves (workflows, patterns, policies,
 * rules) are never observations.
 *
 * Steps: the execution's explicit steps when given; otherwise projected from the extracted tools
 * in order, the file-reading and editing tools taking the primary file (first target file, else
 * first file mentioned). Outcome: an explicit or inferred outcome; continuity carriers (handoffs,
 * sessions, session events) that carry work but no outcome count as progress (success), since a
 * carrier records state that was handed on, not a failed attempt.
 */

const FILE_TOOLS: ReadonlySet<string> = new Set([
  'read',
  'edit',
  'write',
  'open',
  'view',
  'patch',
  'apply_patch',
  'str_replace',
  'create',
  'cat',
  'read_file',
  'write_file',
  'edit_file',
  'create_file',
  'multi_edit',
  'multiedit',
  'str_replace_editor',
  'str_replace_based_edit_tool',
]);

/** Caller slots that give the tools in order: when present, they are the steps' tools, not the text. */
const TOOL_SLOTS = ['tool_sequence', 'tool', 'selected_tool'];

export interface ObserveContext {
  sessionGoal?: string | null;
  /** Tool names the scope has seen (kickoff candidates, replay runs, feedback): found in free text too. */
  tools?: Iterable<string>;
}

const ORIGIN_BY_KIND: Record<string, DistillationOrigin> = {
  handoff: 'handoff_continuity_carrier',
  session_event: 'session_event_continuity_carrier',
  session: 'session_continuity_carrier',
};

export function executionOf(n: Pick<StoredNode, 'slots'>): ExecutionNative | null {
  const ex = n.slots[EXECUTION_SLOT];
  return ex && typeof ex === 'object' ? (ex as ExecutionNative) : null;
}

/** Steps of an execution: explicit ones, else a projection of its tools onto its primary file. */
export function stepsOf(ex: ExecutionNative): WorkflowStep[] {
  if (ex.steps.length > 0) {
    return ex.steps.map((s, i) => ({ tool: s.tool ? s.tool.toLowerCase() : null, file_path: s.file_path ?? null, next_action: i === 0 ? ex.next_action : null }));
  }
  const primary = ex.target_files[0] ?? ex.file_paths[0] ?? null;
  if (ex.tools.length > 0) {
    return ex.tools.map((tool, i) => ({ tool, file_path: FILE_TOOLS.has(tool) ? primary : null, next_action: i === 0 ? ex.next_action : null }));
  }
  return primary ? [{ tool: null, file_path: primary, next_action: ex.next_action }] : [];
}

/** The signature terms the memory family computed, without path fragments (as learning compares terms). */
export function termsOfExecution(ex: ExecutionNative, extra?: string | null): string[] {
  const out = new Set<string>();
  for (const t of ex.task_signature?.terms ?? []) if (!isStructuralTerm(t)) out.add(t);
  for (const t of taskTerms(extra)) out.add(t);
  return [...out].sort();
}

/** The observation a node carries, or null when it carries nothing learnable. */
export function observationOf(n: StoredNode, context: ObserveContext = {}): Observation | null {
  if (n.type === 'rule') return null;
  if (n.kind && !(n.kind in ORIGIN_BY_KIND)) return null;
  // Session nodes are written without extraction (their state is metadata); their own text and
  // metadata are read here the same way, so a session that records work is a carrier too.
  const ex = executionOf(n) ?? (n.kind === 'session' ? sessionExecution(n) : null);
  if (!ex) return null;
  const origin: DistillationOrigin = n.kind ? ORIGIN_BY_KIND[n.kind]! : 'execution_write_projection';
  // Free-text evidence: no explicit steps and no tool slots, so the text's own order of tools and
  // the file each one was used on are the steps, and its task phrase the goal (text-evidence.ts).
  const fromText = ex.steps.length === 0 && !TOOL_SLOTS.some((k) => k in n.slots) && n.text.trim() !== '';
  const textual = fromText ? textSteps(n.text, context.tools ?? [], FILE_TOOLS) : null;
  const steps = textual ?? stepsOf(ex);
  const files = [...new Set([...ex.target_files, ...steps.map((s) => s.file_path).filter((f): f is string => !!f)])];
  if (steps.length === 0 && files.length === 0) return null;
  let outcome: ExecOutcome | null = ex.outcome;
  if (!outcome && origin !== 'execution_write_projection') outcome = 'success';
  // No outcome stated: practice only when it says what was done (a tool used), not a note that
  // merely mentions a file.
  if (!outcome && !steps.some((s) => s.tool)) return null;
  // A handoff is one node per anchor, superseded by each new handoff: each revision is a new
  // carrier state, and its words are in its summary and text rather than a goal.
  const handoff = n.kind === 'handoff' ? handoffWords(n) : null;
  const phrase = fromText && !ex.goal && !n.title && origin === 'execution_write_projection' ? taskPhrase(n.text, context.tools ?? []) : null;
  const goal = ex.goal ?? handoff?.goal ?? context.sessionGoal ?? n.title ?? phrase ?? null;
  // A task phrase replaces the signature's first-sentence terms, which carry the evidence's words too.
  const terms = phrase ? taskTerms(phrase) : termsOfExecution(ex, ex.goal ? null : (handoff?.words ?? context.sessionGoal));
  if (terms.length === 0 && !ex.task_kind) return null;
  return {
    source_id: n.kind === 'handoff' ? `${n.id}#r${n.revision}` : n.id,
    origin,
    task_kind: ex.task_signature?.task_kind ?? null,
    goal: goal ? goal.slice(0, 300) : null,
    terms,
    steps,
    target_files: ex.target_files.length > 0 ? ex.target_files : files.slice(0, 10),
    targets_named: ex.target_files.length > 0,
    outcome,
    run_id: ex.run_id,
    playbook_id: null,
    error_signature: ex.error_signatures[0] ?? null,
    at: n.updated_at,
  };
}

function handoffWords(n: StoredNode): { goal: string | null; words: string } {
  const h = (n.slots.handoff_v1 && typeof n.slots.handoff_v1 === 'object' ? n.slots.handoff_v1 : {}) as Record<string, unknown>;
  const text = typeof h.handoff_text === 'string' ? h.handoff_text.slice(0, 400) : '';
  const summary = n.summary && !n.summary.startsWith('Handoff ') ? n.summary : '';
  const goal = summary || (n.title && !n.title.startsWith('Handoff: ') ? n.title : null) || text.split(/(?<=[.!?])\s/)[0] || null;
  return { goal: goal ? goal.slice(0, 300) : null, words: [summary, text].join(' ') };
}

function sessionExecution(n: StoredNode): ExecutionNative {
  const meta = Object.values(n.slots).find((v) => v && typeof v === 'object' && 'metadata' in (v as object)) as { metadata?: Record<string, unknown> } | undefined;
  return extractExecution({ title: n.title, text: n.text, summary: n.summary, slots: meta?.metadata ?? {} });
}
