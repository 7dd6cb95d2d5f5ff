import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * Biome's linter with the rule set of biome.json (docs/design.md, "Linting"): the tree is clean,
 * and the rules the design names fire on a file that breaks them, so the check can fail.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIOME = join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

async function biomeLint(cwd: string, paths: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIOME, 'lint', '--colors=off', '--max-diagnostics=50', ...paths], { cwd });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, output };
}

describe('linting', () => {
  it('biome lint finds nothing on the tree', { timeout: 600_000 }, async () => {
    const { code, output } = await biomeLint(ROOT, ['.']);
    assert.equal(code, 0, `biome lint (biome.json; docs/design.md, "Linting") reports:\n${output.slice(-6000)}`);
  });

  describe('the rules fire', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-lint-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('on a floating promise, an unused import and variable, and an explicit any', { timeout: 600_000 }, async () => {
      // The project's own rule set, without the VCS integration (the directory is no repository).
      const config = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as Record<string, unknown>;
      delete config.$schema;
      config.vcs = { enabled: false };
      writeFileSync(join(dir, 'biome.json'), JSON.stringify(config));
      mkdirSync(join(dir, 'src'));
      writeFileSync(
        join(dir, 'src', 'bad.ts'),
        [
          "import { readFileSync } from 'node:fs';",
          'async function later(): Promise<number> {',
          '  return 1;',
          '}',
          'export function go(x: any): void {',
          '  const unused = x;',
          '  later();',
          '}',
          '',
        ].join('\n'),
      );
      const { code, output } = await biomeLint(dir, ['src']);
      assert.notEqual(code, 0, output);
      const fired = [...output.matchAll(/src\/bad\.ts:(\d+):\d+ (lint\/\S+)/g)].map((m) => `${m[1]} ${m[2]}`).sort();
      assert.deepEqual(
        fired,
        ['1 lint/correctness/noUnusedImports', '5 lint/suspicious/noExplicitAny', '6 lint/correctness/noUnusedVariables', '7 lint/nursery/noFloatingPromises'],
        output,
      );
    });
  });
});
