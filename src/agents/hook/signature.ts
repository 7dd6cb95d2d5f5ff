import { redactText } from './redact';

/**
 * What a tool call did, in the terms Lore learns from: the files it touched, the command it ran,
 * and an output signature (exit status, an error signature) from its response. Claude Code's
 * tool names and fields; tools it does not know are recorded by name with no file or command.
 */

const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'NotebookRead']);
const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
const COMMAND_TOOLS = new Set(['Bash']);

/**
 * Bookkeeping tools: recorded in the replay run like every call, but left out of the execution
 * evidence, where they would become the "first step" learned for a task (a to-do list is not
 * how a fix starts). Lore's own MCP tools are left out for the same reason.
 */
const BOOKKEEPING = new Set(['TodoWrite', 'TodoRead', 'ExitPlanMode', 'EnterPlanMode', 'AskUserQuestion', 'BashOutput', 'KillShell', 'KillBash', 'SlashCommand']);

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
  if (!FILE_TOOLS.has(tool)) return null;
  return field(input, 'file_path', 'notebook_path', 'path');
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

/** The outcome of a call from its PostToolUse response, or its PostToolUseFailure error. */
export function stepResult(tool: string, failed: boolean, response: unknown, error: string | null): StepResult {
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
