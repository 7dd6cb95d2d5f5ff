import { Argv, CommandEnv } from '../../contract/families/sandbox';
import type { Json, StepKind } from '../../model/replay/types';

/**
 * Which steps Lore can run itself (docs/replay.md, "Step kinds"). A step is a command step, run
 * in the sandbox, when its tool_input says what to run:
 *   1. `action: {kind: "command", argv: [...]}` (the sandbox execute shape), or
 *   2. `argv: [...]`, or
 *   3. tool_name is one of COMMAND_TOOLS and `command` (or `cmd`) is a string (run as
 *      `sh -c <command>`) or an array of strings (the argv).
 * Optional `env` (name → string) and `timeout_ms` go with it. Every other step is a host step:
 * only the caller can do it (an editor action, an API call), so guided mode hands it back.
 */

export const COMMAND_TOOLS = ['command', 'shell', 'bash', 'sh', 'exec', 'run_command', 'terminal', 'sandbox', 'sandbox.execute', 'sandbox_execute'];

export interface CommandSpec {
  argv: unknown[];
  env: unknown;
  timeout_ms: unknown;
}

const isStringArray = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > 0;

/** The command a step's input describes (argv not yet checked), or null for a host step. */
export function commandOf(toolName: string, input: Json): CommandSpec | null {
  const env = input.env;
  const timeout = input.timeout_ms;
  const action = input.action as Json | undefined;
  if (action && typeof action === 'object' && action.kind === 'command' && isStringArray(action.argv)) {
    return { argv: action.argv, env: action.env ?? env, timeout_ms: timeout };
  }
  if (isStringArray(input.argv)) return { argv: input.argv, env, timeout_ms: timeout };
  if (COMMAND_TOOLS.includes(toolName.toLowerCase())) {
    const cmd = input.command ?? input.cmd;
    if (typeof cmd === 'string' && cmd.trim() !== '') return { argv: ['sh', '-c', cmd], env, timeout_ms: timeout };
    if (isStringArray(cmd)) return { argv: cmd, env, timeout_ms: timeout };
  }
  return null;
}

export const kindOf = (toolName: string, input: Json): StepKind => (commandOf(toolName, input) ? 'command' : 'host');

export interface CheckedCommand {
  argv: string[];
  env: Record<string, string> | undefined;
  timeout_ms: number | undefined;
}

/** argv and env entries are text: a number or boolean (e.g. a typed parameter value) is written as text. */
const asText = (v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v);

/** A resolved command checked the way sandbox/execute checks it; problems in words otherwise. */
export function checkedCommand(spec: CommandSpec): { command: CheckedCommand | null; problems: string[] } {
  const problems: string[] = [];
  const argv = Argv.safeParse(spec.argv.map(asText));
  if (!argv.success) problems.push(`argv: ${argv.error.issues.map((i) => i.message).join('; ')}`);
  let env: Record<string, string> | undefined;
  if (spec.env !== undefined && spec.env !== null) {
    const e = CommandEnv.safeParse(
      typeof spec.env === 'object' && !Array.isArray(spec.env) ? Object.fromEntries(Object.entries(spec.env as object).map(([k, v]) => [k, asText(v)])) : spec.env,
    );
    if (!e.success) problems.push(`env: ${e.error.issues.map((i) => i.message).join('; ')}`);
    else env = e.data;
  }
  let timeout: number | undefined;
  if (spec.timeout_ms !== undefined && spec.timeout_ms !== null) {
    if (typeof spec.timeout_ms !== 'number' || !Number.isInteger(spec.timeout_ms) || spec.timeout_ms < 100 || spec.timeout_ms > 600_000) {
      problems.push('timeout_ms must be an integer between 100 and 600000');
    } else timeout = spec.timeout_ms;
  }
  if (problems.length > 0 || !argv.success) return { command: null, problems };
  return { command: { argv: argv.data, env, timeout_ms: timeout }, problems };
}

/** A short label of a step for the Temporal UI and messages. */
export function labelOf(toolName: string, input: Json): string {
  const cmd = commandOf(toolName, input);
  const text = cmd ? cmd.argv.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ') : toolName;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
