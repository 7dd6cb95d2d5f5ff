import type { Outcome } from './extract-rules';

/**
 * Execution packets (docs/memory.md, "Execution packets"): the state an agent hands on between
 * turns, as existing clients write it in `slots.execution_packet_v1` (or `execution_state_v1`):
 * task brief, target files, next action, pending validations, unresolved blockers. Lore reads a
 * packet as execution evidence like the `execution` object:
 *
 * - goal: the task brief;
 * - target files: the packet's target files (a state's modified files when there is no packet);
 * - steps: one per target file (at most MAX_STEPS), the first carrying the next action; the tool
 *   is the one the next action's first verb names (patch, fix, edit … → edit; read, inspect,
 *   review … → read; test, rerun, validate … → test), else the stage's or the role's, else none;
 * - acceptance checks: the pending validations (still to run: they are not steps or commands);
 * - outcome, when nothing else gives one: `success` (progress handed on), `partial` while the
 *   packet names unresolved blockers.
 */

export interface Packet {
  task_brief: string | null;
  target_files: string[];
  next_action: string | null;
  pending_validations: string[];
  unresolved_blockers: string[];
  current_stage: string | null;
  active_role: string | null;
}

const MAX_STEPS = 5;
const MAX_FILES = 50;

const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter((s): s is string => s !== null) : []);

const VERB_TOOL: ReadonlyMap<string, string> = new Map([
  ...[
    'patch',
    'edit',
    'fix',
    'modify',
    'change',
    'update',
    'implement',
    'apply',
    'refactor',
    'rewrite',
    'write',
    'add',
    'remove',
    'rename',
    'repair',
    'adjust',
    'correct',
    'replace',
    'delete',
    'create',
  ].map((v): [string, string] => [v, 'edit']),
  ...['read', 'inspect', 'review', 'investigate', 'open', 'look', 'examine', 'check', 'audit', 'analyze', 'analyse', 'study', 'trace'].map((v): [string, string] => [v, 'read']),
  ...['test', 'retest', 'rerun', 'run', 'validate', 'verify'].map((v): [string, string] => [v, 'test']),
]);

/** The tool a phrase's first word names ("Patch src/a.ts and rerun" → edit), or null. */
export function toolOfVerb(phrase: string | null): string | null {
  const first = phrase ? /^[\s"'`]*([A-Za-z]+)/.exec(phrase)?.[1]?.toLowerCase() : undefined;
  return first ? (VERB_TOOL.get(first) ?? null) : null;
}

/** The packet in a node's slots (execution_packet_v1, with execution_state_v1 filling gaps), or null when it says nothing learnable. */
export function packetOf(slots: Record<string, unknown>): Packet | null {
  const p = obj(slots.execution_packet_v1);
  const st = obj(slots.execution_state_v1);
  if (!p && !st) return null;
  const packetFiles = strList(p?.target_files);
  const target_files = [...new Set(packetFiles.length > 0 ? packetFiles : strList(st?.modified_files))].slice(0, MAX_FILES);
  const task_brief = str(p?.task_brief) ?? str(st?.task_brief);
  if (target_files.length === 0 && !task_brief) return null;
  return {
    task_brief,
    target_files,
    next_action: str(p?.next_action) ?? str(st?.next_action),
    pending_validations: [...new Set([...strList(p?.pending_validations), ...strList(st?.pending_validations)])].slice(0, MAX_FILES),
    unresolved_blockers: [...new Set([...strList(p?.unresolved_blockers), ...strList(st?.unresolved_blockers)])],
    current_stage: str(p?.current_stage) ?? str(st?.current_stage),
    active_role: str(p?.active_role) ?? str(st?.active_role),
  };
}

/** The packet's steps: its target files, with the tool its next action (or stage, or role) names. */
export function packetSteps(p: Packet): { tool: string | null; file_path: string | null; command: null; outcome: null }[] {
  const tool = toolOfVerb(p.next_action) ?? toolOfVerb(p.current_stage) ?? toolOfVerb(p.active_role);
  return p.target_files.slice(0, MAX_STEPS).map((f) => ({ tool, file_path: f, command: null, outcome: null }));
}

export const packetOutcome = (p: Packet): Outcome => (p.unresolved_blockers.length > 0 ? 'partial' : 'success');

/** The execution packet and state a request carries at its top level (handoffs, sessions, events), as the slots they are kept in. */
export function executionState(input: {
  execution_packet_v1?: Record<string, unknown> | undefined;
  execution_state_v1?: Record<string, unknown> | undefined;
}): Record<string, unknown> {
  return {
    ...(input.execution_packet_v1 ? { execution_packet_v1: input.execution_packet_v1 } : {}),
    ...(input.execution_state_v1 ? { execution_state_v1: input.execution_state_v1 } : {}),
  };
}
