// Transpiles a TypeScript source tree once, ahead of running it: esbuild writes one plain ES module
// per source file, with its source map, into <root>/node_modules/.cache/<cacheName>/<hash>/, the hash
// covering everything the output depends on. A tree already transpiled is used as it is.
// bin/lore.mjs runs Lore this way (src, activities, workflows); `npm test` runs the test files this
// way too (the same plus scripts/ and test/), so neither needs a transpiler loaded at run time.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const KEEP_OTHER_BUILDS = 4;
const BUILD_NAME = /^[0-9a-f]{20}$/;

/** Every .ts source under `dirs` of `root` (relative, '/'-separated, sorted; no .d.ts, no node_modules). */
export function listSources(root, dirs) {
  const out = [];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(r);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(r);
    }
  };
  for (const d of dirs) if (fs.existsSync(path.join(root, d))) walk(d);
  return out.sort();
}

/** esbuild as tsx resolves it (tsx depends on it; Lore does not name it itself). */
function esbuildPath() {
  const req = createRequire(createRequire(import.meta.url).resolve('tsx/esm/api'));
  return req.resolve('esbuild');
}

/**
 * The output directory of `dirs` under `root`, building it first if this source tree has not been
 * transpiled yet. The directory is named by a hash of everything the output depends on (this file,
 * the transpiler's version, Node's version, tsconfig.json, the root path and every source), written
 * under a temporary name and renamed into place, so concurrent starts (the API and its worker, or
 * two test runs) never see half of it. The last few other builds are kept.
 */
export async function transpiled({ root, dirs, cacheName }) {
  const sources = listSources(root, dirs);
  const esbuildMain = esbuildPath();
  const esbuildVersion = JSON.parse(fs.readFileSync(path.join(path.dirname(esbuildMain), '..', 'package.json'), 'utf8')).version;
  const h = createHash('sha256');
  h.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  h.update(`\0${esbuildVersion}\0${process.version}\0${root}\0`);
  const tsconfig = path.join(root, 'tsconfig.json');
  if (fs.existsSync(tsconfig)) h.update(fs.readFileSync(tsconfig));
  for (const s of sources) h.update(`\0${s}\0`).update(fs.readFileSync(path.join(root, s)));
  const key = h.digest('hex').slice(0, 20);

  // The real path: Node loads modules by it, and the source maps point back to root relative to it.
  const cache = path.join(fs.realpathSync(path.join(root, 'node_modules')), '.cache', cacheName);
  const dir = path.join(cache, key);
  const done = path.join(dir, '.complete');
  if (!fs.existsSync(done)) {
    fs.mkdirSync(cache, { recursive: true });
    const tmp = fs.mkdtempSync(path.join(cache, `.tmp-${key}-`));
    try {
      await build(await import(pathToFileURL(esbuildMain).href), root, sources, tmp);
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
  return dir;
}

/**
 * The transpiled module of one entry, for commands that start often and load little (`lore hook`,
 * once per agent event): when every source the entry imports, directly or not, is unchanged since
 * the last start (size and mtime), that start's build is used without reading and hashing the whole
 * tree, which is most of a hook's start-up after Node's own. Otherwise transpiled() as usual, and
 * the entry's module graph (from the relative imports of the transpiled modules) is recorded.
 */
export async function transpiledEntry({ root, dirs, cacheName, entry }) {
  const cache = path.join(fs.realpathSync(path.join(root, 'node_modules')), '.cache', cacheName);
  const index = path.join(cache, `entry-${entry.replace(/[^A-Za-z0-9]+/g, '_')}.json`);
  const outOf = (dir) => path.join(dir, entry.replace(/\.ts$/, '.mjs'));
  const stamp = (rel) => {
    const st = fs.statSync(path.join(root, rel));
    return `${st.size}:${st.mtimeMs}`;
  };
  try {
    const known = JSON.parse(fs.readFileSync(index, 'utf8'));
    const fresh = known.node === process.version && fs.existsSync(path.join(known.dir, '.complete')) && Object.entries(known.files).every(([rel, st]) => stamp(rel) === st);
    if (fresh) return outOf(known.dir);
  } catch {
    // no record yet, or one of its sources is gone: the slow path
  }
  const dir = await transpiled({ root, dirs, cacheName });
  const files = {};
  const walk = (mjs) => {
    const rel = path
      .relative(dir, mjs)
      .split(path.sep)
      .join('/')
      .replace(/\.mjs$/, '.ts');
    if (rel in files) return;
    files[rel] = stamp(rel);
    for (const m of fs.readFileSync(mjs, 'utf8').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"(\.\.?\/[^"]+\.mjs)"/g)) walk(path.resolve(path.dirname(mjs), m[1]));
  };
  walk(outOf(dir));
  for (const rel of ['bin/transpile.mjs', 'tsconfig.json']) if (fs.existsSync(path.join(root, rel))) files[rel] = stamp(rel);
  try {
    const tmp = `${index}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify({ node: process.version, dir, files }));
    fs.renameSync(tmp, index);
  } catch {
    // a cache this process cannot write: the next start takes the slow path again
  }
  return outOf(dir);
}

/** One ES module per source: relative imports point at the sibling outputs, packages stay packages. */
async function build(esbuild, root, sources, outdir) {
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
        if (!target) {
          // A plain module next to the sources (bin/transpile.mjs): imported from where it is.
          const file = path.resolve(path.dirname(args.importer), args.path);
          if (/\.m?js$/.test(file) && fs.existsSync(file)) return { path: pathToFileURL(file).href, external: true };
          return { errors: [{ text: `cannot resolve ${args.path} from ${args.importer}` }] };
        }
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
    absWorkingDir: root,
    entryPoints: sources,
    outdir,
    outbase: root,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    tsconfig: fs.existsSync(path.join(root, 'tsconfig.json')) ? path.join(root, 'tsconfig.json') : undefined,
    keepNames: true, // classes and functions keep their names (bundling would rename self-referencing classes)
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
    plugins: [plugin],
  });
  await esbuild.stop?.();
}

/** Removes all but the most recently used few other builds (only builds: other entries stay). */
function prune(cache, current) {
  try {
    const others = fs
      .readdirSync(cache, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== current && BUILD_NAME.test(e.name))
      .map((e) => ({ dir: path.join(cache, e.name), at: fs.statSync(path.join(cache, e.name)).mtimeMs }))
      .sort((a, b) => b.at - a.at);
    for (const o of others.slice(KEEP_OTHER_BUILDS)) fs.rmSync(o.dir, { recursive: true, force: true });
  } catch {
    // another process pruning at the same time; nothing to do
  }
}
