import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * How the installers touch the files an agent reads (settings, MCP lists, hooks.json,
 * config.toml): read as they are, changed only where Lore's entries go, written back in the
 * file's own indentation (an unchanged file is not written at all), and backed up once — the
 * first time Lore changes a file that existed before, its original is copied to
 * <data dir>/backups/ and that copy is never overwritten.
 */

export type Json = Record<string, any>;

export class InstallError extends Error {
  override name = 'InstallError';
}

export interface JsonFile {
  path: string;
  /** Its content ({} when it does not exist or is empty). */
  value: Json;
  existed: boolean;
  /** The indentation it is written in (2 when new; 0: one line). */
  indent: number | string;
  trailingNewline: boolean;
}

export function readJsonFile(path: string): JsonFile {
  if (!existsSync(path)) return { path, value: {}, existed: false, indent: 2, trailingNewline: true };
  const text = readFileSync(path, 'utf8');
  if (text.trim() === '') return { path, value: {}, existed: true, indent: 2, trailingNewline: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InstallError(`${path} is not valid JSON (${(err as Error).message}); fix or move it, then run this again`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InstallError(`${path} is not a JSON object; fix or move it, then run this again`);
  const indented = /^[{[]\s*\n([ \t]+)\S/.exec(text);
  return {
    path,
    value: value as Json,
    existed: true,
    indent: indented ? (/^ +$/.test(indented[1]!) ? indented[1]!.length : indented[1]!) : 0,
    trailingNewline: text.endsWith('\n'),
  };
}

export const renderJson = (f: Pick<JsonFile, 'indent' | 'trailingNewline'>, value: Json) => `${JSON.stringify(value, null, f.indent || undefined)}${f.trailingNewline ? '\n' : ''}`;

export const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Where the first original of a file is kept: <data dir>/backups/<hash of its directory>/<name>. */
export function backupPath(dataDir: string, path: string): string {
  const dir = createHash('sha256').update(dirname(path)).digest('hex').slice(0, 12);
  return join(dataDir, 'backups', `${basename(dirname(path)) || 'root'}-${dir}`, basename(path));
}

/** Copies a file that existed before Lore changed it, once; returns the backup's path when one was made now. */
export function backupOnce(dataDir: string, path: string): string | null {
  if (!existsSync(path)) return null;
  const to = backupPath(dataDir, path);
  if (existsSync(to)) return null;
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(path, to);
  return to;
}

/** Has Lore backed this file up (so it existed before Lore first changed it)? */
export const hasBackup = (dataDir: string, path: string) => existsSync(backupPath(dataDir, path));

export function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.lore-tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** Removes a file Lore created and no longer needs, and its directory when that is left empty. */
export function removeCreated(path: string): void {
  rmSync(path, { force: true });
  try {
    if (readdirSync(dirname(path)).length === 0) rmdirSync(dirname(path));
  } catch {
    // not empty, or gone
  }
}

export interface Change {
  path: string;
  /** What happened to the file. */
  action: 'created' | 'updated' | 'unchanged' | 'removed';
  backup: string | null;
}

/**
 * Writes `next` over a JSON file when it differs. An install backs the original up first; an
 * uninstall that leaves nothing in a file Lore created removes the file.
 */
export function applyJson(file: JsonFile, next: Json, opts: { dataDir: string; uninstall?: boolean }): Change {
  if (sameJson(file.value, next) && (file.existed || Object.keys(next).length === 0)) return { path: file.path, action: 'unchanged', backup: null };
  if (opts.uninstall && Object.keys(next).length === 0 && !hasBackup(opts.dataDir, file.path)) {
    removeCreated(file.path);
    return { path: file.path, action: 'removed', backup: null };
  }
  const backup = opts.uninstall ? null : backupOnce(opts.dataDir, file.path);
  writeText(file.path, renderJson(file, next));
  return { path: file.path, action: file.existed ? 'updated' : 'created', backup };
}

/**
 * A hooks file (Claude Code's settings, Codex's hooks.json: `{"hooks": {"<Event>": [{"matcher"?,
 * "hooks": [handler …]}]}}`) without the handlers `isOurs` recognises. Groups and events left
 * empty by the removal go; ones that were empty before stay.
 */
export function withoutHooks(file: Json, isOurs: (handler: Json) => boolean): Json {
  if (!file.hooks || typeof file.hooks !== 'object' || Array.isArray(file.hooks)) return file;
  const hooks: Json = {};
  for (const [event, groups] of Object.entries(file.hooks as Json)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept: unknown[] = [];
    for (const g of groups as Json[]) {
      if (!Array.isArray(g?.hooks) || g.hooks.length === 0) kept.push(g);
      else {
        const left = g.hooks.filter((h: Json) => !(h && typeof h === 'object' && isOurs(h)));
        if (left.length > 0) kept.push(left.length === g.hooks.length ? g : { ...g, hooks: left });
      }
    }
    if (kept.length > 0 || groups.length === 0) hooks[event] = kept;
  }
  // Rebuilt key by key: the file's keys keep their order (an uninstall gives back the original).
  const out: Json = {};
  for (const [k, v] of Object.entries(file)) {
    if (k !== 'hooks') out[k] = v;
    else if (Object.keys(hooks).length > 0) out[k] = hooks;
  }
  return out;
}

/** The file with `block`'s groups appended to their events (after the user's own), once: earlier ones of ours are replaced. */
export function withHooks(file: Json, block: Json, isOurs: (handler: Json) => boolean): Json {
  const base = withoutHooks(file, isOurs);
  const hooks: Json = { ...(base.hooks ?? {}) };
  for (const [event, groups] of Object.entries(block)) hooks[event] = [...(Array.isArray(hooks[event]) ? hooks[event] : []), ...(groups as unknown[])];
  return { ...base, hooks };
}
