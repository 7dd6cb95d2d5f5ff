import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { ok, writeExecution } from './helpers';

/**
 * Proof 1: the second task start is better. Cold start gives no grounded action; after a few
 * successful executions of a task family, a reworded task gets the learned file and tool,
 * history_applied true, with the evidence it rests on.
 */
describe('second task start is better', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  it('cold start: no first action, high uncertainty that says to look wider', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('cold') };
    const body = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: 'fix flaky retry in worker.ts', candidates: ['read', 'edit', 'test'] });
    assert.equal(body.first_action, null);
    assert.equal(body.kickoff_recommendation.history_applied, false);
    assert.equal(body.uncertainty.level, 'high');
    assert.deepEqual(body.uncertainty.recommended_actions, ['widen_recall', 'inspect_context']);
    const retrieval = await ok(api, '/v1/memory/action/retrieval', { ...id, query_text: 'fix flaky retry in worker.ts' });
    assert.equal(retrieval.next_action, null);
    assert.equal(retrieval.gate_action, 'widen_recall');
    assert.deepEqual(retrieval.evidence, []);
  });

  it('after three successful runs a rewording gets the learned file and tool, with evidence', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('warm') };
    const runs = ['fix flaky retry in worker.ts', 'fix the flaky retry test for the worker', 'resolve flaky retries in the job worker'];
    const written: string[] = [];
    for (const [i, goal] of runs.entries()) {
      const w = await writeExecution(api, id, {
        goal,
        run_id: `run-${i}`,
        steps: [
          { tool: 'read', file_path: 'src/jobs/worker.ts' },
          { tool: 'edit', file_path: 'src/jobs/worker.ts' },
          { tool: 'test', command: 'npm test -- worker' },
        ],
        next_action: 'read the retry loop in src/jobs/worker.ts',
      });
      written.push(w.nodes[0].id);
      if (i >= 1) assert.equal(w.learning.workflows_updated.length, 1, `run ${i} should update the workflow: ${JSON.stringify(w.learning)}`);
    }
    // Unrelated work in between must not match.
    await writeExecution(api, id, { goal: 'add dark mode toggle to the settings page', steps: [{ tool: 'edit', file_path: 'web/settings.tsx' }] });

    const body = await ok(api, '/v1/memory/kickoff/recommendation', {
      ...id,
      query_text: 'the flaky retry in the worker fails again',
      candidates: ['read', 'edit', 'test', 'bash'],
    });
    const fa = body.first_action;
    assert.ok(fa, `expected a first action: ${JSON.stringify(body)}`);
    assert.equal(fa.file_path, 'src/jobs/worker.ts');
    assert.equal(fa.selected_tool, 'read');
    assert.equal(fa.history_applied, true);
    assert.equal(fa.source_kind, 'stable_workflow');
    assert.ok(fa.evidence_ids.length >= 2);
    assert.ok(
      written.some((w) => fa.evidence_ids.includes(w)),
      'evidence names the executions it was learned from',
    );
    assert.equal(body.kickoff_recommendation.history_applied, true);
    assert.equal(body.kickoff_recommendation.file_path, 'src/jobs/worker.ts');
    assert.notEqual(body.uncertainty.level, 'high');

    // An unrelated task still gets nothing.
    const other = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: 'translate the onboarding emails to German', candidates: ['read', 'edit'] });
    assert.equal(other.first_action, null);
  });
});
