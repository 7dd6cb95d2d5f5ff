#!/usr/bin/env node
// Lore's command line. There is no build step to forget: at start the TypeScript sources (src,
// activities, workflows) are transpiled by esbuild, one plain ES module per source file with its
// source map, into node_modules/.cache/lore/<hash of the sources>/, and loaded from there. A source
// tree already transpiled (same sources, same transpiler) starts without esbuild.
//
// Why not tsx at run time: tsx's loader runs on Node's module-hooks thread, a second V8 isolate that
// stays for the life of the process. With Lore's 100k-node indexes that thread and its caches were
// ~26 MB of the API process's ~280 MB RSS, for transpiling a few hundred files once. tsx remains the
// fallback when the cache directory cannot be written, and the way tests and scripts run.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_DIRS = ['src', 'activities', 'workflows'];
const ENTRY = 'src/cli/main.ts';
const KEEP_OTHER_BUILDS = 4;

/** Every .ts source under SOURCE_DIRS (relative, '/'-separated, sorted). */
function listSources() {
  const out = [];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(r);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(r);
    }
  };
  for (const d of SOURCE_DIRS) if (fs.existsSync(path.join(ROOT, d))) walk(d);
  return out.sort();
}

/** esbuild as tsx resolves it (tsx depends on it; Lore does not name it itself). */
function esbuildPath() {
  const req = createRequire(createRequire(import.meta.url).resolve('tsx/esm/api'));
  return req.resolve('esbuild');
}

/**
 * The transpiled entry module, building it first if this source tree has not been transpiled yet.
 * The output directory is named by a hash of everything the output depends on (this file, the
 * transpiler's version, tsconfig.json, the root path and every source), written under a temporary
 * name and renamed into place, so concurrent starts (the API and its worker) never see half of it.
 */
async function transpiled() {
  const sources = listSources();
  const esbuildMain = esbuildPath();
  const esbuildVersion = JSON.parse(fs.readFileSync(path.join(path.dirname(esbuildMain), '..', 'package.json'), 'utf8')).version;
  const h = createHash('sha256');
  h.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  h.update(`\0${esbuildVersion}\0${process.version}\0${ROOT}\0`);
  const tsconfig = path.join(ROOT, 'tsconfig.json');
  if (fs.existsSync(tsconfig)) h.update(fs.readFileSync(tsconfig));
  for (const s of sources) h.update(`\0${s}\0`).update(fs.readFileSync(path.join(ROOT, s)));
  const key = h.digest('hex').slice(0, 20);

  // The real path: Node loads modules by it, and the source maps point back to ROOT relative to it.
  const cache = path.join(fs.realpathSync(path.join(ROOT, 'node_modules')), '.cache', 'lore');
  const dir = path.join(cache, key);
  const entry = path.join(dir, ENTRY.replace(/\.ts$/, '.mjs'));
  const done = path.join(dir, '.complete');
  if (!fs.existsSync(done)) {
    fs.mkdirSync(cache, { recursive: true });
    const tmp = fs.mkdtempSync(path.join(cache, `.tmp-${key}-`));
    try {
      await build(await import(pathToFileURL(esbuildMain).href), sources, tmp);
      fs.writeFileSync(path.join(tmp, '.complete'), '');
      try {
        fs.renameSync(tmp, dir);
      } catch (err) {
        if (!fs.existsSync(done)) throw err; // another process put the same build there first
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    prune(cache, key);
  } else {
    try {
      const now = new Date();
      fs.utimesSync(dir, now, now); // recently used: kept by prune()
    } catch {
      // a build made earlier, on an install this process cannot write to: use it as it is
    }
  }
  return entry;
}

/** One ES module per source: relative imports point at the sibling outputs, packages stay packages. */
async function build(esbuild, sources, outdir) {
  const resolveSource = (from, spec) => {
    const base = path.resolve(path.dirname(from), spec);
    const candidates = [base, `${base}.ts`, path.join(base, 'index.ts')];
    if (/\.m?js$/.test(base)) candidates.push(base.replace(/\.m?js$/, '.ts'));
    return candidates.find((c) => c.endsWith('.ts') && fs.existsSync(c) && fs.statSync(c).isFile());
  };
  const plugin = {
    name: 'lore-per-file',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (!args.path.startsWith('.')) return { path: args.path, external: true };
        const target = resolveSource(args.importer, args.path);
        if (!target) return { errors: [{ text: `cannot resolve ${args.path} from ${args.importer}` }] };
        let rel = path.relative(path.dirname(args.importer), target).split(path.sep).join('/').replace(/\.ts$/, '.mjs');
        if (!rel.startsWith('.')) rel = `./${rel}`;
        return { path: rel, external: true };
      });
      // import.meta.url names the source file (paths next to it: workflows, the mongo launcher, bin).
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = fs.readFileSync(args.path, 'utf8');
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: text.replace(/\bimport\.meta\.url\b/g, url), loader: 'ts' };
      });
    },
  };
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: sources,
    outdir,
    outbase: ROOT,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    tsconfig: fs.existsSync(path.join(ROOT, 'tsconfig.json')) ? path.join(ROOT, 'tsconfig.json') : undefined,
    keepNames: true, // classes and functions keep their names (bundling would rename self-referencing classes)
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
    plugins: [plugin],
  });
  await esbuild.stop?.();
}

/** Removes all but the most recently used few other builds. */
function prune(cache, current) {
  try {
    const others = fs
      .readdirSync(cache, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== current && !e.name.startsWith('.tmp-'))
      .map((e) => ({ dir: path.join(cache, e.name), at: fs.statSync(path.join(cache, e.name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const o of others.slice(KEEP_OTHER_BUILDS)) fs.rmSync(o.dir, { recursive: true, force: true });
  } catch {
    // another process pruning at the same time; nothing to do
  }
}

let entry = null;
try {
  entry = await transpiled();
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
  await import('../src/cli/main.ts');
}
