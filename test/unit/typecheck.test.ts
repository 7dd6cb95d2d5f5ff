import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The tests run transpiled by esbuild, which strips types without checking them, so a type error in src/,
 * test/, bench/ or scripts/ would pass every other test. This one runs the compiler over the
 * whole project (tsconfig.json, no output) and fails with its diagnostics.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

describe('the project type-checks', () => {
  it('tsc --noEmit over tsconfig.json reports no errors', { timeout: 600_000 }, async () => {
    const child = spawn(process.execPath, [TSC, '-p', 'tsconfig.json', '--noEmit', '--pretty', 'false'], { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const errors = output.split('\n').filter((l) => /error TS\d+/.test(l));
    assert.equal(code, 0, `tsc exited with ${code}; ${errors.length} error(s):\n${(errors.length > 0 ? errors : [output]).slice(0, 40).join('\n')}`);
  });
});
