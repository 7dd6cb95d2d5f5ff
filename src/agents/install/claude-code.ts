import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { applyJson, type Change, InstallError, type Json, readJsonFile, sameJson, withHooks, withoutHooks } from './files';
import { commandLine, isLoreHookCommand, type LoreCommand } from './lore-command';

/**
 * `lore hooks install claude-code` / `lore hooks uninstall claude-code` (docs/agents.md, "Connect").
 *
 * Where: by default the hooks go into <project>/.claude/settings.local.json, the file Claude Code
 * keeps per user and out of git, so nothing of one machine lands in what a team commits;
 * `--shared` puts them into .claude/settings.json instead (allowed only when Lore runs as `lore`
 * from PATH, so the file names nothing machine-specific). Lore's MCP server goes into the
 * project's .mcp.json as `lore mcp` when Lore is on PATH; from a clone it is left to the user
 * (the command to add it for this machine only is printed).
 *
 * How: HTTP hooks to the running Lore for the events Claude Code can post (no process start per
 * tool call; Claude Code goes on when Lore is down or slow: a failed HTTP hook is a non-blocking
 * error), and `lore hook claude-code --forward` command hooks for the events it runs only as
 * commands (SessionStart, SessionEnd, PreCompact), which post to the same route so both share one
 * session state. `--command-hooks` writes `lore hook` command hooks for every event instead.
 *
 * Idempotent: installing again replaces Lore's entries with the same ones (an unchanged file is
 * not rewritten); the user's other settings, hooks and servers are kept as they are, in their
 * order. Uninstall removes Lore's entries and nothing else, and a file that install created and
 * that is left empty.
 */

export const CLAUDE_CODE_EVENTS: readonly { event: string; matcher: string | null; http: boolean }[] = [
  { event: 'SessionStart', matcher: null, http: false },
  { event: 'UserPromptSubmit', matcher: null, http: true },
  { event: 'PreToolUse', matcher: '*', http: true },
  { event: 'PostToolUse', matcher: '*', http: true },
  { event: 'PostToolUseFailure', matcher: '*', http: true },
  { event: 'Stop', matcher: null, http: true },
  { event: 'SubagentStop', matcher: null, http: true },
  { event: 'PreCompact', matcher: null, http: false },
  { event: 'SessionEnd', matcher: null, http: false },
];

/** Claude Code's own limits, in seconds; Lore answers within one. */
const COMMAND_TIMEOUT_S = 5;
const HTTP_TIMEOUT_S = 3;
/** The environment an HTTP hook may read into its headers (Claude Code sends "" for an unset one). */
const HTTP_ENV = ['LORE_API_KEY', 'LORE_MCP_TENANT', 'LORE_MCP_SCOPE'];

export type HookMode = 'http' | 'command';

export interface ClaudeCodeOptions {
  project: string;
  lore: LoreCommand;
  /** Lore's URL for HTTP hooks (LORE_URL). */
  url: string;
  mode: HookMode;
  /** Into .claude/settings.json (team-shared) instead of settings.local.json. */
  shared: boolean;
  /** Also register `lore mcp` in .mcp.json. */
  mcp: boolean;
  dataDir: string;
}

const HOOK_PATH = /\/v1\/hooks\/(claude-code|codex)(\?|$)/;

/** Is this hook entry one of Lore's: a `lore hook` command, or an HTTP hook to Lore's hook route? */
export function isLoreHook(h: Json | null | undefined): boolean {
  if (!h || typeof h !== 'object') return false;
  if (h.type === 'http') return typeof h.url === 'string' && HOOK_PATH.test(h.url);
  return isLoreHookCommand(h.command);
}

export function hookHandler(event: (typeof CLAUDE_CODE_EVENTS)[number], o: Pick<ClaudeCodeOptions, 'lore' | 'url' | 'mode'>): Json {
  if (o.mode === 'http' && event.http) {
    return {
      type: 'http',
      url: `${o.url.replace(/\/+$/, '')}/v1/hooks/claude-code`,
      timeout: HTTP_TIMEOUT_S,
      headers: {
        'Content-Type': 'application/json',
        Authorization: 'Bearer $LORE_API_KEY',
        'X-Lore-Tenant': '$LORE_MCP_TENANT',
        'X-Lore-Scope': '$LORE_MCP_SCOPE',
      },
      allowedEnvVars: HTTP_ENV,
    };
  }
  const args = o.mode === 'http' ? ['hook', 'claude-code', '--forward'] : ['hook', 'claude-code'];
  return { type: 'command', command: commandLine(o.lore, ...args), timeout: COMMAND_TIMEOUT_S };
}

export function hooksBlock(o: Pick<ClaudeCodeOptions, 'lore' | 'url' | 'mode'>): Json {
  const out: Json = {};
  for (const e of CLAUDE_CODE_EVENTS) out[e.event] = [{ ...(e.matcher === null ? {} : { matcher: e.matcher }), hooks: [hookHandler(e, o)] }];
  return out;
}

/** settings without Lore's hooks; everything else untouched. */
export const withoutLoreHooks = (settings: Json): Json => withoutHooks(settings, isLoreHook);

/** settings with Lore's hooks (replacing earlier ones of any install); everything else untouched. */
export const mergeHooks = (settings: Json, o: Pick<ClaudeCodeOptions, 'lore' | 'url' | 'mode'>): Json => withHooks(settings, hooksBlock(o), isLoreHook);

export const mcpServer = (lore: LoreCommand): Json => ({ type: 'stdio', command: lore.argv[0], args: [...lore.argv.slice(1), 'mcp'] });

/** Is this MCP server entry Lore's (`lore mcp`, or node …/lore.mjs mcp)? */
export function isLoreMcpServer(server: Json | null | undefined): boolean {
  if (!server || typeof server !== 'object') return false;
  const argv = [server.command, ...(Array.isArray(server.args) ? server.args : [])].map(String);
  return argv.at(-1) === 'mcp' && argv.slice(0, -1).some((a) => /(^|\/)lore(\.mjs)?$/.test(a));
}

function withoutLoreServer(mcp: Json): Json {
  const servers = mcp.mcpServers;
  if (!servers || typeof servers !== 'object' || !isLoreMcpServer(servers.lore)) return mcp;
  const { lore: _, ...others } = servers as Json;
  const { mcpServers: __, ...rest } = mcp;
  return Object.keys(others).length > 0 ? { ...rest, mcpServers: others } : rest;
}

export interface InstallResult {
  changes: Change[];
  /** What to tell the user beyond the files (how to add the MCP server from a clone, …). */
  notes: string[];
}

export function claudeCodePaths(project: string) {
  const dir = resolve(project);
  return { local: join(dir, '.claude', 'settings.local.json'), shared: join(dir, '.claude', 'settings.json'), mcp: join(dir, '.mcp.json') };
}

/** What install would write, without writing: for --print. */
export function previewClaudeCode(o: ClaudeCodeOptions): string {
  const paths = claudeCodePaths(o.project);
  const parts = [`# merged into ${o.shared ? paths.shared : paths.local}`, JSON.stringify({ hooks: hooksBlock(o) }, null, 2)];
  if (o.mcp && o.lore.kind === 'path') parts.push(`# merged into ${paths.mcp}`, JSON.stringify({ mcpServers: { lore: mcpServer(o.lore) } }, null, 2));
  return `${parts.join('\n')}\n`;
}

export function installClaudeCode(o: ClaudeCodeOptions): InstallResult {
  const project = resolve(o.project);
  if (!existsSync(project)) throw new InstallError(`project directory ${project} does not exist`);
  if (o.shared && o.lore.kind !== 'path') {
    throw new InstallError(
      `--shared writes into .claude/settings.json, which a team commits, but Lore is not on PATH here: its commands would name ${o.lore.argv.join(' ')}. Install Lore (npm pack, then npm install -g lore-*.tgz) and run this again, or leave out --shared to keep the hooks in .claude/settings.local.json.`,
    );
  }
  const paths = claudeCodePaths(project);
  const target = readJsonFile(o.shared ? paths.shared : paths.local);
  const other = readJsonFile(o.shared ? paths.local : paths.shared);
  const mcp = o.mcp && o.lore.kind === 'path' ? readJsonFile(paths.mcp) : null;
  if (mcp?.value.mcpServers?.lore && !isLoreMcpServer(mcp.value.mcpServers.lore)) {
    throw new InstallError(`${paths.mcp} already has an MCP server named "lore" that is not Lore's; rename it, or run this again with --no-mcp`);
  }
  const changes: Change[] = [];
  // Lore's hooks live in one of the two files: moving them (with or without --shared) leaves none behind.
  if (other.existed && !sameJson(withoutLoreHooks(other.value), other.value))
    changes.push(applyJson(other, withoutLoreHooks(other.value), { dataDir: o.dataDir, uninstall: true }));
  changes.push(applyJson(target, mergeHooks(target.value, o), { dataDir: o.dataDir }));
  if (mcp) changes.push(applyJson(mcp, { ...mcp.value, mcpServers: { ...(mcp.value.mcpServers ?? {}), lore: mcpServer(o.lore) } }, { dataDir: o.dataDir }));
  const notes: string[] = [];
  if (o.mcp && o.lore.kind !== 'path') {
    notes.push(
      `Lore's MCP server was not added to ${paths.mcp}: Lore is not on PATH, and that file is shared. For this machine only: claude mcp add --scope local lore -- ${commandLine(o.lore, 'mcp')}`,
    );
  }
  return { changes, notes };
}

export function uninstallClaudeCode(o: Pick<ClaudeCodeOptions, 'project' | 'dataDir'>): InstallResult {
  const paths = claudeCodePaths(o.project);
  const changes: Change[] = [];
  for (const path of [paths.local, paths.shared]) {
    const f = readJsonFile(path);
    if (f.existed) changes.push(applyJson(f, withoutLoreHooks(f.value), { dataDir: o.dataDir, uninstall: true }));
  }
  const mcp = readJsonFile(paths.mcp);
  if (mcp.existed) changes.push(applyJson(mcp, withoutLoreServer(mcp.value), { dataDir: o.dataDir, uninstall: true }));
  return { changes, notes: [] };
}
