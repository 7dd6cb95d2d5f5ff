import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { installTokenFor } from '../model/install-token';

/**
 * Configuration of the agent-side commands (`lore mcp`, `lore hook`, `lore hooks install`): which
 * Lore to talk to, with which key, for which tenant and scope. Documented with the rest in
 * docs/configuration.md ("Agents").
 *
 * This is the light half of the configuration, on purpose: `lore hook` runs once per agent event
 * and must answer within a second, and loading zod (what src/config.ts validates with) costs
 * 100–300 ms of that on a busy machine. So it parses by hand and imports nothing but node
 * builtins. Like loadConfig(), it reads only the env object it is given (the CLI passes
 * process.env).
 */

export interface AgentConfig {
  /** Base URL of the running Lore API (LORE_URL). */
  readonly url: string;
  /**
   * Bearer key sent to Lore: LORE_API_KEY, else the install token of the data dir
   * (`<LORE_DATA_DIR>/api-token`, docs/security.md) when LORE_URL is on this machine.
   */
  readonly apiKey: string | null;
  /** The tenant every call acts for (LORE_MCP_TENANT). */
  readonly tenant: string;
  /** The scope, or null: the project the working directory belongs to (LORE_MCP_SCOPE). */
  readonly scope: string | null;
  /** Where `lore hook` keeps its per-session state and its log (LORE_DATA_DIR). */
  readonly dataDir: string;
  /** `lore hook` answers by this many ms after its process started (LORE_HOOK_BUDGET_MS). */
  readonly hookBudgetMs: number;
  /** The cap on what a hook adds to the agent's context, in characters (LORE_HOOK_CONTEXT_CHARS). */
  readonly hookContextChars: number;
}

/** Same rule as contract/common.ts TENANT_PATTERN (a unit test keeps them equal). */
export const AGENT_TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Same rule as contract/common.ts ScopeName: 1–256 printable characters. */
export const AGENT_SCOPE_PATTERN = /^[^\u0000-\u001f\u007f]{1,256}$/;

export class AgentConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'AgentConfigError';
  }
}

function expandHome(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return isAbsolute(p) ? p : resolve(p);
}

/** LORE_DATA_DIR alone: where a hook logs even when the rest of its configuration is bad. */
export function agentDataDir(env: Record<string, string | undefined>): string {
  const v = env.LORE_DATA_DIR?.trim();
  return expandHome(v ? v : '~/.lore');
}

export function loadAgentConfig(env: Record<string, string | undefined>): AgentConfig {
  const problems: string[] = [];
  const get = (name: string): string | null => {
    const v = env[name];
    return v !== undefined && v.trim() !== '' ? v.trim() : null;
  };

  const url = (get('LORE_URL') ?? 'http://127.0.0.1:3001').replace(/\/+$/, '');
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push(`LORE_URL=${JSON.stringify(url)}: use an http:// or https:// URL`);
  } catch {
    problems.push(`LORE_URL=${JSON.stringify(url)}: not a URL (e.g. http://127.0.0.1:3001)`);
  }

  const tenant = get('LORE_MCP_TENANT') ?? 'default';
  if (!AGENT_TENANT_PATTERN.test(tenant)) problems.push(`LORE_MCP_TENANT=${JSON.stringify(tenant)}: must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`);

  const scope = get('LORE_MCP_SCOPE');
  if (scope !== null && !AGENT_SCOPE_PATTERN.test(scope)) problems.push(`LORE_MCP_SCOPE=${JSON.stringify(scope)}: must be 1-256 printable characters`);

  const budgetRaw = get('LORE_HOOK_BUDGET_MS') ?? '900';
  const hookBudgetMs = Number(budgetRaw);
  if (!/^\d+$/.test(budgetRaw) || hookBudgetMs < 200 || hookBudgetMs > 60_000)
    problems.push(`LORE_HOOK_BUDGET_MS=${JSON.stringify(budgetRaw)}: milliseconds between 200 and 60000`);

  const contextRaw = get('LORE_HOOK_CONTEXT_CHARS') ?? '2000';
  const hookContextChars = Number(contextRaw);
  if (!/^\d+$/.test(contextRaw) || hookContextChars < 200 || hookContextChars > 20_000)
    problems.push(`LORE_HOOK_CONTEXT_CHARS=${JSON.stringify(contextRaw)}: characters between 200 and 20000`);

  if (problems.length > 0) throw new AgentConfigError(problems);
  const dataDir = agentDataDir(env);
  return Object.freeze({
    url,
    apiKey: get('LORE_API_KEY') ?? installTokenFor(url, dataDir),
    tenant,
    scope,
    dataDir,
    hookBudgetMs,
    hookContextChars,
  });
}
