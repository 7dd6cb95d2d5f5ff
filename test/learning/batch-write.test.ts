import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { ok } from './helpers';

/**
 * A write of many executions at once is learned as one batch: every workflow it changes is
 * stored once, with all of the batch's observations, before the write is answered.
 */
describe('learning from a batch write', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const FAMILIES = {
    retry: {
      task_kind: 'fix_flaky_test',
      file: 'src/jobs/worker.ts',
      tools: ['read', 'edit'],
      goals: ['fix flaky retry in the job worker', 'worker retry test fails at random', 'flaky retry logic in worker.ts', 'retry in the worker is nondeterministic'],
    },
    export: {
      task_kind: 'add_export',
      file: 'src/billing/export.py',
      tools: ['edit', 'test'],
      goals: ['add CSV export for invoices', 'invoices should be exportable as CSV', 'export invoice data to CSV files', 'CSV download of billing invoices'],
    },
  };
  const execution = (i: number, family: keyof typeof FAMILIES) => {
    const f = FAMILIES[family];
    return {
      client_id: `${family}-${i}`,
      type: 'event',
      title: f.goals[i % f.goals.length],
      text_summary: `${f.goals[i % f.goals.length]} in ${f.file}; outcome success`,
      slots: { task_kind: f.task_kind, file_path: f.file, tool_sequence: f.tools, outcome_status: 'success' },
    };
  };

  /** Counts the workflow updates learning sends to the node store. */
  function countWorkflowUpdates(): { count: () => number; restore: () => void } {
    const services = api.modules.memory.services;
    const original = services.nodes;
    let n = 0;
    services.nodes = ((ref: Parameters<typeof original>[0]) => {
      const scoped = original.call(services, ref);
      const update = scoped.update.bind(scoped);
      scoped.update = (id, change, ...rest) => {
        if (change.set && 'slots.workflow_v1' in change.set) n += 1;
        return update(id, change, ...rest);
      };
      return scoped;
    }) as typeof original;
    return { count: () => n, restore: () => (services.nodes = original) };
  }

  it('stores each changed workflow once, with every observation, before answering', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('batch') };
    const spy = countWorkflowUpdates();
    try {
      // Two families of six executions each, interleaved, in one write.
      const nodes = Array.from({ length: 12 }, (_, i) => execution(i >> 1, i % 2 === 0 ? 'retry' : 'export'));
      const res = await ok(api, '/v1/memory/write', { ...id, nodes });
      assert.equal(res.nodes.length, 12);

      // Read straight from the store: what a restarted process would load.
      const stored = await api.db.db.collection('memory_nodes').find({ tenant_id: id.tenant_id, scope: id.scope, kind: 'workflow' }).toArray();
      assert.equal(stored.length, 2, 'one workflow per family');
      const ids = new Map((res.nodes as { id: string; client_id: string }[]).map((w) => [w.client_id, w.id]));
      for (const wf of stored) {
        const slot = wf.slots.workflow_v1;
        const area = slot.task_kind === 'add_export' ? 'export' : 'retry';
        assert.equal(slot.counts.observations, 6, `${area}: every observation of the batch is stored`);
        const expected = Array.from({ length: 6 }, (_, i) => ids.get(`${area}-${i}`)).sort();
        assert.deepEqual([...slot.provenance_ids].sort(), expected);
      }
      // Each workflow is founded by a pair (created), then updated once for the rest of the batch.
      assert.equal(spy.count(), 2, 'one update per workflow for the whole batch');
    } finally {
      spy.restore();
    }

    // The state this process kept is the stored one: planning applies the learned first move.
    const k = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: 'the worker retry is flaky', context: { task_kind: 'fix_flaky_test' } });
    assert.equal(k.first_action?.file_path, 'src/jobs/worker.ts');
  });

  it('a single-node write is still stored through at once', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('single') };
    await ok(api, '/v1/memory/write', { ...id, nodes: [execution(0, 'retry'), execution(1, 'retry')] });
    const spy = countWorkflowUpdates();
    try {
      const res = await ok(api, '/v1/memory/write', { ...id, nodes: [execution(2, 'retry')] });
      assert.equal(spy.count(), 1);
      const wf = await api.db.db.collection('memory_nodes').findOne({ tenant_id: id.tenant_id, scope: id.scope, kind: 'workflow' });
      assert.ok(wf?.slots.workflow_v1.provenance_ids.includes(res.nodes[0].id));
      assert.equal(wf?.slots.workflow_v1.counts.observations, 3);
    } finally {
      spy.restore();
    }
  });
});
