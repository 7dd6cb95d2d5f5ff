import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { SandboxHosts, type SandboxHostReport } from '../../src/store/sandbox/index';
import { uniqueName } from '../helpers/app';
import { pollFor } from '../helpers/wait';
import { callTool, mcpOverHttp, ok, startListeningApi, type ListeningApi } from './helpers';

/**
 * MCP says exactly what is true (issue 39): an argument a tool does not take is an error naming
 * it and the accepted ones, never dropped; execute_command is listed only where commands can run,
 * and its description states the isolation the worker reports now.
 */
describe('MCP is exact', () => {
  let api: ListeningApi;
  before(async () => {
    // No worker: the sandbox's state is what the test writes as the worker's report.
    api = await startListeningApi();
  });
  after(async () => api?.close());

  it('an unknown argument is a tool error naming it and the accepted ones; nothing is done', async () => {
    const scope = uniqueName('exact');
    const client = await mcpOverHttp(api.url, { scope });
    try {
      const typo = await callTool(client, 'recall_memory', { query_text: 'retry', limt: 3 });
      assert.equal(typo.isError, true);
      assert.match(typo.content[0]!.text!, /unknown argument 'limt'; recall_memory accepts: query_text, limit, types, kinds, tags, include_archived/);

      const elsewhere = uniqueName('elsewhere');
      const bound = await callTool(client, 'write_memory', { input_text: 'meant for another scope', scope: elsewhere, nodes: [{ text: 'x' }] });
      assert.equal(bound.isError, true);
      assert.match(bound.content[0]!.text!, /unknown argument 'scope' \(set by the connection/);
      assert.match(bound.content[0]!.text!, /unknown argument 'nodes'/);
      for (const s of [scope, elsewhere]) {
        const recalled = await api.post('/v1/memory/recall_text', { scope: s, query_text: 'meant for another scope' });
        assert.deepEqual(recalled.body.results, [], `nothing written in ${s}`);
      }
      // The same call without them works on the same connection.
      const written = await ok(client, 'write_memory', { input_text: 'meant for this scope' });
      assert.equal(written.nodes.length, 1);
    } finally {
      await client.close();
    }
  });

  describe('execute_command follows the sandbox as the worker reports it', () => {
    const report = (in_force: SandboxHostReport['in_force'], setting: SandboxHostReport['setting'] = 'auto'): SandboxHostReport => ({
      _id: api.config.temporal.taskQueue,
      enabled: true,
      setting,
      in_force,
      bubblewrap_version: in_force === 'bubblewrap' ? '0.11.0' : null,
      uid_isolation: true,
      memory_limit: 'cgroup',
      detail: in_force === 'unavailable' ? 'bubblewrap cannot create a user namespace here' : null,
      sandbox_dir: api.config.sandbox.dir,
      sandbox_dir_problem: null,
      hostname: hostname(),
      pid: process.pid,
      reported_at: new Date().toISOString(),
    });
    const listed = async () => {
      const client = await mcpOverHttp(api.url, { scope: uniqueName('sbx') });
      try {
        return (await client.listTools()).tools.find((t) => t.name === 'execute_command') ?? null;
      } finally {
        await client.close();
      }
    };

    it('no worker has reported: listed, without claiming an isolation', async () => {
      const tool = await listed();
      assert.ok(tool);
      assert.match(tool.description ?? '', /has not reported yet which isolation/);
    });

    it('bubblewrap does not work (Lore refuses commands): not listed', async () => {
      await new SandboxHosts(api.db).put(report('unavailable'));
      await pollFor('execute_command to leave the list', async () => (await listed()) === null);
      const health = await api.get('/health');
      assert.equal(health.body.sandbox.available, false, '/health agrees');
    });

    it('LORE_SANDBOX_ISOLATION=none: listed, saying it runs on the host without isolation', async () => {
      await new SandboxHosts(api.db).put(report('none', 'none'));
      const tool = await pollFor('execute_command to come back', listed);
      assert.match(tool.description ?? '', /NOT isolated/);
      assert.match(tool.description ?? '', /host’s network/);
      assert.doesNotMatch(tool.description ?? '', /no network/);
    });

    it('bubblewrap works: listed, isolated', async () => {
      await new SandboxHosts(api.db).put(report('bubblewrap'));
      const tool = await pollFor('the bubblewrap description', async () => {
        const t = await listed();
        return t && /isolated by bubblewrap/.test(t.description ?? '') ? t : null;
      });
      assert.match(tool.description ?? '', /no network, a read-only system/);
    });
  });
});
