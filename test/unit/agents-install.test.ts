import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { CLAUDE_CODE_EVENTS, isLoreHookCommand, loreCommand, mergeHooks } from '../../src/agents/hook/install';

const LORE_BIN = fileURLToPath(new URL('../../bin/lore.mjs', import.meta.url));
const lore = (...args: string[]) => spawnSync(process.execPath, [LORE_BIN, ...args], { encoding: 'utf8' });

describe('lore hooks install claude-code', () => {
  it('merges the hooks block idempotently and keeps the user’s settings, hooks and servers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-install-'));
    try {
      mkdirSync(join(dir, '.claude'));
      const settings = {
        permissions: { allow: ['Bash(npm test)'] },
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo audit' }] }],
          Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }],
          Stop: [
            {
              hooks: [
                { type: 'command', command: 'npx lore hook' },
                { type: 'command', command: './check.sh' },
              ],
            },
          ],
        },
      };
      writeFileSync(join(dir, '.claude', 'settings.json'), JSON.stringify(settings));
      writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { other: { command: 'other-mcp' } } }));

      const first = lore('hooks', 'install', 'claude-code', '--project', dir);
      assert.equal(first.status, 0, first.stderr);
      const once = readFileSync(join(dir, '.claude', 'settings.json'), 'utf8');
      const second = lore('hooks', 'install', 'claude-code', '--project', dir);
      assert.equal(second.status, 0, second.stderr);
      assert.equal(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8'), once, 'installing again changes nothing');

      const merged = JSON.parse(once);
      assert.deepEqual(merged.permissions, settings.permissions);
      assert.deepEqual(merged.hooks.Notification, settings.hooks.Notification);
      assert.deepEqual(merged.hooks.PreToolUse[0], settings.hooks.PreToolUse[0], 'the user’s own hook stays first');
      assert.deepEqual(merged.hooks.Stop[0].hooks, [{ type: 'command', command: './check.sh' }], 'an older Lore hook is replaced, its neighbour kept');
      for (const { event, matcher } of CLAUDE_CODE_EVENTS) {
        const ours = merged.hooks[event].flatMap((g: any) => g.hooks).filter((h: any) => isLoreHookCommand(h.command));
        assert.equal(ours.length, 1, `${event}: exactly one Lore hook`);
        assert.equal(ours[0].command, loreCommand(process.execPath, LORE_BIN, 'hook'));
        const group = merged.hooks[event].find((g: any) => g.hooks.includes(ours[0]));
        assert.equal(group.matcher, matcher ?? undefined);
      }
      const mcp = JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8'));
      assert.deepEqual(Object.keys(mcp.mcpServers).sort(), ['lore', 'other']);
      assert.deepEqual(mcp.mcpServers.lore.args, [LORE_BIN, 'mcp']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--print shows the block and writes nothing; a settings file that is not JSON is left alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-install-'));
    try {
      const printed = lore('hooks', 'install', 'claude-code', '--project', dir, '--print');
      assert.equal(printed.status, 0, printed.stderr);
      assert.match(printed.stdout, /"UserPromptSubmit"/);
      assert.match(printed.stdout, /lore\.mjs hook/);
      assert.throws(() => readFileSync(join(dir, '.claude', 'settings.json')));
      mkdirSync(join(dir, '.claude'));
      writeFileSync(join(dir, '.claude', 'settings.json'), '{ "hooks": ');
      const refused = lore('hooks', 'install', 'claude-code', '--project', dir);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /not valid JSON/);
      assert.equal(readFileSync(join(dir, '.claude', 'settings.json'), 'utf8'), '{ "hooks": ');
      const usage = lore('hooks', 'install', 'cursor');
      assert.equal(usage.status, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('merging is pure: the same input gives the same output', () => {
    const s = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] }, model: 'opus' };
    assert.deepEqual(mergeHooks(mergeHooks(s, 'node lore.mjs hook'), 'node lore.mjs hook'), mergeHooks(s, 'node lore.mjs hook'));
  });
});
