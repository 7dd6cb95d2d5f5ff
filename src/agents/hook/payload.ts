/**
 * The hook JSON a coding agent sends, checked by hand: `lore hook` stays off zod to start fast
 * (config.ts in this folder says why). Claude Code's format, which Codex adopted for its hooks
 * (same event names and fields, plus `turn_id` and `model`): docs/agents.md, "Hook protocol".
 * Unknown fields are ignored; a host that sends the same fields is supported as it is.
 */

export const KNOWN_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'Interrupt',
  'SessionEnd',
] as const;
export type KnownEvent = (typeof KNOWN_EVENTS)[number];

export interface HookEvent {
  /** hook_event_name; events Lore does not record (Notification, PermissionRequest, …) are accepted and ignored. */
  event: string;
  session_id: string;
  cwd: string | null;
  transcript_path: string | null;
  /** SessionStart: startup | resume | clear | compact. */
  source: string | null;
  /** UserPromptSubmit. */
  prompt: string | null;
  /** Pre/PostToolUse(Failure). */
  tool_name: string | null;
  tool_input: Record<string, unknown>;
  tool_use_id: string | null;
  /** PostToolUse: what the tool returned (its shape depends on the tool). */
  tool_response: unknown;
  /** PostToolUseFailure: the error text. */
  error: string | null;
  /** SessionEnd: clear | logout | prompt_input_exit | other. */
  reason: string | null;
  /** PreCompact: manual | auto. */
  trigger: string | null;
  /** Set on the events of a subagent's work (its tool calls, SubagentStop). */
  agent_id: string | null;
  agent_type: string | null;
  /** Stop / SubagentStop: the agent's final message of the turn. */
  last_assistant_message: string | null;
}

export type Parsed = { ok: true; event: HookEvent } | { ok: false; problem: string };

const str = (v: unknown, max = 1_000_000): string | null => (typeof v === 'string' && v.length <= max ? v : null);

export function parseHookEvent(text: string): Parsed {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: `hook input is not JSON: ${(err as Error).message}` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, problem: 'hook input must be a JSON object' };
  const o = raw as Record<string, unknown>;
  const event = str(o.hook_event_name, 100);
  if (!event) return { ok: false, problem: 'hook_event_name is missing or not a string' };
  const session = str(o.session_id, 500);
  if (!session || session.trim() === '') return { ok: false, problem: 'session_id is missing or not a string' };
  const isTool = event === 'PreToolUse' || event === 'PostToolUse' || event === 'PostToolUseFailure';
  const toolName = str(o.tool_name, 200);
  if (isTool && !toolName) return { ok: false, problem: `${event} needs tool_name (a string)` };
  if (isTool && o.tool_input !== undefined && (typeof o.tool_input !== 'object' || o.tool_input === null || Array.isArray(o.tool_input))) {
    return { ok: false, problem: `${event}: tool_input must be an object` };
  }
  if (event === 'UserPromptSubmit' && typeof o.prompt !== 'string') return { ok: false, problem: 'UserPromptSubmit needs prompt (a string)' };
  return {
    ok: true,
    event: {
      event,
      session_id: session,
      cwd: str(o.cwd, 4096),
      transcript_path: str(o.transcript_path, 4096),
      source: str(o.source, 100),
      prompt: str(o.prompt),
      tool_name: toolName,
      tool_input: (o.tool_input as Record<string, unknown> | undefined) ?? {},
      tool_use_id: str(o.tool_use_id, 500),
      tool_response: o.tool_response,
      error: str(o.error),
      reason: str(o.reason, 100),
      trigger: str(o.trigger, 100),
      agent_id: str(o.agent_id, 500),
      agent_type: str(o.agent_type, 200),
      last_assistant_message: str(o.last_assistant_message, 200_000),
    },
  };
}
