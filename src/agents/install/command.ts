import { agentDataDir, loadAgentConfig } from '../config';
import { installClaudeCode, previewClaudeCode, uninstallClaudeCode } from './claude-code';
import { installCodex, previewCodex, uninstallCodex } from './codex';
import type { Change } from './files';
import { resolveLoreCommand } from './lore-command';

/** `lore hooks install|uninstall claude-code|codex`: the options, the work, and what to tell the user. */
export interface HooksCommand {
  verb: 'install' | 'uninstall';
  host: 'claude-code' | 'codex';
  /** --project DIR; null: the working directory (Claude Code), the user layer (Codex). */
  project: string | null;
  cwd: string;
  shared: boolean;
  commandHooks: boolean;
  mcp: boolean;
  print: boolean;
  env: Record<string, string | undefined>;
  nodePath: string;
  loreBin: string;
}

function report(changes: Change[], notes: string[]): string {
  const lines = changes.map((c) => `${c.action.padEnd(9)} ${c.path}${c.backup ? `  (the original is kept in ${c.backup})` : ''}`);
  return `${[...lines, ...notes].join('\n')}\n`;
}

export function runHooksCommand(o: HooksCommand): string {
  const dataDir = agentDataDir(o.env);
  const lore = resolveLoreCommand({ nodePath: o.nodePath, loreBin: o.loreBin, pathEnv: o.env.PATH });
  const how =
    lore.kind === 'path'
      ? 'Commands run `lore` from PATH.'
      : `Commands name this install (${lore.argv.join(' ')}): Lore is not on PATH; installing it (npm pack, then npm install -g lore-*.tgz) makes them plain \`lore …\`.`;
  if (o.host === 'claude-code') {
    const project = o.project ?? o.cwd;
    if (o.verb === 'uninstall') {
      const r = uninstallClaudeCode({ project, dataDir });
      return report(r.changes, r.notes);
    }
    const opts = { project, lore, url: loadAgentConfig(o.env).url, mode: o.commandHooks ? ('command' as const) : ('http' as const), shared: o.shared, mcp: o.mcp, dataDir };
    if (o.print) return previewClaudeCode(opts);
    const r = installClaudeCode(opts);
    return report(r.changes, [
      ...r.notes,
      opts.mode === 'http'
        ? `Claude Code posts its events to ${opts.url}/v1/hooks/claude-code (SessionStart, SessionEnd and PreCompact run \`lore hook --forward\`, which posts there too). ${how}`
        : `Every event runs \`lore hook\`. ${how}`,
      'Start Claude Code in the project (or run /hooks in it) to pick them up. Lore must be running (lore start); LORE_URL, LORE_API_KEY, LORE_MCP_TENANT and LORE_MCP_SCOPE apply as docs/agents.md says.',
    ]);
  }
  const opts = { project: o.project, lore, mcp: o.mcp, dataDir, env: o.env };
  if (o.verb === 'uninstall') {
    const r = uninstallCodex(opts);
    return report(r.changes, r.notes);
  }
  if (o.print) return previewCodex(opts);
  const r = installCodex(opts);
  return report(r.changes, [...r.notes, how, 'Lore must be running (lore start) for the hooks to record anything; they never hold Codex up when it is not.']);
}
