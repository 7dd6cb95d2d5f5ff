import { redactText } from './redact';

/**
 * What a tool call did, in the terms Lore learns from: the files it touched, the command it ran,
 * and an output signature (exit status, an error signature) from its response. Claude Code's
 * tools (Read, Edit, Write, MultiEdit, NotebookEdit: `file_path`; Bash: `command`) and Codex's
 * (Bash: `command`, its response the command's output as text; apply_patch: the patch in
 * `command`, whose `*** Update File:` lines name the files). Tools neither host documents are
 * recorded by name with no file or command.
 */

const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'NotebookRead']);
const PATCH_TOOLS = new Set(['apply_patch']);
const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'apply_patch']);
const COMMAND_TOOLS = new Set(['Bash', 'shell', 'exec_command', 'local_shell']);
/** Programs that show a file: a command running one of them reads its file operands. */
const VIEWERS = new Set(['cat', 'head', 'tail', 'sed', 'nl', 'less', 'more', 'bat', 'wc']);

/**
 * Bookkeeping tools: recorded in the replay run like every call, but left out of the execution
 * evidence, where they would become the "first step" learned for a task (a to-do list is not
 * how a fix starts). Lore's own MCP tools are left out for the same reason, and so is the
 * `Subagent` step a hook records when a subagent ends (its own calls are the evidence).
 */
const BOOKKEEPING = new Set(['Subagent', 'TodoWrite', 'TodoRead', 'ExitPlanMode', 'EnterPlanMode', 'AskUserQuestion', 'BashOutput', 'KillShell', 'KillBash', 'SlashCommand']);

export const isEditTool = (tool: string) => EDIT_TOOLS.has(tool);
export const isEvidenceTool = (tool: string) => !BOOKKEEPING.has(tool) && !tool.startsWith('mcp__lore__');

const field = (input: Record<string, unknown>, ...names: string[]): string | null => {
  for (const n of names) {
    const v = input[n];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return null;
};

/** The file a tool call is about (file tools only). */
export function toolFile(tool: string, input: Record<string, unknown>): string | null {
  return toolFiles(tool, input)[0] ?? null;
}

/** Every file a tool call is about: a file tool's file, a patch's files, a viewer command's operands. */
export function toolFiles(tool: string, input: Record<string, unknown>): string[] {
  if (FILE_TOOLS.has(tool)) {
    const f = field(input, 'file_path', 'notebook_path', 'path');
    return f ? [f] : [];
  }
  if (PATCH_TOOLS.has(tool)) return patchFiles(field(input, 'command', 'patch', 'input') ?? '');
  if (COMMAND_TOOLS.has(tool)) return viewedFiles(field(input, 'command') ?? '');
  return [];
}

/** The text a call wrote into files (an edit's new text, a written file, a patch's added lines), the first 4,000 characters. */
export function writtenText(tool: string, input: Record<string, unknown>): string {
  let text = '';
  if (PATCH_TOOLS.has(tool))
    text = (field(input, 'command', 'patch', 'input') ?? '')
      .split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
      .join('\n');
  else if (EDIT_TOOLS.has(tool)) {
    const edits = Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [input];
    text = edits.map((e) => field(e ?? {}, 'new_string', 'content', 'new_source') ?? '').join('\n');
  }
  return text.slice(0, 4000);
}

/** Files an apply_patch envelope adds, updates, deletes or moves to. */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  for (const m of patch.matchAll(/^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$/gm)) {
    const f = (m[1] ?? m[2])!.trim();
    if (f && !out.includes(f)) out.push(f);
  }
  return out.slice(0, 50);
}

/** The files a simple viewing command shows (`sed -n '1,80p' src/a.ts`, `cat a.ts b.ts`): path-like operands. */
export function viewedFiles(command: string): string[] {
  const first = command.split(/&&|\|\||[|;\n]/)[0]!.trim();
  const words = first.match(/'[^']*'|"[^"]*"|\S+/g) ?? [];
  if (!VIEWERS.has(words[0] ?? '')) return [];
  return words
    .slice(1)
    .map((w) => w.replace(/^['"]|['"]$/g, ''))
    .filter((w) => !w.startsWith('-') && /^[\w@./-]+$/.test(w) && (/\//.test(w) || /\.[A-Za-z0-9]{1,6}$/.test(w)) && !/^\d/.test(w))
    .slice(0, 10);
}

/** The command a tool call ran (redacted). */
export function toolCommand(tool: string, input: Record<string, unknown>): string | null {
  if (!COMMAND_TOOLS.has(tool)) return null;
  const c = field(input, 'command');
  return c === null ? null : redactText(c).slice(0, 2000);
}

export interface StepResult {
  status: 'success' | 'failed';
  exit_code: number | null;
  error_signature: string | null;
  /** A short, redacted description of the failure (step/after's `error`). */
  error: string | null;
  interrupted: boolean;
}

const ERROR_LINE = /(error|fail|exception|traceback|panic|not found|denied|refused|cannot|unable|invalid|✗|✖)/i;

/** The first line that reads like an error, collapsed and redacted: what a later failure can be matched on. */
export function errorSignature(text: string | null | undefined): string | null {
  if (!text) return null;
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.find((l) => ERROR_LINE.test(l) && !/^exit code \d+$/i.test(l)) ?? lines.find((l) => !/^exit code \d+$/i.test(l));
  return line ? redactText(line.replace(/\s+/g, ' ')).slice(0, 200) : null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);

/** A response given as text (Codex): its exit status, when it states one. */
function textExitCode(text: string): number | null {
  const m = /(?:process exited with code|exit code:?|exit status:?)\s*(-?\d+)/i.exec(text) ?? /"exit_code"\s*:\s*(-?\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

/** The outcome of a call from its PostToolUse response, or its PostToolUseFailure error. */
export function stepResult(tool: string, failed: boolean, response: unknown, error: string | null): StepResult {
  if (typeof response === 'string' && !failed) return textResult(tool, response);
  const r = (typeof response === 'object' && response !== null ? response : {}) as Record<string, unknown>;
  const interrupted = r.interrupted === true;
  let exit = num(r.exit_code) ?? num(r.exitCode) ?? num(r.returnCode) ?? num(r.return_code);
  if (failed) {
    const m = /exit code (\d+)/i.exec(error ?? '');
    exit = m ? Number(m[1]) : (exit ?? null);
    const sig = errorSignature(error) ?? errorSignature(typeof r.stderr === 'string' ? r.stderr : null);
    return { status: 'failed', exit_code: exit, error_signature: sig, error: error ? redactText(error).slice(0, 2000) : 'the tool call failed', interrupted };
  }
  const stderr = typeof r.stderr === 'string' ? r.stderr : null;
  const nonZero = exit !== null && exit !== 0;
  if (nonZero || interrupted || r.success === false || r.is_error === true) {
    return {
      status: 'failed',
      exit_code: exit,
      error_signature: errorSignature(stderr) ?? errorSignature(typeof r.error === 'string' ? r.error : null),
      error: interrupted ? 'interrupted' : stderr ? redactText(stderr).slice(-2000) : 'the tool reported a failure',
      interrupted,
    };
  }
  // A command that PostToolUse reports as done exited 0 (failures arrive as PostToolUseFailure).
  return { status: 'success', exit_code: exit ?? (COMMAND_TOOLS.has(tool) ? 0 : null), error_signature: null, error: null, interrupted };
}

/** A response that is the tool's output as text (Codex's Bash and apply_patch). */
function textResult(tool: string, text: string): StepResult {
  const exit = textExitCode(text);
  const output = text.replace(/^[\s\S]*?\bOutput:\n/, '');
  const patchFailed = PATCH_TOOLS.has(tool) && /verification failed|^\s*error\b|failed to (apply|find)/i.test(text);
  if ((exit !== null && exit !== 0) || patchFailed) {
    return {
      status: 'failed',
      exit_code: exit,
      error_signature: errorSignature(output),
      error: redactText(output).slice(-2000) || 'the tool reported a failure',
      interrupted: false,
    };
  }
  return { status: 'success', exit_code: exit ?? (COMMAND_TOOLS.has(tool) ? 0 : null), error_signature: null, error: null, interrupted: false };
}
