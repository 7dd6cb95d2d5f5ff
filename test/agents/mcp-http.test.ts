import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { routes } from '../../src/contract';
import { uniqueName } from '../helpers/app';
import { callTool, learnThroughMcp, mcpOverHttp, ok, startListeningApi, type ListeningApi } from './helpers';

const EXPECTED_TOOLS = [
  'write_memory',
  'recall_memory',
  'get_memory',
  'start_task',
  'plan_task',
  'report_tool_outcome',
  'store_handoff',
  'recover_handoff',
  'get_run',
  'resume_run',
  'next_playbook_step',
  'complete_playbook_step',
  'execute_command',
];

/** Proofs 1 and 4 over streamable HTTP at /mcp, with the SDK's v1 Client, against the real API. */
describe('MCP over streamable HTTP (/mcp)', () => {
  let api: ListeningApi;
  const tenantA = uniqueName('acme');
  const tenantB = uniqueName('globex');
  const keys = { a: 'key-acme-0123456789', b: 'key-globex-0123456789', unbound: 'key-ops-0123456789' };
  before(async () => {
    api = await startListeningApi({ env: { LORE_API_KEYS: `${keys.a}=${tenantA},${keys.b}=${tenantB},${keys.unbound}` } });
  });
  after(async () => api?.close());

  it('lists every tool with a model-facing description, annotations, and schemas derived from its route without tenant or scope', async () => {
    const client = await mcpOverHttp(api.url, { key: keys.a, scope: uniqueName('s') });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...EXPECTED_TOOLS].sort());
      for (const t of tools) {
        assert.match(t.name, /^[a-z]+_[a-z_]+$/, 'snake_case verb_noun');
        assert.ok((t.description ?? '').length > 80, `${t.name}: a description written for a model`);
        assert.equal(t.inputSchema.type, 'object');
        for (const bound of ['tenant_id', 'scope', 'actor']) assert.equal(bound in (t.inputSchema.properties ?? {}), false, `${t.name} offers ${bound}`);
        assert.equal(t.outputSchema?.type, 'object', `${t.name} has an output schema`);
        assert.equal(typeof t.annotations?.readOnlyHint, 'boolean');
        assert.equal(typeof t.annotations?.destructiveHint, 'boolean');
        assert.equal(typeof t.annotations?.idempotentHint, 'boolean');
      }
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      // Derived, not restated: the execution argument is the route's own schema for it.
      const routeJson = z.toJSONSchema(routes['memory.write'].input, { io: 'input', unrepresentable: 'any' }) as any;
      assert.deepEqual(byName.write_memory!.inputSchema.properties!.execution, routeJson.properties.execution);
      assert.deepEqual(byName.start_task!.inputSchema.required, ['query_text']);
      assert.equal(byName.recall_memory!.annotations!.readOnlyHint, true);
      assert.equal(byName.execute_command!.annotations!.destructiveHint, true);
      assert.equal('session_id' in (byName.execute_command!.inputSchema.properties ?? {}), true);
      assert.equal((byName.execute_command!.inputSchema.required ?? []).includes('session_id'), false, 'the session defaults per connection');
    } finally {
      await client.close();
    }
  });

  it('proof 1: three writes, a paraphrase starts with the learned file and tool, recall finds them, another scope sees none', async () => {
    const scope = uniqueName('proj');
    const client = await mcpOverHttp(api.url, { key: keys.a, scope });
    const stranger = await mcpOverHttp(api.url, { key: keys.a, scope: uniqueName('other') });
    try {
      await learnThroughMcp(client, stranger);
    } finally {
      await client.close();
      await stranger.close();
    }
  });

  it('the key decides the tenant: the same scope name under another key sees nothing, and a bound key cannot ask for another tenant', async () => {
    const scope = uniqueName('shared-name');
    const a = await mcpOverHttp(api.url, { key: keys.a, scope });
    const b = await mcpOverHttp(api.url, { key: keys.b, scope });
    try {
      const w = await ok(a, 'write_memory', { input_text: 'the deploy script needs the staging flag', client_id: 'note-1' });
      const mine = await ok(a, 'recall_memory', { query_text: 'deploy staging flag' });
      assert.deepEqual(
        mine.results.map((r: { id: string }) => r.id),
        [w.nodes[0].id],
      );
      const theirs = await ok(b, 'recall_memory', { query_text: 'deploy staging flag' });
      assert.deepEqual(theirs.results, []);
      // A tenant_id or scope argument is not the model's to give: the call is refused naming them, and nothing is written anywhere.
      const sneaky = await callTool(b, 'write_memory', { input_text: 'planted note about staging deploy', tenant_id: tenantA, scope: 'elsewhere' });
      assert.equal(sneaky.isError, true);
      assert.match(sneaky.content[0]!.text!, /unknown argument 'tenant_id' \(set by the connection/);
      assert.match(sneaky.content[0]!.text!, /unknown argument 'scope' \(set by the connection/);
      const planted = (results: { snippet?: string; text?: string }[]) => results.filter((r) => /planted/.test(r.snippet ?? r.text ?? ''));
      assert.deepEqual(planted((await ok(a, 'recall_memory', { query_text: 'planted note staging' })).results), []);
      assert.deepEqual(planted((await ok(b, 'recall_memory', { query_text: 'planted note staging' })).results), []);
      const elsewhere = await api.post(
        '/v1/memory/recall_text',
        { tenant_id: tenantA, scope: 'elsewhere', query_text: 'planted note staging' },
        { authorization: `Bearer ${keys.a}` },
      );
      assert.deepEqual(planted(elsewhere.body.results), []);
      // Without them the same call lands in the key's own tenant and the connection's scope.
      const mine2 = await ok(b, 'write_memory', { input_text: 'planted note about staging deploy' });
      const resolved = await api.post('/v1/memory/resolve', { tenant_id: tenantB, scope, id: mine2.nodes[0].id }, { authorization: `Bearer ${keys.b}` });
      assert.equal(resolved.status, 200, 'it is in the key’s own tenant and the connection’s scope');
    } finally {
      await a.close();
      await b.close();
    }
    await assert.rejects(mcpOverHttp(api.url, { key: keys.a, scope, headers: { 'x-lore-tenant': tenantB } }), /403|forbidden/i);
    // An unbound key may name its tenant.
    const ops = await mcpOverHttp(api.url, { key: keys.unbound, scope, headers: { 'x-lore-tenant': tenantA } });
    try {
      const seen = await ok(ops, 'recall_memory', { query_text: 'deploy staging flag' });
      assert.equal(seen.results.length, 1);
    } finally {
      await ops.close();
    }
  });

  it('refuses a request without a valid key, with the contract envelope', async () => {
    const res = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as any).error.code, 'unauthorized');
    await assert.rejects(mcpOverHttp(api.url, { key: 'not-a-key' }), /401|unauthorized/i);
  });

  it('proof 4: wrong argument types are a tool error naming the field, and the connection stays usable', async () => {
    const client = await mcpOverHttp(api.url, { key: keys.a, scope: uniqueName('bad') });
    try {
      const bad = await callTool(client, 'recall_memory', { query_text: 'x', limit: 'ten' });
      assert.equal(bad.isError, true);
      assert.match(bad.content[0]!.text!, /limit/);
      const nested = await callTool(client, 'write_memory', { execution: { goal: 'g', steps: [{ tool: 7 }] } });
      assert.equal(nested.isError, true);
      assert.match(nested.content[0]!.text!, /execution.*steps.*tool|steps.*0.*tool/s);
      const missing = await callTool(client, 'start_task', {});
      assert.equal(missing.isError, true);
      assert.match(missing.content[0]!.text!, /query_text/);
      const notFound = await callTool(client, 'get_run', { run_id: 'no-such-run' });
      assert.equal(notFound.isError, true);
      assert.match(notFound.content[0]!.text!, /not_found/);
      // Same connection, still serving.
      const fine = await ok(client, 'recall_memory', { query_text: 'anything at all' });
      assert.deepEqual(fine.results, []);
    } finally {
      await client.close();
    }
  });

  it('a client on the 2026-07-28 revision (the v2 SDK Client) gets the same tools, bound the same way', async () => {
    const scope = uniqueName('modern');
    const connect = async (key: string, s: string) => {
      const c = new ClientV2({ name: 'lore-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      const t = new HttpV2(new URL(`${api.url}/mcp?scope=${s}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
      await c.connect(t);
      assert.equal(t.protocolVersion, '2026-07-28');
      return c;
    };
    const a = await connect(keys.a, scope);
    const b = await connect(keys.b, scope);
    try {
      const { tools } = await a.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...EXPECTED_TOOLS].sort());
      const w = (await a.callTool({ name: 'write_memory', arguments: { input_text: 'modern clients write here too' } })) as any;
      assert.notEqual(w.isError, true, JSON.stringify(w));
      const mine = (await a.callTool({ name: 'recall_memory', arguments: { query_text: 'modern clients write' } })) as any;
      assert.deepEqual(
        mine.structuredContent.results.map((r: { id: string }) => r.id),
        [w.structuredContent.nodes[0].id],
      );
      const theirs = (await b.callTool({ name: 'recall_memory', arguments: { query_text: 'modern clients write' } })) as any;
      assert.deepEqual(theirs.structuredContent.results, []);
      const bad = (await a.callTool({ name: 'recall_memory', arguments: { query_text: 'x', limit: 'ten' } })) as any;
      assert.equal(bad.isError, true);
      assert.match(bad.content[0].text, /limit/);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('handoffs and planning through their tools', async () => {
    const client = await mcpOverHttp(api.url, { key: keys.a, scope: uniqueName('handoff') });
    try {
      const stored = await ok(client, 'store_handoff', {
        anchor: 'branch/fix-retry',
        summary: 'retry loop half rewritten',
        target_files: ['src/jobs/worker.ts'],
        next_action: 'finish the backoff in src/jobs/worker.ts',
      });
      assert.equal(stored.handoff.anchor, 'branch/fix-retry');
      const back = await ok(client, 'recover_handoff', { anchor: 'branch/fix-retry' });
      assert.equal(back.handoff.next_action, 'finish the backoff in src/jobs/worker.ts');
      assert.deepEqual(back.handoff.target_files, ['src/jobs/worker.ts']);
      const plan = await ok(client, 'plan_task', { query_text: 'finish the retry backoff', char_budget: 2000 });
      assert.equal(typeof plan.context_text, 'string');
      assert.ok(plan.budget.used <= 2000);
      const fb = await ok(client, 'report_tool_outcome', { query_text: 'finish the retry backoff', selected_tool: 'edit', outcome: 'positive', run_id: 'r-1' });
      assert.equal(fb.pattern.tool, 'edit');
    } finally {
      await client.close();
    }
  });
});
