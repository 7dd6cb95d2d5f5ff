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
      ['--input-type=module', '-e', `const m = await import(${JSON.stringify(pathToFileURL(join(dir, 'src/retrieval/lexical-index.mjs')).href)}); console.log(m.LexicalIndex.name);`],
      { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(names.stdout.trim(), 'LexicalIndex', names.stderr);
    // A stack trace through a transpiled module names the .ts source.
    const probe = spawnSync(
      process.execPath,
      ['--enable-source-maps', '--input-type=module', '-e', `import { loadConfig } from ${JSON.stringify(pathToFileURL(join(dir, 'src/config.mjs')).href)}; try { loadConfig({ LORE_PORT: 'not a port' }); } catch (err) { console.log(err.stack); }`],
      { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(probe.status, 0, probe.stderr);
    assert.match(probe.stdout, /src\/config\.ts:\d+/);
  });
});
