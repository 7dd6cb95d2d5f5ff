import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { PARAPHRASE, sessionEvents, TASK_FAMILY, tempProject } from './helpers';

/**
 * The HTTP hook route (POST /v1/hooks/claude-code): the same handler as `lore hook`, for agents
 * that post their hook JSON (Claude Code's "type": "http" hooks). The tenant comes from the key,
 * the scope from ?scope= (else the project of the event's cwd).
 */
describe('HTTP hook route', () => {
  let api: TestApi;
  const tenant = uniqueName('acme');
  const key = 'route-key-0123456789';
  const project = tempProject(uniqueName('shop'));
  before(async () => {
    api = await startTestApi({ env: { LORE_API_KEYS: `${key}=${tenant}` } });
  });
  after(async () => {
    await api?.close();
    project.cleanup();
  });

  const hook = async (body: unknown, opts: { scope?: string; key?: string | null; raw?: string } = {}) => {
    const res = await api.app.inject({
      method: 'POST',
      url: `/v1/hooks/claude-code${opts.scope ? `?scope=${encodeURIComponent(opts.scope)}` : ''}`,
      headers: { 'content-type': 'application/json', ...(opts.key === null ? {} : { authorization: `Bearer ${opts.key ?? key}` }) },
      payload: opts.raw ?? JSON.stringify(body),
    });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };

  it('records sessions posted over HTTP and answers the fourth prompt with the learned start', async () => {
    const scope = uniqueName('http-proj');
    for (const [i, prompt] of TASK_FAMILY.entries()) {
      const sid = `http-session-${i}-${uniqueName('s')}`;
      for (const ev of sessionEvents({ session_id: sid, cwd: project.dir, prompt })) {
        const r = await hook(ev, { scope });
        assert.equal(r.status, 200);
        if (ev.hook_event_name !== 'UserPromptSubmit' || i === 0) assert.deepEqual(r.body, {}, `${ev.hook_event_name} has nothing to add`);
      }
      const run = await api.post('/v1/memory/replay/runs/get', { tenant_id: tenant, scope, run_id: `claude-code:${sid}:1` }, { authorization: `Bearer ${key}` });
      assert.equal(run.status, 200, JSON.stringify(run.body));
      assert.deepEqual(
        run.body.run.steps.map((s: any) => s.tool_name),
        ['Read', 'Edit', 'Bash'],
      );
    }
    const [start, prompt] = sessionEvents({ session_id: uniqueName('fourth'), cwd: project.dir, prompt: PARAPHRASE });
    assert.deepEqual((await hook(start, { scope })).body, {});
    const answer = await hook(prompt, { scope });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.hookSpecificOutput.hookEventName, 'UserPromptSubmit');
    assert.match(answer.body.hookSpecificOutput.additionalContext, /src\/jobs\/worker\.ts/);
    assert.match(answer.body.hookSpecificOutput.additionalContext, /\bread\b/i);
  });

  it('without ?scope= the scope is the project the event’s cwd belongs to', async () => {
    const sid = uniqueName('cwd-scope');
    const [, prompt, pre] = sessionEvents({ session_id: sid, cwd: project.dir, prompt: 'tidy the worker' });
    // The agent works in a subdirectory of the project.
    const inSubdir = { cwd: `${project.dir}/src/jobs` };
    assert.equal((await hook({ ...prompt, ...inSubdir })).status, 200);
    assert.equal((await hook({ ...pre, ...inSubdir })).status, 200);
    const scope = project.dir.split('/').pop()!;
    const run = await api.post('/v1/memory/replay/runs/get', { tenant_id: tenant, scope, run_id: `claude-code:${sid}:1` }, { authorization: `Bearer ${key}` });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.equal(run.body.run.steps[0].tool_input.file_path, `${project.dir}/src/jobs/worker.ts`);
  });

  it('malformed hook JSON is answered 200 {}, logged, and stores nothing', async () => {
    const sessions = join(api.config.dataDir, 'hooks', 'sessions');
    const before = existsSync(sessions) ? readdirSync(sessions).length : 0;
    for (const raw of ['{"hook_event_name": ', '"just a string"', '{"hook_event_name":"Stop"}']) {
      const r = await hook(null, { raw });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {});
    }
    assert.equal(existsSync(sessions) ? readdirSync(sessions).length : 0, before);
    const log = readFileSync(join(api.config.dataDir, 'logs', 'hooks.log'), 'utf8');
    assert.equal((log.match(/malformed hook input/g) ?? []).length, 3);
  });

  it('a request without a valid key is refused (the agent reports it and goes on)', async () => {
    const [, prompt] = sessionEvents({ session_id: 'x', cwd: project.dir, prompt: 'p' });
    const r = await hook(prompt, { key: null });
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, 'unauthorized');
    const wrong = await hook(prompt, { key: 'nope' });
    assert.equal(wrong.status, 401);
  });
});
