import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * `lore hooks install claude-code`: Lore's hooks merged into <project>/.claude/settings.json and
 * its MCP server into <project>/.mcp.json. Idempotent: Lore's earlier entries are replaced, the
 * user's other settings, hooks and servers are kept as they are. A settings file that is not
 * JSON is left alone (an error, not an overwrite).
 */

/** The events Lore listens to; tool events match every tool. */
export const CLAUDE_CODE_EVENTS: readonly { event: string; matcher: string | null }[] = [
  { event: 'SessionStart', matcher: null },
  { event: 'UserPromptSubmit', matcher: null },
  { event: 'PreToolUse', matcher: '*' },
  { event: 'PostToolUse', matcher: '*' },
  { event: 'PostToolUseFailure', matcher: '*' },
  { event: 'Stop', matcher: null },
  { event: 'SessionEnd', matcher: null },
];

/** Claude Code's own limit for the command, in seconds; `lore hook` answers within one. */
const HOOK_TIMEOUT_S = 5;

type Json = Record<string, any>;

export class InstallError extends Error {
  override name = 'InstallError';
}

const shellQuote = (s: string) => (/^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** How the agent runs Lore: this Node and this install's bin/lore.mjs (no npx start-up on every event). */
export function loreCommand(nodePath: string, loreBin: string, ...args: string[]): string {
  return [nodePath, loreBin, ...args].map(shellQuote).join(' ');
}

/** Is this hook command one of Lore's (any install path, npx or the bin)? */
export const isLoreHookCommand = (command: unknown) => typeof command === 'string' && /\blore(\.mjs)?'?"?\s+hook(\s|$)/.test(command);

export function hooksBlock(command: string): Json {
  const out: Json = {};
  for (const { event, matcher } of CLAUDE_CODE_EVENTS) {
    out[event] = [{ ...(matcher === null ? {} : { matcher }), hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_S }] }];
  }
  return out;
}

/** settings with Lore's hooks replaced by `command`'s; everything else untouched. */
export function mergeHooks(settings: Json, command: string): Json {
  const hooks: Json = { ...(settings.hooks ?? {}) };
  for (const { event } of CLAUDE_CODE_EVENTS) {
    const groups = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    const kept = groups
      .map((g) => ({ ...g, hooks: Array.isArray(g.hooks) ? g.hooks.filter((h: Json) => !isLoreHookCommand(h?.command)) : g.hooks }))
      .filter((g) => !Array.isArray(g.hooks) || g.hooks.length > 0);
    hooks[event] = [...kept, ...hooksBlock(command)[event]];
  }
  return { ...settings, hooks };
}

export function mergeMcpServer(mcp: Json, server: Json): Json {
  return { ...mcp, mcpServers: { ...(mcp.mcpServers ?? {}), lore: server } };
}

function readJson(path: string): Json {
  if (!existsSync(path)) return {};
  const text = readFileSync(path, 'utf8');
  if (text.trim() === '') return {};
  try {
    const v = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
    return v;
  } catch (err) {
    throw new InstallError(`${path} is not valid JSON (${(err as Error).message}); fix or move it, then run this again`);
  }
}

function writeJson(path: string, value: Json): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.lore-tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}

export interface InstallOptions {
  project: string;
  nodePath: string;
  loreBin: string;
  /** Show what would be written instead of writing. */
  print: boolean;
  /** Also register `lore mcp` in .mcp.json (default true). */
  mcp: boolean;
}

export function installClaudeCode(opts: InstallOptions): string {
  const project = resolve(opts.project);
  if (!existsSync(project)) throw new InstallError(`project directory ${project} does not exist`);
  const settingsPath = join(project, '.claude', 'settings.json');
  const mcpPath = join(project, '.mcp.json');
  const command = loreCommand(opts.nodePath, opts.loreBin, 'hook');
  const server = { type: 'stdio', command: opts.nodePath, args: [opts.loreBin, 'mcp'] };
  if (opts.print) {
    const parts = [`# merged into ${settingsPath}`, JSON.stringify({ hooks: hooksBlock(command) }, null, 2)];
    if (opts.mcp) parts.push(`# merged into ${mcpPath}`, JSON.stringify({ mcpServers: { lore: server } }, null, 2));
    return `${parts.join('\n')}\n`;
  }
  const settings = readJson(settingsPath);
  const mcp = opts.mcp ? readJson(mcpPath) : null;
  writeJson(settingsPath, mergeHooks(settings, command));
  if (mcp) writeJson(mcpPath, mergeMcpServer(mcp, server));
  return [
    `Lore's hooks are in ${settingsPath} (${CLAUDE_CODE_EVENTS.map((e) => e.event).join(', ')}).`,
    mcp ? `Lore's MCP server is in ${mcpPath} (Claude Code asks once before it uses a project's server).` : '',
    'Start Claude Code in the project (or run /hooks in it) to pick them up. Lore must be running (npm start); LORE_URL, LORE_API_KEY, LORE_MCP_TENANT and LORE_MCP_SCOPE apply as documented in docs/agents.md.',
  ]
    .filter(Boolean)
    .join('\n')
    .concat('\n');
}
