import { taskSignature, type TaskSignature } from './task-signature';
import { extractCommands, extractErrors, extractFilePaths, extractTaskKind, extractTools, inferOutcome, type Outcome } from './extract-rules';
import { packetOf, packetOutcome, packetSteps } from './packet';
import { EXECUTION_OUTCOMES } from '../../model/memory/vocabulary';

/**
 * Deterministic signal extraction for `slots.execution_native_v1` (contract.md §2): no model call
 * on the write path. Structured input (the write's `execution` object, then well-known caller
 * slots such as `task_kind`, `file_path`, `command`, `tool_sequence`, `error_signature`,
 * `outcome_status`, `execution_packet_v1`) comes first; the text adds what it mentions. The rules
 * themselves live in extract-rules.ts (packets: packet.ts) and are documented in docs/memory.md.
 */

export const EXECUTION_SLOT = 'execution_native_v1';
export const EXTRACTOR_ID = 'lore-deterministic/1';

export interface ExecutionStep {
  tool: string;
  file_path?: string | null;
  command?: string | null;
  outcome?: string | null;
}

/** The `execution` object of /v1/memory/write (contract.md §2). */
export interface ExecutionInput {
  task_kind?: string | null;
  goal?: string | null;
  run_id?: string | null;
  steps?: ExecutionStep[];
  target_files?: string[];
  outcome?: Outcome | null;
  error_signature?: string | null;
  next_action?: string | null;
  acceptance_checks?: string[];
}

export interface ExecutionNative {
  version: 1;
  extractor: typeof EXTRACTOR_ID;
  task_kind: string | null;
  goal: string | null;
  run_id: string | null;
  file_paths: string[];
  target_files: string[];
  tools: string[];
  commands: string[];
  error_signatures: string[];
  error_classes: string[];
  outcome: Outcome | null;
  outcome_source: 'execution' | 'slots' | 'packet' | 'text' | null;
  outcome_words: string[];
  /** A step's tool is null when the evidence named a file but no tool (an execution packet whose next action says no verb). */
  steps: { tool: string | null; file_path: string | null; command: string | null; outcome: string | null }[];
  next_action: string | null;
  acceptance_checks: string[];
  task_signature: TaskSignature;
}

export interface ExtractionSource {
  title?: string | null;
  text: string;
  summary?: string | null;
  slots?: Record<string, unknown>;
  execution?: ExecutionInput | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter((s): s is string => s !== null) : str(v) ? [str(v)!] : []);
const OUTCOMES = new Set<string>(EXECUTION_OUTCOMES);
/** Caller slots that give the tools in order (they, not a packet, are then the steps' tools). */
const TOOL_SLOTS = ['tool_sequence', 'tool', 'selected_tool'];

function uniq(values: Iterable<string>, max: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const v of values) {
    if (!seen.has(v)) {
      seen.add(v);
      out.push(v);
      if (out.length >= max) break;
    }
  }
  return out;
}

function firstSentence(text: string): string {
  const m = /^[\s\S]{1,300}?(?:[.!?](?=\s|$)|\n|$)/.exec(text.trim());
  return (m ? m[0] : text.slice(0, 300)).trim();
}

/** A "Next:" / "Next step:" / "Next action:" segment of the text. */
function nextActionFromText(text: string): string | null {
  const m = /\bnext(?:\s+(?:step|action))?\s*:\s*([^\n]{3,300}?)(?=\.(?:\s|$)|\n|$)/i.exec(text);
  return m ? m[1]!.trim() : null;
}

export function extractExecution(src: ExtractionSource): ExecutionNative {
  const slots = src.slots ?? {};
  const ex = src.execution ?? {};
  // An execution packet (execution_packet_v1, or execution_state_v1) is execution evidence of
  // its own: the task brief is the goal, its target files and next action the steps (packet.ts).
  const packet = packetOf(slots);
  const text = [src.title, src.text, src.summary && !src.text.includes(src.summary) ? src.summary : null].filter(Boolean).join('\n');

  const explicit = (ex.steps ?? []).map((s) => ({ tool: s.tool as string | null, file_path: s.file_path ?? null, command: s.command ?? null, outcome: s.outcome ?? null }));
  const steps = explicit.length > 0 || !packet || TOOL_SLOTS.some((k) => k in slots) ? explicit : packetSteps(packet);
  const textCommands = extractCommands(text);
  const commands = uniq(
    [...steps.map((s) => s.command).filter((c): c is string => !!c), ...strList(slots.command), ...strList(slots.commands), ...textCommands.map((c) => c.command)],
    20,
  );
  const targetFiles = uniq([...strList(ex.target_files), ...strList(slots.target_files), ...(packet?.target_files ?? [])], 50);
  const filePaths = uniq(
    [...steps.map((s) => s.file_path).filter((f): f is string => !!f), ...targetFiles, ...strList(slots.file_path), ...strList(slots.test_file), ...extractFilePaths(text)],
    50,
  );
  const tools = uniq(
    [
      ...steps.map((s) => s.tool).filter((t): t is string => !!t),
      ...strList(slots.tool_sequence),
      ...strList(slots.tool),
      ...strList(slots.selected_tool),
      ...extractTools(text, textCommands),
    ].map((t) => t.toLowerCase()),
    20,
  );
  const errors = extractErrors(text);
  const explicitError = str(ex.error_signature) ?? str(slots.error_signature);
  const errorSignatures = uniq([...(explicitError ? [explicitError.slice(0, 200)] : []), ...errors.signatures], 10);

  let outcome: Outcome | null = null;
  let outcomeSource: ExecutionNative['outcome_source'] = null;
  const inferred = inferOutcome(text, commands.length + filePaths.length + errorSignatures.length + tools.length > 0);
  if (ex.outcome) {
    outcome = ex.outcome;
    outcomeSource = 'execution';
  } else {
    const fromSlots = str(slots.outcome_status) ?? str(slots.outcome);
    if (fromSlots && OUTCOMES.has(fromSlots)) {
      outcome = fromSlots as Outcome;
      outcomeSource = 'slots';
    } else if (packet) {
      // A packet records progress handed on: success, partial while it names unresolved blockers.
      outcome = packetOutcome(packet);
      outcomeSource = 'packet';
    } else if (inferred.outcome) {
      outcome = inferred.outcome;
      outcomeSource = 'text';
    }
  }

  const taskKind = str(ex.task_kind) ?? str(slots.task_kind) ?? extractTaskKind(text);
  const goal = str(ex.goal) ?? str(slots.goal) ?? packet?.task_brief ?? null;
  // Task identity is about intent: the file paths, commands and error lines of one run are left
  // out of the signature (they stay in their own fields), as are URLs.
  let signatureText = goal ?? str(src.title) ?? firstSentence(src.summary || src.text);
  for (const noise of [...commands, ...filePaths, ...errorSignatures]) signatureText = signatureText.split(noise).join(' ');
  // Tool names (apply_patch, run_tests) say how the work was done, not what it was.
  for (const t of tools) if (/[_\d]/.test(t)) signatureText = signatureText.replace(new RegExp(`(?<![\\w])${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`, 'gi'), ' ');
  signatureText = signatureText.replace(/\bhttps?:\/\/\S+/g, ' ');

  return {
    version: 1,
    extractor: EXTRACTOR_ID,
    task_kind: taskKind,
    goal,
    run_id: str(ex.run_id) ?? str(slots.run_id) ?? str(slots.run_ref),
    file_paths: filePaths,
    target_files: targetFiles,
    tools,
    commands,
    error_signatures: errorSignatures,
    error_classes: errors.classes,
    outcome,
    outcome_source: outcomeSource,
    outcome_words: inferred.words,
    steps,
    next_action: str(ex.next_action) ?? str(slots.next_action) ?? packet?.next_action ?? nextActionFromText(text),
    acceptance_checks: uniq([...strList(ex.acceptance_checks), ...strList(slots.acceptance_checks), ...(packet?.pending_validations ?? [])], 50),
    task_signature: taskSignature(signatureText, taskKind),
  };
}

/** What a write response reports under `extracted`: the union over the nodes it wrote. */
export interface ExtractedSummary {
  file_paths: string[];
  tools: string[];
  commands: string[];
  error_signatures: string[];
  outcome: Outcome | null;
  task_signature: { hash: string; terms: string[]; task_kind: string | null } | null;
}

export function summariseExtractions(all: ExecutionNative[]): ExtractedSummary {
  const first = all[0];
  return {
    file_paths: uniq(
      all.flatMap((e) => e.file_paths),
      50,
    ),
    tools: uniq(
      all.flatMap((e) => e.tools),
      20,
    ),
    commands: uniq(
      all.flatMap((e) => e.commands),
      20,
    ),
    error_signatures: uniq(
      all.flatMap((e) => e.error_signatures),
      10,
    ),
    outcome: all.find((e) => e.outcome)?.outcome ?? null,
    task_signature: first ? { hash: first.task_signature.hash, terms: first.task_signature.terms, task_kind: first.task_signature.task_kind } : null,
  };
}
