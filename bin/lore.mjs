#!/usr/bin/env node
// Lore's command line. There is no build step to forget: at start the TypeScript sources (src,
// activities, workflows) are transpiled by esbuild, one plain ES module per source file with its
// source map, into node_modules/.cache/lore/<hash of the sources>/, and loaded from there. A source
// tree already transpiled (same sources, same transpiler) starts without esbuild (bin/transpile.mjs).
//
// Why not tsx at run time: tsx's loader runs on Node's module-hooks thread, a second V8 isolate that
// stays for the life of the process. With Lore's 100k-node indexes that thread and its caches were
// ~26 MB of the API process's ~280 MB RSS, for transpiling a few hundred files once. tsx remains the
// fallback when the cache directory cannot be written, and the way tests and scripts run.
import Module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transpiled, transpiledEntry } from './transpile.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// `lore hook` runs once per agent event and must answer within a second: its own entry loads
// only the hook handler (src/cli/hook.ts), not the command line's other commands.
const ENTRY = process.argv[2] === 'hook' ? 'src/cli/hook.ts' : 'src/cli/main.ts';

let entry = null;
try {
  const tree = { root: ROOT, dirs: ['src', 'activities', 'workflows'], cacheName: 'lore' };
  entry = ENTRY === 'src/cli/hook.ts' ? await transpiledEntry({ ...tree, entry: ENTRY }) : path.join(await transpiled(tree), ENTRY.replace(/\.ts$/, '.mjs'));
} catch (err) {
  process.stderr.write(`lore: running the sources through tsx (could not transpile them ahead: ${err?.message ?? err})\n`);
}
if (entry) {
  // Stack traces name Lore's .ts sources, as under tsx. Dependencies' own source maps (CommonJS
  // packages shipping .js.map files: grpc-js, Temporal, the MongoDB driver …) are not read: Node
  // parses and keeps every map it finds while source maps are on (~6 MB for Lore's dependencies),
  // and their frames read well enough as the JavaScript that actually runs.
  process.setSourceMapsEnabled(true);
  const compile = Module.prototype._compile;
  const inDependency = `${path.sep}node_modules${path.sep}`;
  Module.prototype._compile = function compileWithoutMap(content, filename, ...rest) {
    if (typeof filename !== 'string' || !filename.includes(inDependency)) return compile.call(this, content, filename, ...rest);
    process.setSourceMapsEnabled(false);
    try {
      return compile.call(this, content, filename, ...rest);
    } finally {
      process.setSourceMapsEnabled(true);
    }
  };
  await import(pathToFileURL(entry).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(`../${ENTRY}`);
}
