import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { applyJson, backupOnce, type Change, hasBackup, InstallError, type Json, readJsonFile, removeCreated, withHooks, withoutHooks, writeText } from './files';
import { commandLine, isLoreHookCommand, type LoreCommand } from './lore-command';

/**
 * `lore hooks install codex` / `lore hooks uninstall codex` (docs/agents.md, "Codex").
 *
 * Codex reads hooks from hooks.json next to each of its config layers, in Claude Code's shape
 * (`{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}]}}`;
 * the root may hold only `description` and `hooks`), runs only `command` (and `mcp_tool`)
 * handlers, and reads MCP servers from `[mcp_servers.<name>]` tables of config.toml. Followed:
 * Codex CLI 0.171.0 (developers.openai.com/codex/hooks; the hook input schemas in openai/codex,
 * codex-rs/hooks/schema/generated), where hooks are a stable feature, on by default.
 *
 * Where: by default the user layer, $CODEX_HOME (else ~/.codex): one install serves every project,
 * each recorded under its own scope (the project of the event's cwd). `--project DIR` writes the
 * project layer, DIR/.codex/, which a team commits and Codex loads only for a trusted project;
 * that needs Lore on PATH, so the files name nothing machine-specific. Codex runs a new or changed
 * hook only after it was reviewed and trusted (`/hooks` in Codex).
 *
 * The MCP server is a block between two marker comments at the end of config.toml, so that
 * uninstall removes exactly it and the rest of the file keeps every byte.
 */

/** The events Lore listens to. Codex has no PostToolUseFailure (a failed command is a PostToolUse with its exit code). */
export const CODEX_EVENTS: readonly { event: string; timeout: number }[] = [
  { event: 'SessionStart', timeout: 5 },
  { event: 'UserPromptSubmit', timeout: 5 },
  { event: 'PreToolUse', timeout: 5 },
  { event: 'PostToolUse', timeout: 5 },
  { event: 'PreCompact', timeout: 5 },
  { event: 'SubagentStop', timeout: 5 },
  { event: 'Stop', timeout: 5 },
  // Codex clamps these quick-exit events to 3 s.
  { event: 'Interrupt', timeout: 3 },
  { event: 'SessionEnd', timeout: 3 },
];

export interface CodexOptions {
  /** null: the user layer ($CODEX_HOME or ~/.codex). */
  project: string | null;
  lore: LoreCommand;
  mcp: boolean;
  dataDir: string;
  env: Record<string, string | undefined>;
}

export function codexDir(o: Pick<CodexOptions, 'project' | 'env'>): string {
  if (o.project !== null) return join(resolve(o.project), '.codex');
  const home = o.env.CODEX_HOME?.trim();
  return home ? resolve(home) : join(homedir(), '.codex');
}

export function codexHooksBlock(lore: LoreCommand): Json {
  const out: Json = {};
  for (const e of CODEX_EVENTS) out[e.event] = [{ hooks: [{ type: 'command', command: commandLine(lore, 'hook', 'codex'), timeout: e.timeout }] }];
  return out;
}

const isOurs = (h: Json) => isLoreHookCommand(h.command);
const withoutLore = (file: Json): Json => withoutHooks(file, isOurs);
export const mergeCodexHooks = (file: Json, lore: LoreCommand): Json => withHooks(file, codexHooksBlock(lore), isOurs);

export const TOML_BEGIN = '# >>> lore: MCP server (added by `lore hooks install codex`; `lore hooks uninstall codex` removes this block)';
export const TOML_END = '# <<< lore';

const tomlString = (s: string) => JSON.stringify(s);

export function mcpTomlBlock(lore: LoreCommand): string {
  return [TOML_BEGIN, '[mcp_servers.lore]', `command = ${tomlString(lore.argv[0]!)}`, `args = [${[...lore.argv.slice(1), 'mcp'].map(tomlString).join(', ')}]`, TOML_END].join('\n');
}

const BLOCK = new RegExp(`\\n?${escape(TOML_BEGIN)}\\n[\\s\\S]*?\\n${escape(TOML_END)}\\n?`);
function escape(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&');
}

/** config.toml text without Lore's block. */
export function withoutMcpBlock(text: string): string {
  const m = BLOCK.exec(text);
  if (!m) return text;
  const before = text.slice(0, m.index);
  const after = text.slice(m.index + m[0].length);
  return before + (before && after && !before.endsWith('\n') ? '\n' : '') + after;
}

/** Does the TOML (outside Lore's block) already define an MCP server named lore? */
export function definesLoreServer(text: string): boolean {
  const outside = withoutMcpBlock(text);
  if (/^\s*\[\s*mcp_servers\s*\.\s*["']?lore["']?\s*[\].]/m.test(outside)) return true;
  if (/^\s*mcp_servers\s*\.\s*["']?lore["']?\s*[.=]/m.test(outside)) return true;
  // lore = {...} inside an [mcp_servers] table
  const table = /^\s*\[\s*mcp_servers\s*\]\s*$([\s\S]*?)(?=^\s*\[|$(?![\s\S]))/m.exec(outside);
  return !!table && /^\s*["']?lore["']?\s*=/m.test(table[1]!);
}

export function withMcpBlock(text: string, lore: LoreCommand): string {
  const base = withoutMcpBlock(text);
  const sep = base === '' ? '' : base.endsWith('\n\n') ? '' : base.endsWith('\n') ? '\n' : '\n\n';
  return `${base}${sep}${mcpTomlBlock(lore)}\n`;
}

export function codexPaths(o: Pick<CodexOptions, 'project' | 'env'>) {
  const dir = codexDir(o);
  return { dir, hooks: join(dir, 'hooks.json'), config: join(dir, 'config.toml') };
}

export function previewCodex(o: CodexOptions): string {
  const p = codexPaths(o);
  const parts = [`# merged into ${p.hooks}`, JSON.stringify({ hooks: codexHooksBlock(o.lore) }, null, 2)];
  if (o.mcp) parts.push(`# appended to ${p.config}`, mcpTomlBlock(o.lore));
  return `${parts.join('\n')}\n`;
}

function applyToml(path: string, next: string, dataDir: string, uninstall: boolean): Change {
  const existed = existsSync(path);
  const current = existed ? readFileSync(path, 'utf8') : '';
  if (existed && current === next) return { path, action: 'unchanged', backup: null };
  if (!existed && next === '') return { path, action: 'unchanged', backup: null };
  if (uninstall && next.trim() === '' && !hasBackup(dataDir, path)) {
    removeCreated(path);
    return { path, action: 'removed', backup: null };
  }
  const backup = uninstall ? null : backupOnce(dataDir, path);
  writeText(path, next);
  return { path, action: existed ? 'updated' : 'created', backup };
}

export function installCodex(o: CodexOptions): { changes: Change[]; notes: string[] } {
  if (o.project !== null && !existsSync(resolve(o.project))) throw new InstallError(`project directory ${resolve(o.project)} does not exist`);
  if (o.project !== null && o.lore.kind !== 'path') {
    throw new InstallError(
      `--project writes into ${codexDir(o)}, which a team commits, but Lore is not on PATH here: its commands would name ${o.lore.argv.join(' ')}. Install Lore (npm pack, then npm install -g lore-*.tgz) and run this again, or leave out --project to install for this user (~/.codex).`,
    );
  }
  const p = codexPaths(o);
  const hooks = readJsonFile(p.hooks);
  const config = o.mcp && existsSync(p.config) ? readFileSync(p.config, 'utf8') : '';
  if (o.mcp && definesLoreServer(config)) throw new InstallError(`${p.config} already defines an MCP server named "lore"; remove it, or run this again with --no-mcp`);
  const changes = [applyJson(hooks, mergeCodexHooks(hooks.value, o.lore), { dataDir: o.dataDir })];
  if (o.mcp) changes.push(applyToml(p.config, withMcpBlock(config, o.lore), o.dataDir, false));
  const notes = [
    "Codex runs a new or changed hook only after you trust it: open /hooks in Codex and trust Lore's hooks once.",
    ...(o.project !== null ? ['Project hooks load only in a project Codex trusts (projects."<path>".trust_level = "trusted" in ~/.codex/config.toml).'] : []),
  ];
  return { changes, notes };
}

export function uninstallCodex(o: Pick<CodexOptions, 'project' | 'env' | 'dataDir'>): { changes: Change[]; notes: string[] } {
  const p = codexPaths(o);
  const changes: Change[] = [];
  const hooks = readJsonFile(p.hooks);
  if (hooks.existed) changes.push(applyJson(hooks, withoutLore(hooks.value), { dataDir: o.dataDir, uninstall: true }));
  if (existsSync(p.config)) changes.push(applyToml(p.config, withoutMcpBlock(readFileSync(p.config, 'utf8')), o.dataDir, true));
  return { changes, notes: [] };
}
