import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { uniqueName } from '../helpers/app';
import { pollFor } from '../helpers/wait';
import { callTool, mcpOverHttp, ok, startListeningApi, type ListeningApi } from './helpers';

/** The tools that reach workflows: get_run / resume_run on a paused automation, execute_command in the sandbox. */
describe('MCP tools on automation runs and the sandbox (a real worker)', () => {
  let api: ListeningApi;
  let client: Client;
  const scope = uniqueName('ops');
  before(async () => {
    api = await startListeningApi({ worker: true });
    client = await mcpOverHttp(api.url, { scope });
  });
  after(async () => {
    await client?.close();
    await api?.close();
  });

  it('get_run shows a run paused at its approval; resume_run approves it, recorded as the MCP actor; again is invalid_state', async () => {
    const automation_id = uniqueName('gate');
    const graph = { nodes: [{ node_id: 'approve', kind: 'approval', approval_key: 'ship' }], edges: [] };
    assert.equal((await api.post('/v1/automations/create', { scope, automation_id, name: automation_id, graph })).status, 200);
    const started = await api.post('/v1/automations/run', { scope, automation_id });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const run_id = started.body.run_id as string;

    const paused = await pollFor(
      'the run to pause',
      async () => {
        const r = await ok(client, 'get_run', { run_id });
        return r.run.status === 'paused' ? r : null;
      },
      90_000,
      200,
    );
    assert.deepEqual(paused.run.paused_nodes, ['approve']);

    const resumed = await ok(client, 'resume_run', { run_id, reason: 'approved by the user in chat' });
    assert.deepEqual(resumed.resumed_node_ids, ['approve']);
    const done = await pollFor(
      'the run to succeed',
      async () => {
        const r = await ok(client, 'get_run', { run_id, include_nodes: true });
        return r.run.status === 'succeeded' ? r : null;
      },
      90_000,
      200,
    );
    assert.equal(done.run.resumes[0].actor, 'mcp');
    assert.equal(done.run.resumes[0].reason, 'approved by the user in chat');

    const again = await callTool(client, 'resume_run', { run_id, reason: 'twice' });
    assert.equal(again.isError, true);
    assert.match(again.content[0]!.text!, /invalid_state/);
  });

  it('execute_command runs in one sandbox session per connection by default, so files persist between calls', async () => {
    const first = await ok(client, 'execute_command', { action: { kind: 'command', argv: ['sh', '-c', 'echo from-lore > note.txt && cat note.txt'] } });
    assert.equal(first.completed, true);
    assert.equal(first.run.exit_code, 0, JSON.stringify(first.run));
    assert.match(first.run.stdout_tail, /from-lore/);
    const second = await ok(client, 'execute_command', { action: { kind: 'command', argv: ['cat', 'note.txt'] } });
    assert.equal(second.run.session_id, first.run.session_id);
    assert.match(second.run.stdout_tail, /from-lore/);
    const failing = await ok(client, 'execute_command', { action: { kind: 'command', argv: ['sh', '-c', 'exit 3'] } });
    assert.equal(failing.run.exit_code, 3, 'a failed command is a result, not a tool error');
    const bad = await callTool(client, 'execute_command', { action: { kind: 'command', argv: [] } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0]!.text!, /argv/);
  });
});
