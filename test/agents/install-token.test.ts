import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { installTokenPath, readInstallToken } from '../../src/model/install-token';
import { ApiError, createLore } from '../../src/sdk';
import { uniqueName } from '../helpers/app';
import { pollFor } from '../helpers/wait';
import { LORE_BIN, mcpOverHttp, ok, runHook, startListeningApi, warmLoreBin, type ListeningApi } from './helpers';

/**
 * LORE_REQUIRE_TOKEN (docs/security.md): every request needs the install token, and the clients
 * on this machine — `lore mcp`, `lore hook`, the SDK — find it in the data dir by themselves.
 */
describe('the install token, required', () => {
  let api: ListeningApi;
  let token = '';
  before(async () => {
    api = await startListeningApi({ env: { LORE_REQUIRE_TOKEN: 'true', SANDBOX_ENABLED: 'false' } });
    token = readInstallToken(api.config.dataDir)!;
    await warmLoreBin();
  });
  after(async () => api?.close());

  it('is written at the first start, owner-only, and every route needs it', async () => {
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(statSync(installTokenPath(api.config.dataDir)).mode & 0o777, 0o600);
    const health = await fetch(`${api.url}/health`);
    assert.equal(health.status, 401);
    assert.match(((await health.json()) as any).error.message, /install token/);
    assert.equal((await fetch(`${api.url}/health`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
    assert.equal((await fetch(`${api.url}/health`, { headers: { authorization: 'Bearer not-the-token' } })).status, 401);
    const hook = await fetch(`${api.url}/v1/hooks/claude-code`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(hook.status, 401);
    await assert.rejects(mcpOverHttp(api.url, { scope: uniqueName('s') }), /401|unauthorized/i);
    const client = await mcpOverHttp(api.url, { scope: uniqueName('s'), key: token });
    await client.close();
  });

  it('the SDK sends it for a Lore on this machine, given the data dir', async () => {
    const scope = uniqueName('sdk');
    const lore = createLore({ baseUrl: api.url, dataDir: api.config.dataDir, scope });
    const written = await lore.memory.write({ input_text: 'the SDK found the install token' });
    assert.equal(written.nodes.length, 1);
    const stranger = createLore({ baseUrl: api.url, dataDir: `${api.config.dataDir}-not-there`, scope });
    await assert.rejects(stranger.memory.write({ input_text: 'no token' }), (err: unknown) => err instanceof ApiError && err.status === 401);
  });

  it('lore mcp reads it from LORE_DATA_DIR: no LORE_API_KEY needed', async () => {
    const scope = uniqueName('stdio');
    const client = new Client({ name: 'lore-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [LORE_BIN, 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LORE_DATA_DIR: api.config.dataDir, LORE_URL: api.url, LORE_MCP_SCOPE: scope },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += String(d)));
    await client.connect(transport).catch((err) => {
      throw new Error(`lore mcp did not start: ${(err as Error).message}\n${stderr}`);
    });
    try {
      const w = await ok(client, 'write_memory', { input_text: 'lore mcp used the install token' });
      const r = await ok(client, 'recall_memory', { query_text: 'install token' });
      assert.deepEqual(
        r.results.map((x: { id: string }) => x.id),
        [w.nodes[0].id],
      );
    } finally {
      await client.close();
    }
  });

  it('lore hook reads it from LORE_DATA_DIR: the prompt is recorded', async () => {
    const scope = uniqueName('hook');
    const sid = uniqueName('session');
    const run = await runHook(
      { hook_event_name: 'UserPromptSubmit', session_id: sid, cwd: '/tmp', prompt: 'fix the flaky retry test' },
      { LORE_DATA_DIR: api.config.dataDir, LORE_URL: api.url, LORE_MCP_SCOPE: scope, LORE_HOOK_BUDGET_MS: '60000' },
    );
    assert.equal(run.code, 0, run.stderr);
    const recorded = await pollFor('the hook’s run', async () => {
      const r = await api.post('/v1/memory/replay/runs/get', { scope, run_id: `claude-code:${sid}:1` }, { authorization: `Bearer ${token}` });
      return r.status === 200 ? r.body : null;
    });
    assert.equal(recorded.run.run_id, `claude-code:${sid}:1`);
  });
});
