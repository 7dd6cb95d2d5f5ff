import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * The benchmark tools' one argument parser: node:util parseArgs, strict (an unknown or misspelt
 * flag is an error, not a silently ignored default), with `--help` printing the tool's usage.
 */
type Options = NonNullable<ParseArgsConfig['options']>;

export function cli<const O extends Options>(usage: string, options: O, opts: { positionals?: boolean } = {}) {
  const own = process.argv.slice(2);
  const end = own.indexOf('--');
  if ((end >= 0 ? own.slice(0, end) : own).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  const config = { options, allowPositionals: opts.positionals ?? false, strict: true } as const;
  try {
    return parseArgs(config);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage.trim()}\n`);
    process.exit(2);
  }
}

/** A number flag: its value, or the default when absent; an error when it is not a number. */
export function numOr(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${value}`);
  return n;
}

/** The repository root (bench/ is one level below it). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The shared folder beside the repository (the load generator, the LoCoMo data): LORE_SHARED_DIR,
 * else ../shared next to the repository.
 */
export function sharedDir(): string {
  const dir = resolve(process.env.LORE_SHARED_DIR ?? resolve(repoRoot, '..', 'shared'));
  if (!existsSync(dir)) throw new Error(`no shared folder at ${dir}: set LORE_SHARED_DIR to it`);
  return dir;
}
