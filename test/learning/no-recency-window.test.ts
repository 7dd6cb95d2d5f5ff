import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { familyDeps } from '../../src/app/modules';
import { familySettings } from '../../src/app/settings';
import { createLearningModule } from '../../src/domain/learning/module';
import { ok, writeExecution } from './helpers';

/**
 * Learned workflows and trusted patterns are found by task similarity through an index, never by
 * a recency window: 10,000 unrelated writes after learning change nothing about them.
 */
describe('10,000 unrelated writes do not hide what was learned', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  it('the workflow and the trusted pattern are still applied', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('window') };
    for (const [i, goal] of ['fix flaky retry in worker.ts', 'flaky retry test in the job worker', 'worker retry logic is nondeterministic'].entries()) {
      await writeExecution(api, id, {
        goal,
        task_kind: 'fix_flaky_test',
        run_id: `r${i}`,
        steps: [
          { tool: 'read', file_path: 'src/jobs/worker.ts' },
          { tool: 'edit', file_path: 'src/jobs/worker.ts' },
        ],
      });
    }
    for (const r of ['f1', 'f2', 'f3']) {
      await ok(api, '/v1/memory/tools/feedback', {
        ...id,
        outcome: 'positive',
        selected_tool: 'edit',
        run_id: r,
        input_text: 'fix flaky retry in worker.ts',
        context: { task_kind: 'fix_flaky_test' },
      });
    }
    const query = { ...id, query_text: 'fix the flaky retry in the job worker', candidates: ['read', 'edit', 'test'] };
    const before = await ok(api, '/v1/memory/kickoff/recommendation', query);
    assert.equal(before.first_action?.file_path, 'src/jobs/worker.ts');

    // 10,000 unrelated executions and notes, 200 per write.
    const areas = ['billing', 'search', 'geo', 'pdf', 'email', 'checkout', 'audit', 'graphql', 'inventory', 'shipping'];
    const verbs = ['add', 'document', 'rename', 'localise', 'remove', 'migrate'];
    for (let b = 0; b < 50; b += 1) {
      const nodes = Array.from({ length: 200 }, (_, k) => {
        const i = b * 200 + k;
        const area = areas[i % areas.length]!;
        const verb = verbs[(i >> 3) % verbs.length]!;
        return {
          client_id: `noise-${i}`,
          type: 'event',
          title: `${verb} the ${area} export column ${i}`,
          text_summary: `${verb} ${area} column n${i} in app/${area}/columns.py; outcome success`,
          slots: { task_kind: `${verb}_${area}`, file_path: `app/${area}/columns.py`, tool_sequence: ['edit'], outcome_status: i % 3 === 0 ? 'failure' : 'success' },
        };
      });
      const res = await api.post('/v1/memory/write', { ...id, nodes });
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
    }

    const afterK = await ok(api, '/v1/memory/kickoff/recommendation', query);
    assert.equal(afterK.first_action?.file_path, 'src/jobs/worker.ts');
    assert.equal(afterK.first_action?.selected_tool, 'read');
    assert.equal(afterK.first_action?.workflow_id, before.first_action.workflow_id);
    const ei = await ok(api, '/v1/memory/experience/intelligence', query);
    assert.equal(ei.selected_tool, 'edit');
    assert.ok(ei.policy_memory?.node_id, 'the persisted policy still applies');
    const sel = await ok(api, '/v1/memory/tools/select', query);
    const edit = sel.ranking.find((t: any) => t.tool === 'edit');
    assert.ok(edit.source_kinds.includes('trusted_pattern'), JSON.stringify(edit));

    // A fresh learning module (as after a restart: state loaded from the store) finds them too.
    const fresh = createLearningModule(
      familyDeps(api.deps),
      { memory: api.modules.memory.services, lifecycle: api.modules.lifecycle.services },
      familySettings(api.deps.config).learning,
    );
    await fresh.start?.();
    try {
      const ctx = { tenant_id: id.tenant_id, scope: id.scope, actor: 't', requestId: 'r', signal: new AbortController().signal };
      const again = await fresh.handlers['learning.kickoffRecommendation']({ ...query, actor: 't', context: null, tool_candidates: null }, ctx);
      assert.equal(again.first_action?.workflow_id, before.first_action.workflow_id);
    } finally {
      await fresh.stop?.();
    }
  });
});
