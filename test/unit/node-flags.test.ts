import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { inheritedMemoryFlags, NODE_MEMORY_ENV, NODE_MEMORY_FLAGS } from '../../src/local/node-flags';

describe('node memory flags', () => {
  it('npm start passes every memory flag and malloc setting to the API process', () => {
    const start = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const words = start.split(/\s+/);
    assert.deepEqual(words.filter((a) => a.startsWith('--')), [...NODE_MEMORY_FLAGS]);
    const env = words.slice(0, words.indexOf('node'));
    assert.deepEqual(env, Object.entries(NODE_MEMORY_ENV).map(([k, v]) => `${k}=${v}`), 'the malloc settings come before node, as environment');
  });

  it('the container image and compose services run with the same settings', () => {
    const read = (f: string) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
    const dockerfile = read('Dockerfile');
    for (const [k, v] of Object.entries(NODE_MEMORY_ENV)) assert.match(dockerfile, new RegExp(`ENV .*\\b${k}=${v}\\b`), k);
    const flags = NODE_MEMORY_FLAGS.map((f) => `"${f}"`).join(', ');
    assert.ok(dockerfile.includes(`CMD ["node", ${flags}, "bin/lore.mjs"`), 'Dockerfile CMD');
    const compose = read('docker-compose.yml');
    for (const role of ['api', 'worker']) assert.ok(compose.includes(`["node", ${flags}, "bin/lore.mjs", "start", "--role", "${role}"]`), role);
  });

  it('the worker child inherits only the memory flags (never --inspect and the like)', () => {
    assert.deepEqual(inheritedMemoryFlags(['--inspect=127.0.0.1:9229', ...NODE_MEMORY_FLAGS, '--enable-source-maps']), [...NODE_MEMORY_FLAGS]);
    assert.deepEqual(inheritedMemoryFlags(['--max-semi-space-size=8']), ['--max-semi-space-size=8'], 'an operator’s own value is kept');
    assert.deepEqual(inheritedMemoryFlags([]), []);
  });
});
