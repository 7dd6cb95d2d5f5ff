import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { CLAUDE_CODE_EVENTS, isLoreHook, mergeHooks } from '../../src/agents/install/claude-code';
import { CODEX_EVENTS, definesLoreServer } from '../../src/agents/install/codex';
import { isLoreHookCommand } from '../../src/agents/install/lore-command';

/**
 * `lore hooks install|uninstall claude-code|codex` on real files, through the CLI: what the files
 * hold before, after install, after a second install (nothing changes, no second backup), and
 * after uninstall (exactly what install added is gone: the files are byte for byte as before).
 */

const LORE_BIN = fileURLToPath(new URL('../../bin/lore.mjs', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function sandbox() {
  const root = mkdtempSync(join(tmpdir(), 'lore-install-'));
  roots.push(root);
  const project = join(root, 'shop');
  mkdirSync(join(project, '.git'), { recursive: true });
  return { root, project, dataDir: join(root, 'data'), codexHome: join(root, 'codex-home') };
}

/** PATH without any `lore`, or with a `lore` that is this install (as `npm install -g` makes it). */
function pathEnv(root: string, withLore: boolean): string {
  const base = [dirname(process.execPath), '/usr/bin', '/bin'];
  if (!withLore) return base.join(':');
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(LORE_BIN, join(bin, 'lore'));
  return [bin, ...base].join(':');
}

function lore(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [LORE_BIN, 'hooks', ...args], { encoding: 'utf8', env: { HOME: env.HOME ?? tmpdir(), ...env } });
}

const read = (p: string) => readFileSync(p, 'utf8');
const snapshot = (files: string[]) => Object.fromEntries(files.map((f) => [f, existsSync(f) ? read(f) : null]));
const backups = (dataDir: string) => (existsSync(join(dataDir, 'backups')) ? readdirSync(join(dataDir, 'backups'), { recursive: true }).map(String).sort() : []);

describe('lore hooks install / uninstall claude-code', () => {
  it('by default: hooks in .claude/settings.local.json (HTTP hooks, forwarding commands), team files untouched; twice changes nothing; uninstall removes it all', () => {
    const { root, project, dataDir } = sandbox();
    mkdirSync(join(project, '.claude'));
    const team = join(project, '.claude', 'settings.json');
    const mcp = join(project, '.mcp.json');
    const local = join(project, '.claude', 'settings.local.json');
    writeFileSync(
      team,
      `${JSON.stringify({ permissions: { allow: ['Bash(npm test)'] }, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './audit.sh' }] }] } }, null, 2)}\n`,
    );
    writeFileSync(mcp, `${JSON.stringify({ mcpServers: { other: { command: 'other-mcp' } } }, null, 2)}\n`);
    const env = { PATH: pathEnv(root, false), LORE_DATA_DIR: dataDir };
    const before = snapshot([team, mcp, local]);

    const first = lore(env, 'install', 'claude-code', '--project', project);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /created +.*settings\.local\.json/);
    assert.match(first.stdout, /claude mcp add --scope local lore --/, 'says how to add the MCP server for this machine');
    assert.equal(read(team), before[team], 'the team-shared settings are not touched');
    assert.equal(read(mcp), before[mcp], '.mcp.json is not touched while Lore is not on PATH');

    const settings = JSON.parse(read(local));
    for (const { event, matcher, http } of CLAUDE_CODE_EVENTS) {
      const groups = settings.hooks[event];
      assert.equal(groups.length, 1, event);
      assert.equal(groups[0].matcher, matcher ?? undefined, event);
      const [h] = groups[0].hooks;
      if (http) {
        assert.equal(h.type, 'http', event);
        assert.equal(h.url, 'http://127.0.0.1:3001/v1/hooks/claude-code');
        assert.equal(h.headers['Content-Type'], 'application/json');
        assert.deepEqual(h.allowedEnvVars, ['LORE_API_KEY', 'LORE_MCP_TENANT', 'LORE_MCP_SCOPE']);
      } else {
        assert.equal(h.type, 'command', event);
        assert.match(h.command, /lore\.mjs hook claude-code --forward$/);
      }
    }

    const once = snapshot([team, mcp, local]);
    const second = lore(env, 'install', 'claude-code', '--project', project);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /unchanged +.*settings\.local\.json/);
    assert.deepEqual(snapshot([team, mcp, local]), once, 'installing again changes nothing');
    assert.deepEqual(backups(dataDir), [], 'no file existed before Lore wrote it: nothing to back up');

    const gone = lore(env, 'uninstall', 'claude-code', '--project', project);
    assert.equal(gone.status, 0, gone.stderr);
    assert.deepEqual(snapshot([team, mcp, local]), before, 'uninstall leaves the files as they were');
  });

  it('an existing settings.local.json is backed up once, kept in order around Lore’s entries, and restored byte for byte by uninstall', () => {
    const { root, project, dataDir } = sandbox();
    mkdirSync(join(project, '.claude'));
    const local = join(project, '.claude', 'settings.local.json');
    const original = `${JSON.stringify(
      {
        permissions: { allow: ['Bash(make lint)'] },
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo audit' }] }],
          Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }],
        },
        model: 'opus',
      },
      null,
      4,
    )}\n`;
    writeFileSync(local, original);
    const env = { PATH: pathEnv(root, false), LORE_DATA_DIR: dataDir };

    assert.equal(lore(env, 'install', 'claude-code', '--project', project, '--command-hooks', '--no-mcp').status, 0);
    const installed = read(local);
    assert.match(installed, /^\{\n {4}"permissions"/, 'the file keeps its own indentation');
    const merged = JSON.parse(installed);
    assert.deepEqual(merged.permissions, { allow: ['Bash(make lint)'] });
    assert.equal(merged.model, 'opus');
    assert.deepEqual(merged.hooks.PreToolUse[0], { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo audit' }] }, 'the user’s hook stays first');
    assert.deepEqual(merged.hooks.Notification, [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }]);
    for (const { event } of CLAUDE_CODE_EVENTS) {
      const ours = merged.hooks[event].flatMap((g: any) => g.hooks).filter(isLoreHook);
      assert.equal(ours.length, 1, event);
      assert.equal(ours[0].type, 'command', '--command-hooks: command hooks for every event');
      assert.match(ours[0].command, /lore\.mjs hook claude-code$/);
    }
    const made = backups(dataDir);
    assert.equal(made.filter((f) => f.endsWith('settings.local.json')).length, 1);
    const backupFile = join(dataDir, 'backups', made.find((f) => f.endsWith('settings.local.json'))!);
    assert.equal(read(backupFile), original, 'the backup is the original');

    // Switching to HTTP hooks replaces Lore's entries; the backup still holds the original.
    assert.equal(lore(env, 'install', 'claude-code', '--project', project, '--no-mcp').status, 0);
    assert.equal(
      JSON.parse(read(local))
        .hooks.Stop.flatMap((g: any) => g.hooks)
        .filter(isLoreHook)[0].type,
      'http',
    );
    assert.equal(read(backupFile), original, 'backed up once');

    assert.equal(lore(env, 'uninstall', 'claude-code', '--project', project).status, 0);
    assert.equal(read(local), original, 'uninstall removes exactly what install added');
  });

  it('an older Lore hook (npx lore hook, a clone’s bin) is replaced, its neighbours kept', () => {
    const s = {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: 'command', command: 'npx lore hook' },
              { type: 'command', command: './check.sh' },
            ],
          },
        ],
        PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: "'/opt/my lore/bin/lore.mjs' hook" }] }],
      },
    };
    const lore = { kind: 'path' as const, argv: ['lore'] };
    const merged = mergeHooks(s, { lore, url: 'http://127.0.0.1:3001', mode: 'command' });
    assert.deepEqual(merged.hooks.Stop[0].hooks, [{ type: 'command', command: './check.sh' }]);
    assert.deepEqual(merged.hooks.Stop[1].hooks, [{ type: 'command', command: 'lore hook claude-code', timeout: 5 }]);
    assert.equal(merged.hooks.PostToolUse.length, 1, 'a group left empty by the removal goes');
    assert.deepEqual(mergeHooks(merged, { lore, url: 'http://127.0.0.1:3001', mode: 'command' }), merged, 'merging is idempotent');
    assert.equal(isLoreHookCommand('./explore hook'), false);
  });

  it('installed as `lore` on PATH: --shared writes only PATH-resolved commands into the team files, and uninstall restores them', () => {
    const { root, project, dataDir } = sandbox();
    mkdirSync(join(project, '.claude'));
    const team = join(project, '.claude', 'settings.json');
    const mcp = join(project, '.mcp.json');
    writeFileSync(team, `${JSON.stringify({ permissions: { deny: ['Read(.env)'] } }, null, 2)}\n`);
    writeFileSync(mcp, `${JSON.stringify({ mcpServers: { other: { command: 'other-mcp', args: [] } } }, null, 2)}\n`);
    const before = snapshot([team, mcp]);
    const env = { PATH: pathEnv(root, true), LORE_DATA_DIR: dataDir };

    const r = lore(env, 'install', 'claude-code', '--project', project, '--shared');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Commands run `lore` from PATH/);
    for (const f of [team, mcp]) {
      const text = read(f);
      assert.equal(text.includes(REPO), false, `${f} names no path of this machine`);
      assert.equal(text.includes(process.execPath), false, `${f} names no Node binary`);
    }
    const settings = JSON.parse(read(team));
    assert.equal(settings.hooks.SessionStart[0].hooks[0].command, 'lore hook claude-code --forward');
    assert.deepEqual(JSON.parse(read(mcp)).mcpServers.lore, { type: 'stdio', command: 'lore', args: ['mcp'] });
    assert.deepEqual(Object.keys(JSON.parse(read(mcp)).mcpServers), ['other', 'lore']);
    assert.equal(existsSync(join(project, '.claude', 'settings.local.json')), false);

    assert.equal(lore(env, 'uninstall', 'claude-code', '--project', project).status, 0);
    assert.deepEqual(snapshot([team, mcp]), before);
  });

  it('refuses what it must not do: --shared without Lore on PATH, a settings file that is not JSON, an MCP server "lore" of someone else; --print writes nothing', () => {
    const { root, project, dataDir } = sandbox();
    const env = { PATH: pathEnv(root, false), LORE_DATA_DIR: dataDir };
    const shared = lore(env, 'install', 'claude-code', '--project', project, '--shared');
    assert.equal(shared.status, 1);
    assert.match(shared.stderr, /settings\.json, which a team commits, but Lore is not on PATH/);
    assert.equal(existsSync(join(project, '.claude')), false);

    const printed = lore(env, 'install', 'claude-code', '--project', project, '--print');
    assert.equal(printed.status, 0, printed.stderr);
    assert.match(printed.stdout, /"UserPromptSubmit"/);
    assert.equal(existsSync(join(project, '.claude')), false);

    mkdirSync(join(project, '.claude'));
    writeFileSync(join(project, '.claude', 'settings.local.json'), '{ "hooks": ');
    const broken = lore(env, 'install', 'claude-code', '--project', project);
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /not valid JSON/);
    assert.equal(read(join(project, '.claude', 'settings.local.json')), '{ "hooks": ');

    const withPath = { PATH: pathEnv(root, true), LORE_DATA_DIR: dataDir };
    rmSync(join(project, '.claude'), { recursive: true });
    writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { lore: { command: 'someone-elses-lore' } } }));
    const taken = lore(withPath, 'install', 'claude-code', '--project', project);
    assert.equal(taken.status, 1);
    assert.match(taken.stderr, /already has an MCP server named "lore"/);

    assert.equal(lore(env, 'install', 'cursor').status, 2);
    assert.equal(lore(env, 'install', 'claude-code', '--global').status, 2);
  });
});

describe('lore hooks install / uninstall codex', () => {
  it('writes Codex’s hooks.json and an MCP block in config.toml under CODEX_HOME; twice changes nothing; uninstall restores both byte for byte', () => {
    const { root, dataDir, codexHome } = sandbox();
    mkdirSync(codexHome);
    const hooks = join(codexHome, 'hooks.json');
    const config = join(codexHome, 'config.toml');
    writeFileSync(hooks, `${JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'afplay done.aiff', timeout: 2 }] }] } }, null, 2)}\n`);
    writeFileSync(config, 'model = "gpt-5-codex"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\nargs = ["--stdio"]\n');
    const before = snapshot([hooks, config]);
    const env = { PATH: pathEnv(root, false), LORE_DATA_DIR: dataDir, CODEX_HOME: codexHome };

    const r = lore(env, 'install', 'codex');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /trust/i, 'says that Codex runs hooks once they are trusted');
    const file = JSON.parse(read(hooks));
    assert.deepEqual(Object.keys(file), ['hooks'], 'Codex accepts only description and hooks at the root');
    assert.deepEqual(file.hooks.Stop[0], { hooks: [{ type: 'command', command: 'afplay done.aiff', timeout: 2 }] });
    for (const { event } of CODEX_EVENTS) {
      const ours = file.hooks[event].flatMap((g: any) => g.hooks).filter((h: any) => isLoreHookCommand(h.command));
      assert.equal(ours.length, 1, event);
      assert.equal(ours[0].type, 'command');
      assert.match(ours[0].command, /lore\.mjs hook codex$/);
      assert.ok(Number.isInteger(ours[0].timeout) && ours[0].timeout <= (event === 'SessionEnd' || event === 'Interrupt' ? 3 : 10), event);
      assert.equal(file.hooks[event].at(-1).matcher, undefined, 'every tool: no matcher');
    }
    const toml = read(config);
    assert.ok(toml.startsWith(before[config]!), 'the rest of config.toml keeps every byte');
    assert.match(toml, /\[mcp_servers\.lore\]\ncommand = ".*node"\nargs = \[".*lore\.mjs", "mcp"\]\n# <<< lore\n$/);
    assert.equal(definesLoreServer(toml), false, 'Lore’s own block is not someone else’s server');

    const once = snapshot([hooks, config]);
    assert.equal(lore(env, 'install', 'codex').status, 0);
    assert.deepEqual(snapshot([hooks, config]), once, 'installing again changes nothing');
    assert.equal(backups(dataDir).filter((f) => /hooks\.json$|config\.toml$/.test(f)).length, 2, 'each existing file backed up once');

    assert.equal(lore(env, 'uninstall', 'codex').status, 0);
    assert.deepEqual(snapshot([hooks, config]), before);
  });

  it('into a fresh Codex home, uninstall removes what install created; a project layer needs Lore on PATH; a server "lore" of someone else is refused', () => {
    const { root, project, dataDir, codexHome } = sandbox();
    const env = { PATH: pathEnv(root, false), LORE_DATA_DIR: dataDir, CODEX_HOME: codexHome };
    assert.equal(lore(env, 'install', 'codex').status, 0);
    assert.ok(existsSync(join(codexHome, 'hooks.json')) && existsSync(join(codexHome, 'config.toml')));
    assert.equal(lore(env, 'uninstall', 'codex').status, 0);
    assert.equal(existsSync(join(codexHome, 'hooks.json')), false);
    assert.equal(existsSync(join(codexHome, 'config.toml')), false);

    const refused = lore(env, 'install', 'codex', '--project', project);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /which a team commits, but Lore is not on PATH/);

    const withPath = { ...env, PATH: pathEnv(root, true) };
    assert.equal(lore(withPath, 'install', 'codex', '--project', project).status, 0);
    const projectHooks = JSON.parse(read(join(project, '.codex', 'hooks.json')));
    assert.equal(projectHooks.hooks.UserPromptSubmit[0].hooks[0].command, 'lore hook codex');
    assert.match(read(join(project, '.codex', 'config.toml')), /command = "lore"\nargs = \["mcp"\]/);

    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'config.toml'), '[mcp_servers.lore]\ncommand = "their-lore"\n');
    const taken = lore(env, 'install', 'codex');
    assert.equal(taken.status, 1);
    assert.match(taken.stderr, /already defines an MCP server named "lore"/);
  });
});
