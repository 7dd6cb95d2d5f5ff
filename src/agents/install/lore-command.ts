import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * How an agent should start Lore's commands (`lore hook`, `lore mcp`). When the `lore` found on
 * PATH is this very install (`npm install -g`, `npm link`), it is plain `lore …`: the same on every
 * machine that has Lore installed, so it can go into files a team commits. Otherwise (Lore run
 * from a clone) it is this Node and this install's bin/lore.mjs by absolute path, which only fits
 * files that stay on this machine.
 */
export interface LoreCommand {
  /** `path`: `lore` resolves to this install; `absolute`: node + bin/lore.mjs. */
  kind: 'path' | 'absolute';
  /** The argv prefix: ['lore'] or [node, bin]. */
  argv: readonly string[];
}

const shellQuote = (s: string) => (/^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};

/** The first `lore` on PATH, when it is `loreBin` itself (followed through npm's symlinks). */
export function loreOnPath(loreBin: string, pathEnv: string | undefined): string | null {
  const target = real(loreBin);
  for (const dir of (pathEnv ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'lore');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // The first one is what a shell runs: it must be this install.
    return target !== null && real(candidate) === target ? candidate : null;
  }
  return null;
}

export function resolveLoreCommand(opts: { nodePath: string; loreBin: string; pathEnv: string | undefined }): LoreCommand {
  return loreOnPath(opts.loreBin, opts.pathEnv) ? { kind: 'path', argv: ['lore'] } : { kind: 'absolute', argv: [opts.nodePath, opts.loreBin] };
}

/** A shell command line running Lore with `args`. */
export const commandLine = (lore: LoreCommand, ...args: string[]) => [...lore.argv, ...args].map(shellQuote).join(' ');

/** Is this hook command one of Lore's (any install: PATH, a clone's bin, npx)? */
export const isLoreHookCommand = (command: unknown) => typeof command === 'string' && /(^|[\s/'"])lore(\.mjs)?'?"?\s+hook(\s|$)/.test(command);
