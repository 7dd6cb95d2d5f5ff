/**
 * The MCP side of guided playbook runs (issue 29 over issue 26): a model asks which host step a
 * run waits for (next_playbook_step), performs it, and reports it (complete_playbook_step); the
 * run goes on to the next host step and ends. Refusals come back as tool errors naming the state,
 * and a connection bound to another scope cannot see or drive the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { uniqueName } from '../helpers/app';
import { compile, hostRun, ok as post } from '../replay/helpers';
import { callTool, mcpOverHttp, ok, startListeningApi, type ListeningApi } from './helpers';

describe('next_playbook_step and complete_playbook_step drive a guided playbook run', () => {
  let api: ListeningApi;
  let client: Client;
  let stranger: Client;
  const scope = uniqueName('guided');
  before(async () => {
    api = await startListeningApi({ worker: true });
    client = await mcpOverHttp(api.url, { scope });
    stranger = await mcpOverHttp(api.url, { scope: uniqueName('elsewhere') });
  });
  after(async () => {
    await client?.close();
    await stranger?.close();
    await api?.close();
  });

  it('the run waits for each host step, the model reports it, and the run ends', { timeout: 300_000 }, async () => {
    const who = { scope };
    const recorded = await hostRun(api, uniqueName('rec'), who);
    const recordedSteps = recorded.run.step_count as number;
    assert.ok(recordedSteps >= 2, 'the recorded run has host steps to replay');
    await compile(api, recorded.run.run_id, 'mcp-guided', {}, who);
    await post(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'mcp-guided', target_status: 'active' }, who);
    const started = await post(api, '/v1/memory/replay/playbooks/run', { playbook_id: 'mcp-guided', mode: 'guided', run_id: 'mcp-guided-1' }, who);
    assert.equal(started.completed, false);

    let next = await ok(client, 'next_playbook_step', { run_id: 'mcp-guided-1' });
    assert.equal(next.run_id, 'mcp-guided-1');
    assert.equal(next.pending_step.step_index, 0);
    assert.equal(next.pending_step.tool_name, started.pending_step.tool_name);
    assert.deepEqual(next.pending_step.tool_input, started.pending_step.tool_input);

    // Another scope's connection sees no such run and cannot report a step of it.
    const unseen = await callTool(stranger, 'next_playbook_step', { run_id: 'mcp-guided-1' });
    assert.equal(unseen.isError, true);
    assert.match(unseen.content[0]!.text!, /not_found/);
    const foreign = await callTool(stranger, 'complete_playbook_step', { run_id: 'mcp-guided-1', step_index: 0, status: 'success' });
    assert.equal(foreign.isError, true);
    assert.match(foreign.content[0]!.text!, /not_found/);

    // The wrong step is refused and the connection stays usable.
    const wrong = await callTool(client, 'complete_playbook_step', { run_id: 'mcp-guided-1', step_index: 5, status: 'success' });
    assert.equal(wrong.isError, true);
    assert.match(wrong.content[0]!.text!, /invalid_state/);

    for (let i = 0; i < recordedSteps; i += 1) {
      assert.equal(next.pending_step?.step_index, i, `the run waits at step ${i}`);
      const done = await ok(client, 'complete_playbook_step', { run_id: 'mcp-guided-1', step_index: i, status: 'success', output_signature: { summary: `did step ${i}` } });
      assert.equal(done.step.status, 'success');
      if (i < recordedSteps - 1) {
        assert.equal(done.completed, false);
        assert.equal(done.pending_step.step_index, i + 1);
        next = await ok(client, 'next_playbook_step', { run_id: 'mcp-guided-1' });
      } else {
        assert.equal(done.completed, true, JSON.stringify(done));
        assert.equal(done.pending_step, null);
      }
    }
    const ended = await ok(client, 'next_playbook_step', { run_id: 'mcp-guided-1' });
    assert.equal(ended.pending_step, null);
    assert.equal(ended.state, 'ended');
    assert.equal(ended.status, 'success');
    const twice = await callTool(client, 'complete_playbook_step', { run_id: 'mcp-guided-1', step_index: 0, status: 'success' });
    assert.equal(twice.isError, true, 'a finished run takes no more reports');
    assert.match(twice.content[0]!.text!, /invalid_state/);
  });
});
