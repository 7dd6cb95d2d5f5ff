import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { uniqueName } from '../helpers/app';
import { PARAPHRASE, runHook, sessionEvents, startListeningApi, TASK_FAMILY, tempProject, warmLoreBin, type ListeningApi } from './helpers';

/**
 * Proof 2: a recorded Claude Code session replayed through `lore hook` (one process per event, as
 * Claude Code runs it) makes a replay run with its steps and an execution write; after three
 * sessions with paraphrased prompts, the prompt hook of a fourth returns added context naming the
 * file and the first tool.
 */
describe('coding-agent hooks (lore hook) against a real Lore', () => {
  let api: ListeningApi;
  const tenant = uniqueName('acme');
  const key = 'hook-key-0123456789';
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-hooks-data-'));
  const project = tempProject(uniqueName('shop'));
  const scope = project.dir.split('/').pop()!;
  const auth = { authorization: `Bearer ${key}` };
  // This machine is shared and often busy: the tests give each hook a generous budget so a slow
  // start-up does not drop the very calls they check. The default budget is fail-open's test.
  const env = { LORE_URL: '', LORE_API_KEY: key, LORE_MCP_TENANT: tenant, LORE_DATA_DIR: dataDir, LORE_HOOK_BUDGET_MS: '15000' };

  before(async () => {
    api = await startListeningApi({ env: { LORE_API_KEYS: `${key}=${tenant}` } });
    env.LORE_URL = api.url;
    await warmLoreBin();
  });
  after(async () => {
    await api?.close();
    project.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function replaySession(sessionId: string, prompt: string, opts: { stopAfter?: string } = {}) {
    const outputs: Record<string, string> = {};
    for (const ev of sessionEvents({ session_id: sessionId, cwd: project.dir, prompt })) {
      const r = await runHook(ev, env);
      assert.equal(r.code, 0, `${ev.hook_event_name} exited ${r.code}: ${r.stderr}`);
      assert.equal(r.stderr, '', 'a hook never writes to the agent’s terminal');
      outputs[ev.hook_event_name] = r.stdout;
      if (ev.hook_event_name === opts.stopAfter) break;
    }
    return outputs;
  }

  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await api.post(path, { tenant_id: tenant, scope, ...body }, auth);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };

  it('proof 2: each session becomes a replay run and an execution write; the fourth prompt starts with the learned file and tool', async () => {
    const sessions = TASK_FAMILY.map(() => crypto.randomUUID());
    for (const [i, sid] of sessions.entries()) {
      const out = await replaySession(sid, TASK_FAMILY[i]!);
      assert.equal(out.PreToolUse, '', 'tool hooks answer nothing');
      assert.equal(out.Stop, '');

      const { run } = await post('/v1/memory/replay/runs/get', { run_id: `claude-code:${sid}:1` });
      assert.equal(run.goal, TASK_FAMILY[i]);
      assert.equal(run.status, 'success');
      assert.deepEqual(
        run.steps.map((s: any) => [s.tool_name, s.status]),
        [
          ['Read', 'success'],
          ['Edit', 'success'],
          ['Bash', 'success'],
        ],
      );
      const [read, edit, bash] = run.steps;
      assert.equal(read.tool_input.file_path, `${project.dir}/src/jobs/worker.ts`);
      assert.deepEqual(edit.output_signature.files_touched, ['src/jobs/worker.ts']);
      assert.equal(bash.tool_input.command, 'npm test');
      assert.equal(bash.output_signature.exit_code, 0);

      const found = await post('/v1/memory/find', { client_id: `claude-code:${sid}:1` });
      assert.equal(found.nodes.length, 1, 'one execution write per prompt');
      const extraction = found.nodes[0].slots.execution_native_v1;
      assert.ok(extraction, JSON.stringify(found.nodes[0].slots));
      const written = JSON.stringify(found.nodes[0]);
      assert.match(written, /src\/jobs\/worker\.ts/);
      assert.match(written, /npm test/);
    }
    // The session ended: its state file is gone.
    assert.deepEqual(
      readdirSync(join(dataDir, 'hooks', 'sessions')).filter((f) => f.endsWith('.json')),
      [],
    );

    const fourth = crypto.randomUUID();
    const out = await replaySession(fourth, PARAPHRASE, { stopAfter: 'UserPromptSubmit' });
    assert.ok(out.UserPromptSubmit, 'the prompt hook answered with added context');
    const answer = JSON.parse(out.UserPromptSubmit!);
    assert.equal(answer.hookSpecificOutput.hookEventName, 'UserPromptSubmit');
    const context: string = answer.hookSpecificOutput.additionalContext;
    assert.match(context, /src\/jobs\/worker\.ts/, context);
    assert.match(context, /\bread\b/i, context);
    assert.match(context, /Evidence ids: \S+/, context);
    assert.equal(out.SessionStart, '', 'a fresh session start has nothing to add');

    // An unrelated prompt gets nothing: no invented history.
    const other = await runHook(
      { session_id: crypto.randomUUID(), cwd: project.dir, hook_event_name: 'UserPromptSubmit', prompt: 'translate the onboarding emails to German' },
      env,
    );
    assert.equal(other.code, 0);
    assert.equal(other.stdout, '');
  });

  it('a resumed session gets its task’s learned start back; SessionEnd inside a turn ends the run partial', async () => {
    const sid = crypto.randomUUID();
    const events = sessionEvents({ session_id: sid, cwd: project.dir, prompt: TASK_FAMILY[0]! });
    for (const ev of events.slice(0, 4)) assert.equal((await runHook(ev, env)).code, 0); // start, prompt, Read pre/post
    const resumed = await runHook({ ...events[0], source: 'resume' }, env);
    assert.equal(resumed.code, 0);
    assert.match(JSON.parse(resumed.stdout).hookSpecificOutput.additionalContext, /src\/jobs\/worker\.ts/);
    assert.equal((await runHook(events.at(-1), env)).code, 0); // SessionEnd, no Stop
    const { run } = await post('/v1/memory/replay/runs/get', { run_id: `claude-code:${sid}:1` });
    assert.equal(run.status, 'partial');
    assert.equal(run.steps.length, 1);
  });

  it('parallel tool calls get distinct steps; a Post without its Pre is recorded all the same', async () => {
    const sid = crypto.randomUUID();
    const base = { session_id: sid, cwd: project.dir };
    assert.equal((await runHook({ ...base, hook_event_name: 'UserPromptSubmit', prompt: 'look around the billing module' }, env)).code, 0);
    const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts'];
    const pre = await Promise.all(
      files.map((f, i) =>
        runHook({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_use_id: `t${i}`, tool_input: { file_path: `${project.dir}/billing/${f}` } }, env),
      ),
    );
    assert.deepEqual(
      pre.map((r) => r.code),
      [0, 0, 0, 0],
    );
    await Promise.all(
      files.map((f, i) =>
        runHook(
          {
            ...base,
            hook_event_name: 'PostToolUse',
            tool_name: 'Read',
            tool_use_id: `t${i}`,
            tool_input: { file_path: `${project.dir}/billing/${f}` },
            tool_response: { type: 'text' },
          },
          env,
        ),
      ),
    );
    // A failed command whose PreToolUse was never seen.
    await runHook(
      {
        ...base,
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Bash',
        tool_use_id: 'lost',
        tool_input: { command: 'npm run lint' },
        error: 'Exit code 2\nerror: 3 problems found',
      },
      env,
    );
    await runHook({ ...base, hook_event_name: 'Stop', stop_hook_active: false }, env);
    const open = await post('/v1/memory/replay/runs/get', { run_id: `claude-code:${sid}:1` });
    assert.equal(open.run.status, 'open', 'a turn ends at Stop, the task goes on until the next one starts or the session ends');
    await runHook({ ...base, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' }, env);
    const { run } = await post('/v1/memory/replay/runs/get', { run_id: `claude-code:${sid}:1` });
    assert.deepEqual(
      run.steps.map((s: any) => s.step_index),
      [0, 1, 2, 3, 4],
    );
    assert.deepEqual(
      run.steps
        .slice(0, 4)
        .map((s: any) => s.tool_input.file_path)
        .sort(),
      files.map((f) => `${project.dir}/billing/${f}`),
    );
    assert.ok(run.steps.slice(0, 4).every((s: any) => s.status === 'success'));
    const lint = run.steps[4];
    assert.equal(lint.status, 'failed');
    assert.equal(lint.output_signature.exit_code, 2);
    assert.equal(lint.output_signature.error_signature, 'error: 3 problems found');
    assert.equal(run.status, 'failure', 'the task ended on a failed command');
  });

  it('secrets in prompts, tool inputs and outputs are redacted before anything is stored', async () => {
    const sid = crypto.randomUUID();
    const base = { session_id: sid, cwd: project.dir };
    const secrets = [
      'hunter2-very-secret',
      'sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4',
      'AKIAIOSFODNN7EXAMPLE',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'wJalrXUtnFEMIbPxRfiCYEXAMPLEKEY',
    ];
    await runHook({ ...base, hook_event_name: 'UserPromptSubmit', prompt: `deploy staging; the db password=${secrets[0]} if it asks` }, env);
    const curl = { command: `curl -H "Authorization: Bearer ${secrets[1]}" https://api.example.com/v1/deploy` };
    await runHook({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c1', tool_input: curl }, env);
    await runHook(
      { ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_use_id: 'c1', tool_input: curl, error: `Exit code 22\ncurl: (22) 401 for token ${secrets[3]}` },
      env,
    );
    const write = { file_path: `${project.dir}/.env`, content: `AWS_ACCESS_KEY_ID=${secrets[2]}\nAWS_SECRET_ACCESS_KEY=${secrets[4]}\n` };
    await runHook({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_use_id: 'w1', tool_input: write }, env);
    // The state file between events holds nothing secret either.
    const stateFiles = readdirSync(join(dataDir, 'hooks', 'sessions')).filter((f) => f.endsWith('.json'));
    const state = stateFiles.map((f) => readFileSync(join(dataDir, 'hooks', 'sessions', f), 'utf8')).join('\n');
    await runHook(
      {
        ...base,
        hook_event_name: 'PostToolUse',
        tool_name: 'Write',
        tool_use_id: 'w1',
        tool_input: write,
        tool_response: { type: 'create', filePath: write.file_path, content: write.content },
      },
      env,
    );
    await runHook({ ...base, hook_event_name: 'Stop' }, env);
    await runHook({ ...base, hook_event_name: 'SessionEnd', reason: 'other' }, env);

    const { run } = await post('/v1/memory/replay/runs/get', { run_id: `claude-code:${sid}:1` });
    const found = await post('/v1/memory/find', { client_id: `claude-code:${sid}:1` });
    assert.equal(found.nodes.length, 1);
    const stored = JSON.stringify([run, found.nodes, state]);
    for (const s of secrets) assert.equal(stored.includes(s), false, `${s} was stored`);
    assert.match(stored, /\[REDACTED\]/);
    assert.match(JSON.stringify(run.steps[0].tool_input), /curl -H \\"Authorization: Bearer \[REDACTED\]\\" https:\/\/api\.example\.com/);
  });
});
