import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { inheritedMemoryFlags, NODE_MEMORY_FLAGS } from '../../src/local/node-flags';

describe('node memory flags', () => {
  it('npm start passes every memory flag to the API process', () => {
    const start = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
    assert.deepEqual(start.split(/\s+/).filter((a) => a.startsWith('--')), [...NODE_MEMORY_FLAGS]);
  });

  it('the worker child inherits only the memory flags (never --inspect and the like)', () => {
    assert.deepEqual(inheritedMemoryFlags(['--inspect=127.0.0.1:9229', ...NODE_MEMORY_FLAGS, '--enable-source-maps']), [...NODE_MEMORY_FLAGS]);
    assert.deepEqual(inheritedMemoryFlags(['--max-semi-space-size=8']), ['--max-semi-space-size=8'], 'an operator’s own value is kept');
    assert.deepEqual(inheritedMemoryFlags([]), []);
  });
});
