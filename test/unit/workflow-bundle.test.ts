import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLog } from '../../src/log';
import { workflowBundle, workflowBundleKey } from '../../src/workflow-bundle';

// A miniature source tree (one workflow) next to the real packages: bundling it takes a second or
// two, not the three of Lore's own workflows.
const repo = new URL('../..', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'lore-bundle-'));
after(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'workflows'));
mkdirSync(join(root, 'src'));
mkdirSync(join(root, 'node_modules', '@temporalio'), { recursive: true });
for (const pkg of readdirSync(join(repo, 'node_modules', '@temporalio')))
  symlinkSync(join(repo, 'node_modules', '@temporalio', pkg), join(root, 'node_modules', '@temporalio', pkg));
writeFileSync(join(root, 'package.json'), '{"name":"bundle-fixture","private":true}');
writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
// biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript source file
writeFileSync(join(root, 'src', 'greeting.ts'), 'export const greeting = (name: string): string => `hello ${name}`;\n');
const workflowsPath = join(root, 'workflows', 'index.ts');
writeFileSync(workflowsPath, "import { greeting } from '../src/greeting';\nexport async function greet(name: string): Promise<string> { return greeting(name); }\n");
const cacheDir = join(root, 'node_modules', '.cache', 'lore', 'workflow-bundles');

describe('workflow bundle cache', () => {
  it('the key changes with any source, the lock file or tsconfig, and only with them', () => {
    const k0 = workflowBundleKey(root);
    assert.match(k0, /^[0-9a-f]{20}$/);
    assert.equal(workflowBundleKey(root), k0, 'same tree, same key');
    const keyAfter = (file: string, text: string): string => {
      const before = existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : null;
      writeFileSync(join(root, file), text);
      const k = workflowBundleKey(root);
      if (before === null) rmSync(join(root, file));
      else writeFileSync(join(root, file), before);
      return k;
    };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript source file
    assert.notEqual(keyAfter('src/greeting.ts', 'export const greeting = (name: string): string => `hi ${name}`;\n'), k0, 'a source imported by the workflows');
    assert.notEqual(keyAfter('src/other.ts', 'export const x = 1;\n'), k0, 'a new source file');
    assert.notEqual(keyAfter('package-lock.json', '{"lockfileVersion":3,"packages":{}}'), k0, 'the installed packages');
    assert.notEqual(keyAfter('tsconfig.json', '{}'), k0, 'tsconfig');
    assert.equal(keyAfter('README.md', 'not a source'), k0, 'other files do not count');
    assert.equal(workflowBundleKey(root), k0, 'restored tree, same key');
  });

  it('the first start bundles and caches; the next one loads the cached file; a changed source bundles anew', async () => {
    const cached = join(cacheDir, `${workflowBundleKey(root)}.js`);
    assert.ok(!existsSync(cached));
    const first = await workflowBundle({ workflowsPath, root, log: silentLog });
    assert.deepEqual(first, { codePath: cached }, 'built, then written to the cache under its key');
    const code = readFileSync(cached, 'utf8');
    assert.ok(code.includes('hello'));

    // A second start takes the file as it is: a marker written into it is still there.
    writeFileSync(cached, `${code}\n// not rebuilt\n`);
    const second = await workflowBundle({ workflowsPath, root, log: silentLog });
    assert.deepEqual(second, { codePath: cached });
    assert.ok(readFileSync(cached, 'utf8').endsWith('// not rebuilt\n'), 'the cached file, not a new bundle');

    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript source file
    writeFileSync(join(root, 'src', 'greeting.ts'), 'export const greeting = (name: string): string => `good day ${name}`;\n');
    const third = await workflowBundle({ workflowsPath, root, log: silentLog });
    const changed = join(cacheDir, `${workflowBundleKey(root)}.js`);
    assert.notEqual(changed, cached);
    assert.deepEqual(third, { codePath: changed });
    const text = readFileSync(changed, 'utf8');
    assert.ok(text.includes('good day') && !text.includes('`hello'), 'the changed source, bundled');
    assert.deepEqual(readdirSync(cacheDir).sort(), [changed, cached].map((f) => f.split('/').pop()).sort(), 'both bundles kept, no temporary file left');
  });

  it('with a cache that cannot be written, the bundle is still built', async () => {
    rmSync(join(root, 'node_modules', '.cache'), { recursive: true, force: true });
    writeFileSync(join(root, 'node_modules', '.cache'), 'a file where the cache directory would go');
    try {
      const b = await workflowBundle({ workflowsPath, root, log: silentLog });
      assert.ok('code' in b && b.code.includes('good day'));
    } finally {
      rmSync(join(root, 'node_modules', '.cache'), { force: true });
    }
  });
});

describe('lore prepare', () => {
  it("leaves this tree's bundle where a starting worker looks for it", () => {
    const r = spawnSync(process.execPath, [join(repo, 'bin/lore.mjs'), 'prepare'], { cwd: repo, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    const expected = join(realpathSync(join(repo, 'node_modules')), '.cache', 'lore', 'workflow-bundles', `${workflowBundleKey(repo.replace(/\/$/, ''))}.js`);
    assert.equal(r.stdout.trim(), `workflow bundle: ${expected}`);
    assert.ok(readFileSync(expected, 'utf8').includes('automationRunWorkflow'), "Lore's workflows are in it");
  });
});
