import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { inheritedMemoryFlags, NODE_MEMORY_ENV, NODE_MEMORY_FLAGS, workerChildCommand } from '../../src/local/node-flags';

describe('node memory flags', () => {
  it('npm start passes every memory flag and malloc setting to the API process', () => {
    const start = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const words = start.split(/\s+/);
    assert.deepEqual(
      words.filter((a) => a.startsWith('--')),
      [...NODE_MEMORY_FLAGS],
    );
    const env = words.slice(0, words.indexOf('node'));
    assert.deepEqual(
      env,
      Object.entries(NODE_MEMORY_ENV).map(([k, v]) => `${k}=${v}`),
      'the malloc settings come before node, as environment',
    );
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

  it('the worker child is started with the memory flags and malloc settings', () => {
    const cmd = workerChildCommand({
      loreBin: '/opt/lore/bin/lore.mjs',
      env: { PATH: '/usr/bin', LORE_LOG_LEVEL: 'debug' },
      set: { LORE_ROLE: 'worker', MONGODB_URI: 'mongodb://127.0.0.1:1/' },
      execPath: '/usr/bin/node',
      execArgv: ['--inspect=127.0.0.1:9229', ...NODE_MEMORY_FLAGS, '--enable-source-maps'],
    });
    assert.equal(cmd.command, '/usr/bin/node');
    assert.deepEqual(cmd.args, [...NODE_MEMORY_FLAGS, '/opt/lore/bin/lore.mjs', 'start', '--role', 'worker']);
    for (const [k, v] of Object.entries(NODE_MEMORY_ENV)) assert.equal(cmd.env[k], v, k);
    assert.equal(cmd.env.PATH, '/usr/bin', 'the parent environment is passed on');
    assert.equal(cmd.env.LORE_LOG_LEVEL, 'debug');
    assert.equal(cmd.env.LORE_ROLE, 'worker');
    assert.equal(cmd.env.MONGODB_URI, 'mongodb://127.0.0.1:1/');
    // An operator's own malloc setting is kept; the role is always the worker's.
    const own = workerChildCommand({ loreBin: 'x', env: { MALLOC_ARENA_MAX: '4', LORE_ROLE: 'all' }, set: { LORE_ROLE: 'worker' }, execArgv: [] });
    assert.equal(own.env.MALLOC_ARENA_MAX, '4');
    assert.equal(own.env.LORE_ROLE, 'worker');
    assert.deepEqual(own.args, ['x', 'start', '--role', 'worker'], 'a parent started without the flags passes none');
  });

  it('a child started that way really runs with them (node accepts the flags; the environment arrives)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-node-flags-'));
    try {
      // Stands in for bin/lore.mjs: reports what the child process got.
      const probe = join(dir, 'probe.mjs');
      writeFileSync(
        probe,
        `console.log(JSON.stringify({ execArgv: process.execArgv, argv: process.argv.slice(2), env: Object.fromEntries(${JSON.stringify(Object.keys(NODE_MEMORY_ENV))}.map((k) => [k, process.env[k]])) }));\n`,
      );
      const cmd = workerChildCommand({ loreBin: probe, env: { PATH: process.env.PATH }, set: { LORE_ROLE: 'worker' }, execArgv: [...NODE_MEMORY_FLAGS] });
      const r = spawnSync(cmd.command, cmd.args, { env: cmd.env, encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, r.stderr);
      const seen = JSON.parse(r.stdout.trim()) as { execArgv: string[]; argv: string[]; env: Record<string, string> };
      assert.deepEqual(seen.execArgv, [...NODE_MEMORY_FLAGS]);
      assert.deepEqual(seen.argv, ['start', '--role', 'worker']);
      assert.deepEqual(seen.env, { ...NODE_MEMORY_ENV });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the API process spawns its worker child with workerChildCommand', () => {
    const main = readFileSync(new URL('../../src/main.ts', import.meta.url), 'utf8');
    assert.equal(main.match(/workerChildCommand\(\{/g)?.length, 1, 'built once, in the role `all` start');
    const spawn = /function spawnWorkerChild\(worker: ReturnType<typeof workerChildCommand>[\s\S]*?spawnChild\(\{([\s\S]*?)\}\);/.exec(main);
    assert.ok(spawn, 'spawnWorkerChild takes what workerChildCommand built');
    for (const field of ['command: worker.command', 'args: worker.args', 'env: worker.env']) assert.ok(spawn[1]!.includes(field), field);
  });
});
