import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';

/**
 * The project a working directory belongs to: the nearest directory at or above it holding `.git`
 * (a folder, or the file a git worktree has), else the directory itself. Agents started in one
 * project — Claude Code's hooks and its `lore mcp` server alike — then share one scope without any
 * configuration, and a subdirectory of the project is the same project.
 */
export function projectRoot(cwd: string): string {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/**
 * The scope name of a project: its directory's name (`/home/me/src/shop-api` → `shop-api`).
 * Readable on purpose (it is what a person passes to the HTTP routes to look at what was
 * recorded); two projects with the same name share a scope unless LORE_MCP_SCOPE says otherwise
 * (docs/agents.md). A root without a name (`/`) is `default`.
 */
export function projectScope(cwd: string): string {
  const name = basename(projectRoot(cwd))
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .slice(0, 256);
  return name === '' ? 'default' : name;
}

/** A path as the project sees it: relative to the project root when inside it, else as given. */
export function projectPath(root: string, path: string): string {
  const abs = isAbsolute(path) ? path : resolve(root, path);
  const rel = relative(root, abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
