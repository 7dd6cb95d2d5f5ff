import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';

/**
 * Lore as an installed tool (README, "Use Lore from any project"): `npm pack` gives a tarball that
 * `npm install -g` installs; `lore` then runs from any directory, and the installers write plain
 * `lore …` commands. The tarball is installed into a temporary prefix (dependencies from npm's
 * cache where it has them; optional ones — the onnx runtime — left out to keep it small).
 */
const REPO = fileURLToPath(new URL('../..', import.meta.url));

describe('npm pack → npm install -g → lore from another directory', () => {
  const root = mkdtempSync(join(tmpdir(), 'lore-installed-tool-'));
  const prefix = join(root, 'prefix');
  const elsewhere = join(root, 'elsewhere');
  const binDir = join(prefix, 'bin');
  let env: Record<string, string>;

  before(() => {
    mkdirSync(elsewhere, { recursive: true });
    const pack = spawnSync('npm', ['pack', '--pack-destination', root, '--json'], { cwd: REPO, encoding: 'utf8', timeout: 120_000 });
    assert.equal(pack.status, 0, pack.stderr);
    const [{ filename, files }] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
    const paths = files.map((f) => f.path);
    assert.ok(paths.includes('bin/lore.mjs') && paths.includes('src/cli/main.ts') && paths.includes('workflows/index.ts'), 'the tarball holds what runs');
    assert.equal(
      paths.some((p) => p.startsWith('test/') || p.startsWith('bench/') || p.startsWith('node_modules/')),
      false,
      'and not the tests, benchmarks or dependencies',
    );
    const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--omit=optional', join(root, filename)], {
      cwd: elsewhere,
      encoding: 'utf8',
      timeout: 600_000,
    });
    assert.equal(install.status, 0, `${install.stdout}\n${install.stderr}`);
    env = {
      PATH: [binDir, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      HOME: process.env.HOME ?? root,
      LORE_DATA_DIR: join(root, 'data'),
      ...(process.env.LORE_BIN_DIR ? { LORE_BIN_DIR: process.env.LORE_BIN_DIR } : {}),
      // Ports of a Lore another test (or person) runs here are reported, not a failure.
      LORE_PORT: '39411',
    };
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const lore = (cwd: string, ...args: string[]) => spawnSync('sh', ['-c', `lore ${args.join(' ')}`], { cwd, env, encoding: 'utf8', timeout: 120_000 });

  it('`lore` resolves from PATH to the installed package, and `lore --help` runs from another directory', () => {
    const which = spawnSync('sh', ['-c', 'command -v lore'], { env, encoding: 'utf8' });
    assert.equal(which.stdout.trim(), join(binDir, 'lore'));
    assert.equal(realpathSync(join(binDir, 'lore')), join(prefix, 'lib', 'node_modules', 'lore', 'bin', 'lore.mjs'));
    const help = lore(elsewhere, '--help');
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^lore — local-first continuity runtime/);
    assert.match(help.stdout, /lore hooks install codex/);
    assert.equal(help.stderr, '', 'it ran from its own transpiled build, not through a fallback');
  });

  it('`lore doctor` runs from another directory and checks this machine', () => {
    const doctor = lore(elsewhere, 'doctor');
    assert.match(doctor.stdout, /✓ Node\.js/);
    assert.match(doctor.stdout, /data dir +.*lore-installed-tool-/);
    assert.match(doctor.stdout, /^(ready|not ready): \d+ problem/m);
    assert.equal(doctor.status, /^ready:/m.test(doctor.stdout) ? 0 : 1, doctor.stdout);
  });

  it('installers run from a project write PATH-resolved `lore …` commands', () => {
    const project = join(root, 'shop');
    mkdirSync(join(project, '.git'), { recursive: true });
    const r = lore(project, 'hooks', 'install', 'claude-code');
    assert.equal(r.status, 0, r.stderr);
    const settings = readFileSync(join(project, '.claude', 'settings.local.json'), 'utf8');
    assert.match(settings, /"command": "lore hook claude-code --forward"/);
    assert.equal(settings.includes(prefix), false, 'no install path in the settings');
    assert.deepEqual(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers.lore, { type: 'stdio', command: 'lore', args: ['mcp'] });
    const hook = spawnSync('sh', ['-c', 'lore hook claude-code'], { cwd: project, env, input: '{"hook_event_name":"Notification","session_id":"s"}', encoding: 'utf8' });
    assert.equal(hook.status, 0);
    assert.equal(hook.stderr, '');
    assert.equal(lore(project, 'hooks', 'uninstall', 'claude-code').status, 0);
    assert.equal(existsSync(join(project, '.mcp.json')), false);
  });
});
