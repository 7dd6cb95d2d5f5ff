import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { uniqueName } from '../helpers/app';
import { LORE_BIN, recordedSession, startListeningApi, tempProject, warmLoreBin, type ListeningApi } from './helpers';

/**
 * The hooks exactly as `lore hooks install` writes them, run the way the agent runs them: Claude
 * Code's HTTP hooks posted to their url with their headers (environment variables filled in as
 * Claude Code fills them: listed ones from the environment, unset ones as ""), its command hooks
 * and Codex's run through `sh -c` with the event on stdin. A recorded session goes through them
 * into a real Lore and comes out as its tasks.
 */
describe('hooks as installed, as the agent runs them', () => {
  let api: ListeningApi;
  const tenant = uniqueName('acme');
  const key = 'installed-key-0123456789';
  const root = mkdtempSync(join(tmpdir(), 'lore-installed-'));
  const dataDir = join(root, 'hook-data');
  before(async () => {
    api = await startListeningApi({ env: { LORE_API_KEYS: `${key}=${tenant}` } });
    await warmLoreBin();
  });
  after(async () => {
    await api?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const agentEnv = () => ({
    PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: root,
    LORE_URL: api.url,
    LORE_API_KEY: key,
    LORE_MCP_TENANT: tenant,
    LORE_DATA_DIR: dataDir,
    LORE_HOOK_BUDGET_MS: '15000',
  });

  function install(...args: string[]) {
    const r = spawnSync(process.execPath, [LORE_BIN, 'hooks', 'install', ...args], { encoding: 'utf8', env: { ...agentEnv(), CODEX_HOME: join(root, 'codex') } });
    assert.equal(r.status, 0, r.stderr);
  }

  /** $VAR and ${VAR} in a header value, as Claude Code fills them: listed variables from the environment, others empty. */
  const fill = (value: string, allowed: string[], env: Record<string, string>) =>
    value.replace(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g, (_m, name: string) => (allowed.includes(name) ? (env[name] ?? '') : ''));

  function runCommand(command: string, stdin: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn('sh', ['-c', command], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += String(d)));
      child.stderr.on('data', (d) => (stderr += String(d)));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });
  }

  /** The handlers of one event in a hooks file, matchers applied as the agent does for a tool name. */
  const handlersOf = (file: any, event: string, tool: string | null) =>
    (file.hooks[event] ?? []).filter((g: any) => !g.matcher || g.matcher === '*' || (tool && new RegExp(`^(${g.matcher})$`).test(tool))).flatMap((g: any) => g.hooks);

  async function deliver(file: any, ev: Record<string, any>, env: Record<string, string>) {
    const outputs: string[] = [];
    for (const h of handlersOf(file, ev.hook_event_name, ev.tool_name ?? null)) {
      const body = JSON.stringify(ev);
      if (h.type === 'http') {
        const headers = Object.fromEntries(Object.entries(h.headers as Record<string, string>).map(([k, v]) => [k, fill(v, h.allowedEnvVars ?? [], env)]));
        const res = await fetch(h.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(h.timeout * 1000 * 5) });
        assert.equal(res.status, 200, `${ev.hook_event_name}: ${await res.clone().text()}`);
        const text = await res.text();
        outputs.push(text === '{}' ? '' : text);
      } else {
        const r = await runCommand(h.command, body, env);
        assert.equal(r.code, 0, `${ev.hook_event_name}: ${r.stderr}`);
        assert.equal(r.stderr, '', 'a hook never writes to the agent’s terminal');
        outputs.push(r.stdout.trim());
      }
    }
    return outputs;
  }

  const post = async (scope: string, path: string, body: Record<string, unknown>) => {
    const res = await api.post(path, { tenant_id: tenant, scope, ...body }, { authorization: `Bearer ${key}` });
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  it('Claude Code, default install: HTTP hooks and forwarding command hooks record a steered session as two tasks; a compaction’s handoff comes back', async () => {
    const project = tempProject(uniqueName('shop'));
    try {
      install('claude-code', '--project', project.dir);
      const settings = JSON.parse(readFileSync(join(project.dir, '.claude', 'settings.local.json'), 'utf8'));
      const scope = project.dir.split('/').pop()!;
      const sid = crypto.randomUUID();
      const env = agentEnv();
      const kinds = new Set<string>();
      for (const ev of recordedSession('claude-code-flaky-checkout', { session_id: sid, cwd: project.dir }).events) {
        for (const h of handlersOf(settings, ev.hook_event_name, (ev.tool_name as string) ?? null)) kinds.add(`${ev.hook_event_name}:${h.type}`);
        await deliver(settings, ev, env);
      }
      assert.ok(kinds.has('PreToolUse:http') && kinds.has('SessionStart:command') && kinds.has('SessionEnd:command'), [...kinds].join(' '));
      const run1 = (await post(scope, '/v1/memory/replay/runs/get', { run_id: `claude-code:${sid}:1` })).run;
      const run2 = (await post(scope, '/v1/memory/replay/runs/get', { run_id: `claude-code:${sid}:2` })).run;
      assert.match(run1.goal, /^The checkout total test fails on CI/);
      assert.equal(run1.step_count, 9);
      assert.equal(run2.status, 'success', 'ended by SessionEnd, a command hook forwarded to the same session state');
      assert.equal((await post(scope, '/v1/memory/find', { client_ids: [`claude-code:${sid}:1`, `claude-code:${sid}:2`] })).nodes.length, 2);

      // Without the key the HTTP hooks are refused (Claude Code reports a non-blocking error and goes on).
      const [prompt] = recordedSession('claude-code-flaky-checkout', { session_id: crypto.randomUUID(), cwd: project.dir }).events.slice(1);
      const h = handlersOf(settings, 'UserPromptSubmit', null)[0];
      const refused = await fetch(h.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' }, body: JSON.stringify(prompt) });
      assert.equal(refused.status, 401);
    } finally {
      project.cleanup();
    }
  });

  it('Claude Code, HTTP hooks: a compaction in the middle of a task stores a handoff that SessionStart(compact) puts back', async () => {
    const project = tempProject(uniqueName('auth'));
    try {
      install('claude-code', '--project', project.dir);
      const settings = JSON.parse(readFileSync(join(project.dir, '.claude', 'settings.local.json'), 'utf8'));
      const sid = crypto.randomUUID();
      let restored = '';
      for (const ev of recordedSession('claude-code-subagent-compact', { session_id: sid, cwd: project.dir }).events) {
        const out = await deliver(settings, ev, agentEnv());
        if (ev.hook_event_name === 'SessionStart' && ev.source === 'compact') restored = out.join('');
      }
      const context = JSON.parse(restored).hookSpecificOutput.additionalContext as string;
      assert.match(context, /Task: Why does the login page redirect in a loop/);
      assert.match(context, /Evidence ids: \S+/);
      assert.ok(context.length <= 2000);
    } finally {
      project.cleanup();
    }
  });

  it('Codex, user-level install: `lore hook codex` from hooks.json records the recorded Codex session', async () => {
    const project = tempProject(uniqueName('billing'));
    try {
      install('codex');
      const hooks = JSON.parse(readFileSync(join(root, 'codex', 'hooks.json'), 'utf8'));
      const scope = project.dir.split('/').pop()!;
      const sid = crypto.randomUUID();
      for (const ev of recordedSession('codex-invoice-rounding', { session_id: sid, cwd: project.dir }).events) {
        for (const out of await deliver(hooks, ev, agentEnv())) {
          if (out) assert.equal(JSON.parse(out).hookSpecificOutput.hookEventName, ev.hook_event_name, 'Codex reads hookSpecificOutput for the event it sent');
        }
      }
      const run1 = (await post(scope, '/v1/memory/replay/runs/get', { run_id: `codex:${sid}:1` })).run;
      assert.equal(run1.actor, 'codex');
      assert.equal(run1.status, 'success');
      assert.equal(run1.step_count, 6);
      const written = await post(scope, '/v1/memory/find', { client_ids: [`codex:${sid}:1`, `codex:${sid}:2`, `codex:${sid}:3`] });
      assert.equal(written.nodes.length, 2, 'two tasks, each written once');
      assert.ok(written.nodes.every((n: any) => n.tags.includes('codex')));
    } finally {
      project.cleanup();
    }
  });
});
