import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { ok, writeExecution } from './helpers';

/** The planning surfaces' shapes and behaviour beyond the proofs: assembly budgets, retrieval evidence, continuity, loadgen bodies. */
describe('planning surfaces', () => {
  let api: TestApi;
  const id = { tenant_id: 'acme', scope: uniqueName('surf') };
  before(async () => {
    api = await startTestApi();
    for (const [i, goal] of ['fix flaky retry in worker.ts', 'flaky retry test in the job worker', 'worker retry is nondeterministic'].entries()) {
      await writeExecution(api, id, {
        goal,
        task_kind: 'fix_flaky_test',
        run_id: `r${i}`,
        steps: [{ tool: 'read', file_path: 'src/jobs/worker.ts' }, { tool: 'edit', file_path: 'src/jobs/worker.ts' }, { tool: 'test' }],
      });
    }
    for (let i = 0; i < 8; i += 1)
      await ok(api, '/v1/memory/write', {
        ...id,
        input_text: `Retry notes ${i}: the worker retry loop uses exponential backoff with jitter; see src/jobs/worker.ts and the retry policy document.`,
      });
  });
  after(async () => api?.close());

  it('planning/context answers the loadgen body (extra fields ignored) with every section', async () => {
    const body = await ok(api, '/v1/memory/planning/context', {
      ...id,
      query_text: 'How did we fix the flaky retry problem in the worker?',
      context: { goal: 'fix flaky retry in worker', task_kind: 'fix_flaky_test' },
      tool_candidates: ['read', 'edit', 'test', 'bash'],
      return_layered_context: true,
      consumer_agent_id: 'bench-agent',
    });
    assert.equal(body.kickoff_recommendation.file_path, 'src/jobs/worker.ts');
    assert.equal(body.planner_packet.sections.recommended_workflows.length, 1);
    assert.ok(body.planner_packet.sections.supporting_knowledge.length > 0);
    assert.match(body.planner_packet.merged_text, /First action: read src\/jobs\/worker.ts/);
    assert.equal(body.workflow_signals[0].task_kind_match, 'match');
    assert.equal(body.planning_summary.counts.stable_workflows, 1);
    assert.equal(body.planning_summary.selected_tool, 'read');
    assert.equal(typeof body.planning_summary.forgetting_summary.recommended_action, 'string');
    assert.match(body.planning_summary.planner_explanation, /^Start with read src\/jobs\/worker.ts/);
    assert.ok(body.layered_context.layers.some((l: any) => l.name === 'workflows'));
    const plain = await ok(api, '/v1/memory/planning/context', { ...id, query_text: 'retry in worker', return_layered_context: false });
    assert.equal(plain.layered_context, undefined);
  });

  it('kickoff/recommendation answers the loadgen body', async () => {
    const body = await ok(api, '/v1/memory/kickoff/recommendation', {
      ...id,
      query_text: 'previous attempt to resolve flaky retry touching worker.ts',
      context: { goal: 'fix flaky retry', task_kind: 'fix_flaky_test' },
      candidates: ['read', 'edit', 'test', 'bash'],
      consumer_agent_id: 'x',
    });
    assert.equal(body.kickoff_recommendation.history_applied, true);
    assert.equal(body.kickoff_recommendation.selected_tool, 'read');
    assert.equal(body.first_action.action_kind, 'file_step');
    // A candidate list without the learned first tool moves to the first usable step.
    const noRead = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: 'fix flaky retry in worker', candidates: ['edit', 'bash'] });
    assert.equal(noRead.first_action.selected_tool, 'edit');
    assert.match(noRead.first_action.rationale, /step 2/);
  });

  it('context/assemble stays within its budget and says what it dropped', async () => {
    const full = await ok(api, '/v1/memory/context/assemble', { ...id, query_text: 'fix flaky retry in worker', char_budget: 20000 });
    assert.ok(full.context_text.includes('## First action'));
    assert.ok(full.sources.length >= 2);
    const small = await ok(api, '/v1/memory/context/assemble', { ...id, query_text: 'fix flaky retry in worker', char_budget: 300 });
    assert.ok(small.context_text.length <= 300, `${small.context_text.length} chars`);
    assert.equal(small.budget.limit, 300);
    assert.equal(small.budget.used, small.context_text.length);
    assert.ok(small.dropped.length > 0);
    assert.match(small.dropped[0].reason, /300-character budget/);
    const tokens = await ok(api, '/v1/memory/context/assemble', { ...id, query_text: 'fix flaky retry in worker', token_budget: 100 });
    assert.equal(tokens.budget.unit, 'tokens');
    assert.ok(tokens.budget.used <= 100);
    assertError(await api.post('/v1/memory/context/assemble', { ...id, char_budget: 'lots' }), 400, 'invalid_request');
  });

  it('action/retrieval lists the evidence the action rests on, first', async () => {
    const r = await ok(api, '/v1/memory/action/retrieval', { ...id, query_text: 'worker retries are flaky', context: { task_kind: 'fix_flaky_test' } });
    assert.equal(r.file_path, 'src/jobs/worker.ts');
    assert.equal(r.source_kind, 'stable_workflow');
    assert.equal(r.evidence[0].source_kind, 'stable_workflow');
    assert.equal(r.gate_action, 'proceed');
    assert.equal(r.uncertainty.level, 'low');
  });

  it('continuity/review-pack by anchor', async () => {
    const sid = { tenant_id: 'acme', scope: uniqueName('cont') };
    await ok(api, '/v1/memory/sessions/create', { ...sid, session_id: 's-1', title: 'retry fix' });
    await ok(api, '/v1/memory/sessions/events/append', { ...sid, session_id: 's-1', event_type: 'resume', input_text: 'resumed from handoff retry-fix' });
    await ok(api, '/v1/memory/sessions/events/append', {
      ...sid,
      session_id: 's-1',
      event_type: 'step',
      input_text: 'ran npm test -- worker',
      execution: { steps: [{ tool: 'test' }], outcome: 'failure', error_signature: 'AssertionError: expected 3 retries' },
    });
    await ok(api, '/v1/memory/handoff/store', {
      ...sid,
      anchor: 'retry-fix',
      summary: 'bounded backoff half done',
      target_files: ['src/jobs/worker.ts'],
      next_action: 'finish the jitter in src/jobs/worker.ts',
      acceptance_checks: ['npm test -- worker'],
      rollback_notes: ['git checkout src/jobs/worker.ts'],
      session_id: 's-1',
    });
    const pack = (await ok(api, '/v1/memory/continuity/review-pack', { ...sid, anchor: 'retry-fix' })).continuity_review_pack;
    assert.deepEqual(pack.review_contract.target_files, ['src/jobs/worker.ts']);
    assert.equal(pack.review_contract.next_action, 'finish the jitter in src/jobs/worker.ts');
    assert.deepEqual(pack.review_contract.acceptance_checks, ['npm test -- worker']);
    assert.deepEqual(pack.review_contract.rollback_expectations, ['git checkout src/jobs/worker.ts']);
    assert.equal(pack.latest_resume.event_type, 'resume');
    assert.equal(pack.latest_terminal_run.outcome, 'failure');
    assert.equal(pack.review_contract.resume_ready, false);
    assert.ok(pack.review_contract.blockers.some((b: string) => b.includes('latest run failed')));
    assert.equal(pack.recovered_handoff.anchor, 'retry-fix');
    assert.equal(pack.latest_handoff.handoff_id, pack.recovered_handoff.handoff_id);
    assertError(await api.post('/v1/memory/continuity/review-pack', { ...sid, anchor: 'nope' }), 404, 'not_found');
    assertError(await api.post('/v1/memory/continuity/review-pack', { ...sid }), 400, 'invalid_request');
  });
});
