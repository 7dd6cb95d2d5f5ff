import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uuidv7 } from '../../src/model/ids';
import { SA } from '../../src/model/search-attributes';
import { startTestApi, type TestApi } from '../helpers/app';

describe('engine round trip: Engine → Temporal → worker → activity → MongoDB → result', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ worker: true });
  });
  after(async () => api?.close());

  it('runs a workflow whose activity writes and reads MongoDB, labelled for the Temporal UI', async () => {
    const probeId = uuidv7();
    const workflowId = `probe/${probeId}`;
    const result = await api.engine.execute<{ probe_id: string; stored_at: string }>(
      { workflowType: 'roundTripWorkflow', workflowId, args: [probeId], labels: { tenant_id: 'acme', scope: 'probe', kind: 'pack_import' } },
      60_000,
    );
    assert.equal(result.probe_id, probeId);
    assert.equal(result.stored_at, api.clock.now().toISOString());
    const stored = await api.db.db.collection<{ _id: string }>('system_probes').findOne({ _id: probeId });
    assert.ok(stored, 'the activity wrote to MongoDB');
    const described = await api.engine.describe(workflowId);
    assert.equal(described?.state, 'completed');
    // Operators filter runs by Lore's search attributes.
    const handle = api.engine.client.workflow.getHandle(workflowId);
    const info = await handle.describe();
    assert.equal(info.typedSearchAttributes.get(SA.tenant), 'acme');
    assert.equal(info.typedSearchAttributes.get(SA.runKind), 'pack_import');
  });

  it('maps an unknown workflow id to not_found', async () => {
    await assert.rejects(api.engine.result('probe/does-not-exist', 5000), (err: Error & { code?: string }) => err.code === 'not_found');
  });

  it('counts the start in /metrics', async () => {
    const res = await api.get('/metrics');
    assert.match(res.body, /lore_workflow_starts_total\{workflow_type="roundTripWorkflow"\} [1-9]/);
  });
});
