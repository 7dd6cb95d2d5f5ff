import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, type Identity } from '../helpers/isolation';
import { ok, writeExecution } from './helpers';

/**
 * Review packs answer their question from what exists (docs/learning.md, "Review packs"): the
 * continuity pack of an anchor with no structured handoff is assembled from the evidence that
 * names it, and its latest terminal run is a run of that task; every evolution recommendation
 * carries a payload its route accepts, and the last governance apply shows in the pack.
 */
describe('review packs from what exists', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const ANCHOR = 'ledger-sync-42';

  /** A recorded replay run: run/start → step/before/after per tool → run/end. */
  async function replayRun(id: Identity, runId: string, goal: string, steps: { tool: string; file: string }[], status: string, metadata?: Record<string, unknown>) {
    await ok(api, '/v1/memory/replay/run/start', { ...id, run_id: runId, goal, ...(metadata ? { metadata } : {}) });
    for (const [i, s] of steps.entries()) {
      await ok(api, '/v1/memory/replay/step/before', { ...id, run_id: runId, step_index: i, tool_name: s.tool, tool_input: { file_path: s.file } });
      await ok(api, '/v1/memory/replay/step/after', {
        ...id,
        run_id: runId,
        step_index: i,
        status: status === 'failure' && i === steps.length - 1 ? 'failed' : 'success',
        ...(status === 'failure' ? { error: 'AssertionError: totals differ by 0.01' } : {}),
      });
    }
    await ok(api, '/v1/memory/replay/run/end', { ...id, run_id: runId, status, summary: `${goal}: ${status}` });
  }

  async function seedAnchor(id: Identity) {
    const tick = () => api.clock.advance(60_000);
    // Free-text evidence that names the anchor (no structured handoff anywhere).
    await ok(api, '/v1/memory/write', { ...id, input_text: `${ANCHOR}: edited src/payments/ledger_sync.ts with apply_patch to round half-even; run_tests gave 9 passed.` });
    tick();
    await ok(api, '/v1/memory/write', { ...id, input_text: `Progress on ${ANCHOR}: the ledger sync job now reconciles cents; next check the nightly export.` });
    tick();
    // A replay run of the task, tied to it by its metadata.
    await replayRun(
      id,
      'ledger-run-1',
      'fix rounding in the ledger sync',
      [
        { tool: 'apply_patch', file: 'src/payments/ledger_sync.ts' },
        { tool: 'run_tests', file: 'test/payments/ledger_sync.test.ts' },
      ],
      'success',
      { anchor: ANCHOR },
    );
    tick();
    // Newer, lexically close work of another task: never this anchor's evidence or latest run.
    await ok(api, '/v1/memory/write', { ...id, input_text: 'ledger-export-7: edited src/payments/ledger_export.ts; the ledger sync tests failed with AssertionError.' });
    tick();
    await replayRun(id, 'export-run-1', 'fix the ledger export', [{ tool: 'apply_patch', file: 'src/payments/ledger_export.ts' }], 'failure', { anchor: 'ledger-export-7' });
  }

  it('continuity pack of an anchor known only from free-text evidence and a replay run', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('cont') };
    await seedAnchor(id);
    const pack = (await ok(api, '/v1/memory/continuity/review-pack', { ...id, anchor: ANCHOR })).continuity_review_pack;
    assert.equal(pack.anchor, ANCHOR);
    assert.equal(pack.latest_handoff, null);
    assert.equal(pack.recovered_handoff, null);
    assert.equal(pack.latest_resume, null);

    const rc = pack.review_contract;
    assert.equal(rc.basis, 'evidence');
    assert.equal(rc.resume_ready, false);
    assert.match(rc.blockers[0], /no structured handoff.*not known to be safe/);
    assert.ok(rc.target_files.includes('src/payments/ledger_sync.ts'), JSON.stringify(rc.target_files));
    assert.ok(!rc.target_files.includes('src/payments/ledger_export.ts'), 'files of another task are not this task’s');

    // The evidence: both writes and the replay run, nothing of the other task.
    const kinds = pack.anchor_evidence.map((e: any) => `${e.source_kind}:${e.run_id ?? e.summary.slice(0, 20)}`);
    assert.equal(pack.anchor_evidence.filter((e: any) => e.source_kind === 'memory').length, 2, kinds.join(', '));
    assert.ok(
      pack.anchor_evidence.some((e: any) => e.id === 'replay_run:ledger-run-1'),
      kinds.join(', '),
    );
    assert.ok(!pack.anchor_evidence.some((e: any) => e.run_id === 'export-run-1' || /ledger-export-7/.test(e.summary)), kinds.join(', '));
    for (const e of pack.anchor_evidence) assert.ok(rc.evidence_ids.includes(e.id));

    // The latest terminal run is this task's run, although the other task's ended later.
    assert.equal(pack.latest_terminal_run.source_kind, 'replay_run');
    assert.equal(pack.latest_terminal_run.run_id, 'ledger-run-1');
    assert.equal(pack.latest_terminal_run.outcome, 'success');
    assert.equal(pack.latest_terminal_run.node_id, null);
  });

  it('a handoff written as free text that names the anchor is the latest handoff, read from its words, with its evidence ids', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('cont') };
    const anchor = 'auth-session-refactor';
    const handoffText = `Handoff for anchor ${anchor}: paused mid-refactor of src/auth/session_store.ts; next action: move the token refresh into SessionStore.refresh(); rollback: git checkout src/auth/session_store.ts`;
    const written = await ok(api, '/v1/memory/write', { ...id, input_text: handoffText });
    api.clock.advance(60_000);
    await replayRun(id, 'auth-run-1', 'refactor the session store', [{ tool: 'edit', file: 'src/auth/session_store.ts' }], 'partial', { anchor });
    const pack = (await ok(api, '/v1/memory/continuity/review-pack', { ...id, anchor })).continuity_review_pack;
    const latest = pack.latest_handoff;
    assert.ok(latest, 'the free-text handoff is found');
    assert.equal(latest.handoff_id, written.nodes[0].id);
    assert.equal(latest.source_kind, 'memory');
    assert.equal(latest.next_action, 'move the token refresh into SessionStore.refresh()');
    assert.deepEqual(latest.evidence_ids, [written.nodes[0].id, 'replay_run:auth-run-1']);
    const rc = pack.review_contract;
    assert.equal(rc.basis, 'handoff_text');
    assert.deepEqual(rc.rollback_expectations, ['git checkout src/auth/session_store.ts']);
    assert.ok(rc.target_files.includes('src/auth/session_store.ts'));
    assert.equal(rc.next_action, 'move the token refresh into SessionStore.refresh()');
    assert.deepEqual(rc.blockers, ['no acceptance checks: success cannot be verified']);
    assert.equal(pack.latest_terminal_run.run_id, 'auth-run-1', 'a handoff is state handed on, not the latest attempt');

    // A later handoff event in a session that names the anchor takes its place; the store's record, later still, takes over.
    api.clock.advance(60_000);
    await ok(api, '/v1/memory/sessions/create', { ...id, session_id: anchor, title: 'auth session refactor' });
    const ev = await ok(api, '/v1/memory/sessions/events/append', {
      ...id,
      session_id: anchor,
      event_type: 'handoff',
      input_text: `Handing off ${anchor}: next step: run the auth tests against src/auth/session_store.ts`,
    });
    const byEvent = (await ok(api, '/v1/memory/continuity/review-pack', { ...id, anchor })).continuity_review_pack;
    assert.equal(byEvent.latest_handoff.handoff_id, ev.event.node_id);
    assert.equal(byEvent.latest_handoff.source_kind, 'session_event');
    assert.equal(byEvent.latest_handoff.next_action, 'run the auth tests against src/auth/session_store.ts');
    api.clock.advance(60_000);
    const stored = await ok(api, '/v1/memory/handoff/store', {
      ...id,
      anchor,
      summary: 'continue the session store refactor',
      target_files: ['src/auth/session_store.ts'],
      next_action: 'finish refresh()',
      acceptance_checks: ['npm test -- auth'],
    });
    const byStore = (await ok(api, '/v1/memory/continuity/review-pack', { ...id, anchor })).continuity_review_pack;
    assert.equal(byStore.latest_handoff.handoff_id, stored.handoff.handoff_id);
    assert.equal(byStore.latest_handoff.source_kind, 'handoff');
    assert.equal(byStore.review_contract.basis, 'handoff');
    assert.equal(byStore.review_contract.resume_ready, true);
  });

  it('a handoff’s latest terminal run is a run of its task, not the newest lexical hit', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('cont') };
    await replayRun(id, 'retry-run-1', 'bound the worker retries', [{ tool: 'edit', file: 'src/jobs/worker.ts' }], 'failure', { anchor: 'retry-fix' });
    await ok(api, '/v1/memory/handoff/store', {
      ...id,
      anchor: 'retry-fix',
      summary: 'bounded backoff half done',
      target_files: ['src/jobs/worker.ts'],
      next_action: 'finish the jitter',
      acceptance_checks: ['npm test -- worker'],
    });
    // A newer terminal write that shares the handoff's words but is another task's.
    await writeExecution(api, id, { goal: 'bounded backoff in the mailer', steps: [{ tool: 'edit', file_path: 'src/mail/backoff.ts' }], outcome: 'success', run_id: 'mail-1' });
    const pack = (await ok(api, '/v1/memory/continuity/review-pack', { ...id, anchor: 'retry-fix' })).continuity_review_pack;
    assert.equal(pack.review_contract.basis, 'handoff');
    assert.equal(pack.latest_terminal_run.run_id, 'retry-run-1');
    assert.equal(pack.latest_terminal_run.outcome, 'failure');
    assert.ok(pack.review_contract.blockers.some((b: string) => b.includes('latest run failed')));
    assert.equal(pack.review_contract.resume_ready, false);
  });

  it('not_found when nothing names the anchor; packs are isolated', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('cont') };
    await ok(api, '/v1/memory/write', { ...id, input_text: 'unrelated note about ledger-sync-4200 and the payments service' });
    assertError(await api.post('/v1/memory/continuity/review-pack', { ...id, anchor: ANCHOR }), 404, 'not_found');
    await assertIsolated({
      what: 'continuity pack from evidence',
      seed: seedAnchor,
      sees: async (v) => (await api.post('/v1/memory/continuity/review-pack', { ...v, anchor: ANCHOR })).status === 200,
    });
  });

  it('every evolution recommendation carries a payload its route accepts; the apply result shows after an apply', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('evo') };
    const task = { input_text: 'fix flaky retry in worker.ts', context: { task_kind: 'fix_flaky_test', file_path: 'src/jobs/worker.ts' }, candidates: ['read', 'edit', 'test'] };
    // Scope-wide review (no task text): every workflow, pattern and policy of the scope.
    const review = {};
    // A promotion-ready candidate workflow (two consistent successes) …
    for (const [i, goal] of ['round ledger totals half-even', 'ledger totals rounding is off by a cent'].entries()) {
      await writeExecution(api, id, {
        goal,
        task_kind: 'bugfix',
        run_id: `w${i}`,
        steps: [
          { tool: 'read', file_path: 'src/payments/ledger.ts' },
          { tool: 'edit', file_path: 'src/payments/ledger.ts' },
        ],
      });
    }
    // … and one with a failure after its last success.
    for (const [i, outcome] of (['success', 'success', 'failure'] as const).entries()) {
      await writeExecution(api, id, {
        goal: 'thumbnail resize crops portrait photos',
        task_kind: 'feature',
        run_id: `f${i}`,
        outcome,
        steps: [{ tool: 'edit', file_path: 'src/media/thumbnail.ts' }, { tool: 'test' }],
      });
    }
    // A trusted pattern and its policy, then negative feedback: both contested, retire proposed.
    for (const r of ['r1', 'r2', 'r3']) await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', run_id: r, ...task });
    await ok(api, '/v1/memory/tools/feedback', { ...id, outcome: 'negative', selected_tool: 'edit', run_id: 'r4', ...task });

    let pack = (await ok(api, '/v1/memory/evolution/review-pack', { ...id, ...review })).evolution_review_pack;
    const recs = pack.learning_recommendations;
    const actions = recs.map((r: any) => r.action);
    for (const a of ['observe_or_promote_workflow', 'review_contested_pattern', 'inspect_unresolved_failure', 'retire_policy_memory'])
      assert.ok(actions.includes(a), `${a} in ${actions.join(', ')}`);
    assert.equal(pack.policy_governance_apply_result, undefined, 'no apply yet');
    for (const r of recs) {
      assert.equal(typeof r.route, 'string');
      assert.equal(r.payload.tenant_id, id.tenant_id);
      assert.equal(r.payload.scope, id.scope);
      const res = await api.post(r.route, r.payload);
      assert.equal(res.status, 200, `${r.action} → ${r.route}: ${res.status} ${JSON.stringify(res.body)}`);
    }

    // The retire was applied through its recommendation: the pack now reports it.
    pack = (await ok(api, '/v1/memory/evolution/review-pack', { ...id, ...review })).evolution_review_pack;
    const result = pack.policy_governance_apply_result;
    assert.ok(result, 'policy_governance_apply_result after an apply');
    assert.equal(result.action, 'retire');
    assert.equal(result.previous_state, 'contested');
    assert.equal(result.state, 'retired');
    assert.equal(result.current_state, 'retired');
    assert.equal(result.tool, 'edit');
    assert.deepEqual(pack.evolution_inspect.policy_governance_apply_result, result);
  });
});
