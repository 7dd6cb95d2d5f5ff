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

/** The transpiled path of `entry`, skipping the whole-tree hash while the entry's own sources are unchanged. */
export function transpiledEntry(opts: { root: string; dirs: string[]; cacheName: string; entry: string }): Promise<string>;
