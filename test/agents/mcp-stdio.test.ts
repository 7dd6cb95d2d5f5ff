import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { uniqueName } from '../helpers/app';
import { callTool, learnThroughMcp, LORE_BIN, ok, REPO_ROOT, startListeningApi, type ListeningApi } from './helpers';

/** Proofs 1 and 4 over stdio: the SDK's v1 Client spawning `npx lore mcp` against a running Lore. */
describe('MCP over stdio (npx lore mcp)', () => {
  let api: ListeningApi;
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-mcp-stdio-'));
  const tenant = uniqueName('acme');
  const key = 'stdio-key-0123456789';
  const clients: Client[] = [];
  before(async () => {
    api = await startListeningApi({ env: { LORE_API_KEYS: `${key}=${tenant}`, SANDBOX_ENABLED: 'false' } });
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await api?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** `npx lore mcp` in the repository; elsewhere the bin itself (what `lore hooks install` registers). */
  async function spawnMcp(env: Record<string, string>, cwd = REPO_ROOT): Promise<Client> {
    const client = new Client({ name: 'lore-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: cwd === REPO_ROOT ? 'npx' : process.execPath,
      args: cwd === REPO_ROOT ? ['lore', 'mcp'] : [LORE_BIN, 'mcp'],
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LORE_DATA_DIR: dataDir, LORE_URL: api.url, LORE_API_KEY: key, ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => (stderr += String(d)));
    try {
      await client.connect(transport);
    } catch (err) {
      throw new Error(`lore mcp did not start: ${(err as Error).message}\n${stderr}`);
    }
    clients.push(client);
    await client.listTools();
    return client;
  }

  it('proof 1 over stdio; the tenant and scope come from LORE_MCP_TENANT / LORE_MCP_SCOPE', async () => {
    const scope = uniqueName('proj');
    const client = await spawnMcp({ LORE_MCP_TENANT: tenant, LORE_MCP_SCOPE: scope });
    const stranger = await spawnMcp({ LORE_MCP_TENANT: tenant, LORE_MCP_SCOPE: uniqueName('other') });
    const { tools } = await client.listTools();
    assert.equal(
      tools.some((t) => t.name === 'execute_command'),
      false,
      'execute_command is listed only when the sandbox is on',
    );
    assert.ok(tools.some((t) => t.name === 'start_task'));
    await learnThroughMcp(client, stranger);
    // What stdio wrote is in the bound tenant and scope, as the HTTP API sees it.
    const res = await api.post('/v1/memory/recall_text', { tenant_id: tenant, scope, query_text: 'flaky retry worker' }, { authorization: `Bearer ${key}` });
    assert.equal(res.status, 200);
    assert.equal(res.body.results.length >= 3, true);
  });

  it('the scope defaults to the project the working directory belongs to', async () => {
    const project = mkdtempSync(join(tmpdir(), 'lore-proj-'));
    try {
      const client = await spawnMcp({ LORE_MCP_TENANT: tenant }, project);
      const w = await ok(client, 'write_memory', { input_text: 'project-scoped note about the release checklist' });
      const scope = project.split('/').pop()!;
      const res = await api.post('/v1/memory/resolve', { tenant_id: tenant, scope, id: w.nodes[0].id }, { authorization: `Bearer ${key}` });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('proof 4 over stdio: a wrong argument type is a tool error naming the field; Lore answering an error too; the connection stays usable', async () => {
    const client = await spawnMcp({ LORE_MCP_TENANT: tenant, LORE_MCP_SCOPE: uniqueName('bad') });
    const bad = await callTool(client, 'write_memory', { input_text: 42 });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0]!.text!, /input_text/);
    const missing = await callTool(client, 'recover_handoff', { anchor: 'nothing-here' });
    assert.equal(missing.isError, true);
    assert.match(missing.content[0]!.text!, /not_found/);
    const fine = await ok(client, 'start_task', { query_text: 'something never done before' });
    assert.equal(fine.first_action, null);
  });

  it('a tenant the key is not bound to is refused by Lore, not served', async () => {
    const client = await spawnMcp({ LORE_MCP_TENANT: uniqueName('intruder'), LORE_MCP_SCOPE: 'x' });
    const denied = await callTool(client, 'recall_memory', { query_text: 'anything' });
    assert.equal(denied.isError, true);
    assert.match(denied.content[0]!.text!, /forbidden/);
  });
});
