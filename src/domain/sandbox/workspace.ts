import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SandboxSettings } from './context';
import { LoreError } from '../../contract/errors';

/**
 * Workspaces (docs/sandbox.md, "Workspaces"): a host directory a sandbox session sees
 * copy-on-write. Only directories under one of LORE_SANDBOX_WORKSPACE_ROOTS may be named (none
 * by default); anything else is invalid_request. The path is resolved (symbolic links followed)
 * before the check, so a link inside a root cannot lead out of it. The API checks it when a
 * session, a playbook run or a shadow validation is asked for; the worker checks it again, with
 * its own configuration, before each copy.
 */

export interface Workspace {
  /** The resolved absolute path of the directory. */
  path: string;
}

const bad = (message: string, details: Record<string, unknown>) => new LoreError('invalid_request', message, { field: 'workspace.path', ...details });

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/** The resolved workspace, or invalid_request saying why it cannot be used. */
export function resolveWorkspace(config: Pick<SandboxSettings, 'sandbox'>, given: { path: string }): Workspace {
  const roots = config.sandbox.workspaceRoots;
  if (roots.length === 0) {
    throw bad('workspaces are off: no directory may be named until LORE_SANDBOX_WORKSPACE_ROOTS lists the directories that hold projects', { allowed_roots: [] });
  }
  const p = given.path;
  if (typeof p !== 'string' || !path.isAbsolute(p)) throw bad(`workspace.path must be an absolute path (got ${JSON.stringify(p)})`, { allowed_roots: roots });
  const real = realOrNull(p);
  if (real === null) throw bad(`workspace ${p} does not exist`, { allowed_roots: roots });
  let isDir = false;
  try {
    isDir = statSync(real).isDirectory();
  } catch {
    /* vanished meanwhile: not a directory */
  }
  if (!isDir) throw bad(`workspace ${p} is not a directory`, { allowed_roots: roots });
  const inside = roots.some((root) => {
    const r = realOrNull(root) ?? root;
    return real === r || real.startsWith(r.endsWith(path.sep) ? r : r + path.sep);
  });
  if (!inside)
    throw bad(`workspace ${p}${real !== p ? ` (${real})` : ''} is not under an allowed root (LORE_SANDBOX_WORKSPACE_ROOTS: ${roots.join(':')})`, { allowed_roots: roots });
  return { path: real };
}

/** resolveWorkspace for optional request fields. */
export const optionalWorkspace = (config: Pick<SandboxSettings, 'sandbox'>, given: { path: string } | null | undefined): Workspace | null =>
  given ? resolveWorkspace(config, given) : null;
