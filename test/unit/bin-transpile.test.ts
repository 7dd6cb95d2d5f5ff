import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join(realpathSync(join(ROOT, 'node_modules')), '.cache', 'lore');

describe('bin/lore.mjs runs the transpiled sources', () => {
  it('starts from node_modules/.cache/lore without tsx, and names the sources in import.meta.url and stack traces', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/lore.mjs'), 'version'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout.trim(), /^\d+\.\d+\.\d+/);
    assert.doesNotMatch(r.stderr, /through tsx/, 'no fallback to tsx');
    // The build used is the most recently used complete one.
    const builds = readdirSync(CACHE)
      .filter((d) => existsSync(join(CACHE, d, '.complete')))
      .sort((a, b) => statSync(join(CACHE, b)).mtimeMs - statSync(join(CACHE, a)).mtimeMs);
    assert.ok(builds.length > 0);
    const dir = join(CACHE, builds[0]!);
    const worker = readFileSync(join(dir, 'src/worker.mjs'), 'utf8');
    assert.ok(worker.includes(JSON.stringify(pathToFileURL(join(ROOT, 'src/worker.ts')).href)), 'import.meta.url is the source file');
    assert.match(worker, /from "\.\/store\/database\.mjs"/, 'relative imports point at sibling outputs');
    assert.match(worker, /from "@temporalio\/worker"/, 'packages stay packages');
    assert.ok(existsSync(join(dir, 'src/worker.mjs.map')));
    // Classes keep their names (a self-referencing class would otherwise be renamed when bundled).
    const names = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(pathToFileURL(join(dir, 'src/retrieval/lexical-index.mjs')).href)}); console.log(m.LexicalIndex.name);`,
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(names.stdout.trim(), 'LexicalIndex', names.stderr);
    // A stack trace through a transpiled module names the .ts source.
    const probe = spawnSync(
      process.execPath,
      [
        '--enable-source-maps',
        '--input-type=module',
        '-e',
        `import { loadConfig } from ${JSON.stringify(pathToFileURL(join(dir, 'src/config.mjs')).href)}; try { loadConfig({ LORE_PORT: 'not a port' }); } catch (err) { console.log(err.stack); }`,
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(probe.status, 0, probe.stderr);
    assert.match(probe.stdout, /src\/config\.ts:\d+/);
  });
});

describe('transpiledEntry: a start that skips the whole-tree hash', () => {
  it('reuses the last build while the entry’s own sources are unchanged, and rebuilds when one of them changes', async () => {
    const { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { transpiledEntry } = await import('../../bin/transpile.mjs');
    const root = mkdtempSync(join(tmpdir(), 'lore-entry-'));
    try {
      mkdirSync(join(root, 'node_modules'));
      mkdirSync(join(root, 'src'));
      writeFileSync(join(root, 'src/a.ts'), "import { b } from './b';\nexport const a = (): string => b;\n");
      writeFileSync(join(root, 'src/b.ts'), "export const b: string = 'one';\n");
      writeFileSync(join(root, 'src/c.ts'), 'export const c = 1;\n');
      const opts = { root, dirs: ['src'], cacheName: 't', entry: 'src/a.ts' };
      const first = await transpiledEntry(opts);
      const record = JSON.parse(readFileSync(join(realpathSync(join(root, 'node_modules')), '.cache/t/entry-src_a_ts.json'), 'utf8'));
      assert.deepEqual(Object.keys(record.files).sort(), ['src/a.ts', 'src/b.ts'], 'the entry’s module graph, not the tree');
      // Another source changes: the entry's build is still right, and is used as it is.
      writeFileSync(join(root, 'src/c.ts'), 'export const c = 2;\n');
      assert.equal(await transpiledEntry(opts), first);
      // One of its own sources changes: a new build, with the change.
      writeFileSync(join(root, 'src/b.ts'), "export const b: string = 'two';\n");
      utimesSync(join(root, 'src/b.ts'), new Date(), new Date(Date.now() + 5000));
      const second = await transpiledEntry(opts);
      assert.notEqual(second, first);
      assert.match(readFileSync(join(second, '..', 'b.mjs'), 'utf8'), /two/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
