/** Types of bin/transpile.mjs (a plain ES module, so that bin/lore.mjs needs no transpiler). */
export function transpiled(opts: {
  /** Repository root: sources are listed under it, the cache lives in its node_modules. */
  root: string;
  /** Directories under root whose .ts files are transpiled. */
  dirs: string[];
  /** Directory name under node_modules/.cache. */
  cacheName: string;
}): Promise<string>;

/** Every .ts source under `dirs` of `root` (relative, '/'-separated, sorted; no .d.ts, no node_modules). */
export function listSources(root: string, dirs: string[]): string[];
