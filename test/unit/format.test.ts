import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * One style for the whole tree: Biome's formatter (biome.json; docs/design.md, "Formatting") in
 * check mode, which changes nothing and fails naming the files it would reformat.
 * `npx biome format --write .` applies it.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIOME = join(ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

describe('formatting', () => {
  it('biome format finds nothing to change', { timeout: 600_000 }, async () => {
    const child = spawn(process.execPath, [BIOME, 'format', '--colors=off', '--max-diagnostics=20', '.'], { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.equal(code, 0, `run \`npx biome format --write .\` to apply the format:\n${output.slice(-6000)}`);
  });
});
