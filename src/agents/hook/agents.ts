/**
 * The coding agents whose hooks Lore understands. Both send Claude Code's hook JSON (Codex adopted
 * its event names and fields); the agent names the runs, client ids, tags and the actor of what is
 * recorded (`claude-code:<session>:<task>`, `codex:<session>:<task>`), and the HTTP route
 * (`/v1/hooks/<agent>`).
 */
export const AGENTS = ['claude-code', 'codex'] as const;
export type AgentKind = (typeof AGENTS)[number];

export const isAgentKind = (v: unknown): v is AgentKind => typeof v === 'string' && (AGENTS as readonly string[]).includes(v);

export const agentLabel = (a: string) => (a === 'codex' ? 'Codex' : a === 'claude-code' ? 'Claude Code' : a);
