import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ErrorEnvelope } from '../../src/contract/errors';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { pollFor } from '../helpers/wait';

/**
 * "Existing SDK wire calls" (issue 27): for every row of docs/compatibility.md, the request as the
 * existing TypeScript SDK sends it (its paths, its field names, the extra fields it passes along)
 * and the response fields it reads, against a real Lore with a worker. A row marked not
 * applicable must be refused in the error envelope, never answered as if it had worked. The last
 * test checks that every row of the document was exercised here.
 */

let api: TestApi;
const covered = new Set<string>();
const who = { tenant_id: 'default', scope: uniqueName('sdk'), actor: 'sdk-example' };

before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => {
  await api?.close();
});

/** The SDK's POST: JSON body, throws on non-2xx (here: asserts 200). */
async function post(path: string, body: Record<string, unknown>): Promise<any> {
  const res = await api.post(path, { ...who, ...body });
  assert.equal(res.status, 200, `${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 600)}`);
  return res.body;
}
/** The SDK's GET: the payload as query parameters. */
async function get(path: string, query: Record<string, string | number | boolean> = {}): Promise<any> {
  const qs = new URLSearchParams(Object.entries({ tenant_id: who.tenant_id, scope: who.scope, ...query }).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await api.app.inject({ method: 'GET', url: `${path}?${qs}` });
  assert.equal(res.statusCode, 200, `${path}: ${res.statusCode} ${res.body.slice(0, 600)}`);
  return JSON.parse(res.body);
}
/** A refusal in the envelope with this status and code. */
async function refused(path: string, body: Record<string, unknown>, status: number, code: string) {
  const res = await api.post(path, { ...who, ...body });
  assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body).slice(0, 400)}`);
  const env = ErrorEnvelope.parse(res.body);
  assert.equal(env.error.code, code);
  return env;
}
const notApplicable = (path: string, body: Record<string, unknown> = {}) => refused(path, body, 404, 'not_found');
const warned = (body: { warnings?: { field?: string }[] }) => (body.warnings ?? []).map((w) => w.field);
const row = (...names: string[]) => names.forEach((n) => covered.add(n));

const goal = 'fix the flaky retry in the worker';
const task = { query_text: goal, context: { goal, task_kind: 'fix_flaky_test', host: 'sdk-example' }, candidates: ['read', 'edit', 'test'] };

describe('existing SDK wire calls against a real Lore', () => {
  const ids: Record<string, string> = {};

  it('system.health reads ok', async () => {
    const res = await api.get('/health');
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true);
    row('system.health');
  });

  it('memory.write with nodes (text_summary) and edges by {client_id}; memory_lane is a warning', async () => {
    const body = await post('/v1/memory/write', {
      memory_lane: 'shared',
      nodes: [
        { client_id: 'note-a', type: 'event', title: 'Retry loop', text_summary: 'The worker retries three times before failing the job.', tier: 'hot', slots: { origin: 'sdk' } },
        { client_id: 'note-b', type: 'evidence', title: 'Flaky test', text_summary: 'worker.test.ts fails one run in ten on the retry count.' },
      ],
      edges: [{ type: 'related_to', src: { client_id: 'note-b' }, dst: { client_id: 'note-a' } }],
    });
    assert.equal(typeof body.commit_id, 'string');
    assert.equal(body.nodes.length, 2);
    assert.equal(body.edges.length, 1);
    assert.ok(warned(body).includes('memory_lane'));
    ids.noteA = body.nodes.find((n: { client_id: string }) => n.client_id === 'note-a').id;
    ids.noteB = body.nodes.find((n: { client_id: string }) => n.client_id === 'note-b').id;
    row('memory.write');
  });

  it('memory.recall (by query_embedding) is not applicable; memory.recallText works', async () => {
    await notApplicable('/v1/memory/recall', { query_embedding: [0.1, 0.2, 0.3], limit: 5 });
    const body = await post('/v1/memory/recall_text', { query_text: 'retry loop of the worker', limit: 5, return_debug: true });
    assert.ok(body.results.some((r: { id: string }) => r.id === ids.noteA));
    row('memory.recall', 'memory.recallText');
  });

  it('memory.find by node_ids, anchor_ids and query_text; an unknown filter is validation_failed', async () => {
    const byId = await post('/v1/memory/find', { node_ids: [ids.noteA], limit: 10 });
    assert.deepEqual(
      byId.nodes.map((n: { id: string }) => n.id),
      [ids.noteA],
    );
    const byAnchor = await post('/v1/memory/find', { anchor_ids: [ids.noteB] });
    assert.deepEqual(
      byAnchor.nodes.map((n: { id: string }) => n.id),
      [ids.noteB],
    );
    const byText = await post('/v1/memory/find', { query_text: 'flaky test retry count', limit: 5 });
    assert.equal(byText.nodes[0].id, ids.noteB);
    const bad = await refused('/v1/memory/find', { node_ids: [ids.noteA], memory_lane: 'shared' }, 422, 'validation_failed');
    assert.equal((bad.error.details.issues as { key: string }[])[0]!.key, 'memory_lane');
    ids.noteAUri = byId.nodes[0].uri;
    row('memory.find');
  });

  it('memory.resolve by uri', async () => {
    const body = await post('/v1/memory/resolve', { uri: ids.noteAUri, include_meta: true });
    assert.equal(body.node.id, ids.noteA);
    row('memory.resolve');
  });

  it('memory.feedback is not applicable', async () => {
    await notApplicable('/v1/memory/feedback', { input_text: 'good', note: 'worked' });
    row('memory.feedback');
  });

  it('learning surfaces answer what the SDK reads (after three executions of one task)', async () => {
    for (const r of ['r1', 'r2', 'r3']) {
      await post('/v1/memory/write', {
        input_text: `${goal} (${r})`,
        execution: {
          goal,
          task_kind: 'fix_flaky_test',
          run_id: r,
          steps: [
            { tool: 'read', file_path: 'src/jobs/worker.ts' },
            { tool: 'edit', file_path: 'src/jobs/worker.ts' },
            { tool: 'test', command: 'npm test -- worker' },
          ],
          target_files: ['src/jobs/worker.ts'],
          outcome: 'success',
          next_action: 'read src/jobs/worker.ts',
        },
      });
    }
    const planning = await post('/v1/memory/planning/context', { ...task, tool_candidates: task.candidates, return_layered_context: true, rules_limit: 5 });
    assert.ok(planning.planner_packet.sections.recommended_workflows.length + planning.planner_packet.sections.candidate_workflows.length > 0);
    assert.ok(planning.planning_summary);
    assert.ok(planning.kickoff_recommendation);
    const assembled = await post('/v1/memory/context/assemble', { ...task, context_char_budget: 4000 });
    assert.equal(typeof assembled.context_text, 'string');

    const retrieval = await post('/v1/memory/action/retrieval', task);
    assert.equal(retrieval.recommended_file_path, 'src/jobs/worker.ts');
    assert.equal(typeof retrieval.recommended_next_action, 'string');
    assert.equal(retrieval.tool_source_kind, retrieval.source_kind);
    assert.equal(retrieval.tool.selected_tool, retrieval.selected_tool);
    assert.ok(retrieval.tool.ordered_tools.includes('read'));
    assert.deepEqual(retrieval.tool.allowed_tools, ['read', 'edit', 'test']);
    assert.equal(typeof retrieval.rationale.summary, 'string');
    assert.ok(['low', 'moderate', 'high'].includes(retrieval.uncertainty.level));

    const ei = await post('/v1/memory/experience/intelligence', task);
    assert.ok(ei.recommended_workflows.length > 0);
    assert.ok(ei.policy_contract);

    const kickoff = await post('/v1/memory/kickoff/recommendation', { ...task, workflow_limit: 6 });
    assert.equal(kickoff.summary_version, 'kickoff_recommendation_v1');
    assert.equal(kickoff.query_text, goal);
    assert.equal(kickoff.kickoff_recommendation.selected_tool, 'read');
    assert.equal(kickoff.kickoff_recommendation.file_path, 'src/jobs/worker.ts');
    assert.equal(typeof kickoff.rationale.summary, 'string');
    // taskStart is the SDK's own view of the kickoff answer: what it reads must be there.
    const k = kickoff.kickoff_recommendation;
    for (const f of ['source_kind', 'history_applied', 'selected_tool', 'file_path', 'next_action']) assert.ok(f in k, f);
    assert.ok(Array.isArray(kickoff.action_retrieval_uncertainty.recommended_actions));
    assert.equal(kickoff.action_retrieval_uncertainty.level, kickoff.uncertainty.level);
    row('memory.planningContext', 'memory.contextAssemble', 'memory.actionRetrieval', 'memory.experienceIntelligence', 'memory.kickoffRecommendation', 'memory.taskStart');
  });

  it('memory.executionIntrospect lists workflows as recommended/candidate_workflows; retrieveWorkflowContract finds one by file_path', async () => {
    const body = await post('/v1/memory/execution/introspect', { limit: 8 });
    const all = [...body.recommended_workflows, ...body.candidate_workflows];
    assert.equal(all.length, body.demo_surface.sections.workflows.length);
    assert.ok(all.length > 0);
    // The SDK's helper: recommended first, then candidates, matching file_path (or target_files).
    const matches = (w: any) => w.file_path === 'src/jobs/worker.ts' || (w.target_files ?? []).includes('src/jobs/worker.ts');
    const selected = body.recommended_workflows.find(matches) ?? body.candidate_workflows.find(matches);
    assert.ok(selected, 'the workflow-contract helper finds the learned workflow');
    assert.equal(selected.anchor_id, selected.id);
    row('memory.executionIntrospect', 'memory.retrieveWorkflowContract');
  });

  it('memory.storeExecutionOutcome: replay run, steps, end, compile, then simulate without an active version', async () => {
    const started = await post('/v1/memory/replay/run/start', { goal: 'repair publish visibility', context_snapshot_ref: 'snap-1', metadata: { source: 'sdk' } });
    const runId = started.run_id as string;
    assert.equal(typeof runId, 'string');
    const steps = [
      {
        tool_name: 'edit',
        tool_input: { file_path: 'src/services/publish.ts' },
        output_signature: { summary: 'Patched publish visibility path', target_files: ['src/services/publish.ts'] },
      },
      { tool_name: 'bash', tool_input: { argv: ['echo', 'publish visibility tests passed'] }, output_signature: { summary: 'publish visibility tests passed' } },
    ];
    for (const [i, s] of steps.entries()) {
      const before = await post('/v1/memory/replay/step/before', { run_id: runId, step_index: i + 1, tool_name: s.tool_name, tool_input: s.tool_input, safety_level: 'auto_ok' });
      assert.equal(before.step_index, i + 1);
      const after = await post('/v1/memory/replay/step/after', { run_id: runId, step_index: i + 1, status: 'success', output_signature: s.output_signature, artifact_refs: [] });
      assert.equal(after.step.status, 'success');
    }
    const ended = await post('/v1/memory/replay/run/end', {
      run_id: runId,
      status: 'success',
      summary: 'visibility repair passed',
      success_criteria: { target_files: ['src/services/publish.ts'] },
      metrics: {},
    });
    assert.equal(ended.run.status, 'success');
    const fetched = await post('/v1/memory/replay/runs/get', { run_id: runId, include_steps: true, include_artifacts: true });
    assert.equal(fetched.run.steps.length, 2);
    const compiled = await post('/v1/memory/replay/playbooks/compile_from_run', {
      run_id: runId,
      success_criteria: { target_files: ['src/services/publish.ts'] },
      metadata: { source: 'sdk' },
      name: 'publish visibility recovery',
      matchers: { file_path: 'src/services/publish.ts' },
      risk_profile: 'low',
    });
    assert.equal(typeof compiled.playbook_id, 'string');
    assert.ok(warned(compiled).includes('matchers'));
    ids.playbook = compiled.playbook_id;
    const simulated = await post('/v1/memory/replay/playbooks/run', { playbook_id: ids.playbook, mode: 'simulate', max_steps: 6 });
    assert.equal(simulated.status, 'simulated');
    assert.equal(simulated.version, 1);
    assert.match(simulated.message, /no active version/);
    row(
      'memory.storeExecutionOutcome',
      'memory.replay.run.start',
      'memory.replay.step.before',
      'memory.replay.step.after',
      'memory.replay.run.end',
      'memory.replay.run.get',
      'memory.replay.playbooks.compileFromRun',
    );
  });

  it('playbooks get, candidate, promote, run, dispatch, repair (step_patches, steps_override), repair review', async () => {
    const got = await post('/v1/memory/replay/playbooks/get', { playbook_id: ids.playbook });
    assert.equal(got.playbook.playbook_id, ids.playbook);
    const cand = await post('/v1/memory/replay/playbooks/candidate', { playbook_id: ids.playbook, deterministic_gate: { enabled: true } });
    assert.equal(typeof cand.ready, 'boolean');
    const promoted = await post('/v1/memory/replay/playbooks/promote', { playbook_id: ids.playbook, from_version: 1, target_status: 'active', note: 'ship it' });
    assert.equal(promoted.status, 'active');
    const run = await post('/v1/memory/replay/playbooks/run', { playbook_id: ids.playbook, mode: 'simulate', params: {} });
    assert.equal(run.status, 'simulated');
    assert.equal(run.message, undefined, 'the active version is the one simulated');
    const dispatched = await post('/v1/memory/replay/playbooks/dispatch', { playbook_id: ids.playbook, fallback_mode: 'simulate', execute_fallback: false });
    assert.equal(dispatched.dispatched, false);
    assert.ok(warned(dispatched).includes('execute_fallback'));

    const patched = await post('/v1/memory/replay/playbooks/repair', {
      playbook_id: ids.playbook,
      patch: { step_patches: [{ step_index: 0, set: { tool_input: { file_path: 'src/services/publish-v2.ts' } } }] },
      note: 'file moved',
      review_required: true,
    });
    assert.equal(patched.version, 2);
    assert.deepEqual(patched.playbook.steps[0].tool_input, { file_path: 'src/services/publish-v2.ts' });
    const overridden = await post('/v1/memory/replay/playbooks/repair', {
      playbook_id: ids.playbook,
      patch: { steps_override: [{ step_index: 0, tool_name: 'edit', tool_input: { file_path: 'src/services/publish-v3.ts' } }] },
    });
    assert.equal(overridden.playbook.steps.length, 1);
    // The patch the existing implementation's guided-repair helpers emit: tool_input_template and
    // retry_policy on a step (read as tool_input, and attempts with a backoff), remove_step_indices.
    const helper = await post('/v1/memory/replay/playbooks/repair', {
      playbook_id: ids.playbook,
      version: 2,
      patch: { step_patches: [{ step_index: 1, set: { tool_input_template: { argv: ['echo', 'retried'] }, retry_policy: { max_retries: 1, backoff_ms: 250 } } }] },
    });
    assert.equal(helper.repair_of, 2);
    assert.deepEqual(helper.playbook.steps[1].tool_input, { argv: ['echo', 'retried'] });
    assert.equal(helper.playbook.steps[1].max_attempts, 2);
    assert.equal(helper.playbook.steps[1].backoff_ms, 250);
    assert.deepEqual(helper.playbook.steps[0].tool_input, { file_path: 'src/services/publish-v2.ts' }, 'the other step is as it was');
    const removed = await post('/v1/memory/replay/playbooks/repair', { playbook_id: ids.playbook, version: 2, patch: { remove_step_indices: [0] } });
    assert.deepEqual(
      removed.playbook.steps.map((x: { tool_name: string }) => x.tool_name),
      ['bash'],
    );
    const unknown = await refused('/v1/memory/replay/playbooks/repair', { playbook_id: ids.playbook, patch: { steps_overide: [] } }, 422, 'validation_failed');
    assert.equal((unknown.error.details.issues as { key: string }[])[0]!.key, 'steps_overide');
    const unknownSet = await refused(
      '/v1/memory/replay/playbooks/repair',
      { playbook_id: ids.playbook, version: 2, patch: { step_patches: [{ step_index: 1, set: { safety_level: 'needs_confirm' } }] } },
      422,
      'validation_failed',
    );
    assert.equal((unknownSet.error.details.issues as { key: string }[])[0]!.key, 'safety_level');
    const unknownRetry = await refused(
      '/v1/memory/replay/playbooks/repair',
      { playbook_id: ids.playbook, version: 2, patch: { step_patches: [{ step_index: 1, set: { retry_policy: { max_retries: 1, jitter: true } } }] } },
      422,
      'validation_failed',
    );
    assert.equal((unknownRetry.error.details.issues as { key: string }[])[0]!.key, 'jitter');

    const reviewed = await post('/v1/memory/replay/playbooks/repair/review', {
      playbook_id: ids.playbook,
      version: 2,
      action: 'approve',
      auto_shadow_validate: false,
      target_status_on_approve: 'shadow',
      learning_projection: { enabled: true },
    });
    assert.equal(reviewed.status, 'shadow');
    assert.ok(warned(reviewed).includes('learning_projection'));
    row(
      'memory.replay.playbooks.get',
      'memory.replay.playbooks.candidate',
      'memory.replay.playbooks.promote',
      'memory.replay.playbooks.run',
      'memory.replay.playbooks.dispatch',
      'memory.replay.playbooks.repair',
      'memory.replay.playbooks.repairReview',
    );
  });

  it('handoff store and recover on the /v1/handoff aliases; continuity review pack', async () => {
    const stored = await post('/v1/handoff/store', {
      handoff_kind: 'task_handoff',
      anchor: 'handoff:worker-retry',
      summary: 'Continue the retry fix',
      handoff_text: 'Inspect the retry loop, then run the worker tests.',
      target_files: ['src/jobs/worker.ts'],
      next_action: 'run npm test -- worker',
      acceptance_checks: ['npm test -- worker'],
      repo_root: '/repo',
      file_path: 'src/jobs/worker.ts',
    });
    assert.equal(stored.handoff.anchor, 'handoff:worker-retry');
    assert.ok(warned(stored).includes('repo_root'));
    const recovered = await post('/v1/handoff/recover', { anchor: 'handoff:worker-retry', include_payload: true });
    assert.equal(recovered.handoff.next_action, 'run npm test -- worker');
    const pack = await post('/v1/memory/continuity/review-pack', { anchor: 'handoff:worker-retry' });
    assert.deepEqual(pack.continuity_review_pack.review_contract.target_files, ['src/jobs/worker.ts']);
    row('handoff.store', 'handoff.recover', 'memory.reviewPacks.continuity');
  });

  it('sessions: create on POST /v1/memory/sessions, list on GET, events written on /v1/memory/events and read on GET …/{id}/events', async () => {
    const created = await post('/v1/memory/sessions', {
      session_id: 'sess-sdk',
      title: 'Runtime repair session',
      input_text: 'A working session.',
      text_summary: 'repair session',
      memory_lane: 'shared',
    });
    assert.equal(created.session.session_id, 'sess-sdk');
    assert.equal(created.session.summary, 'repair session');
    const event = await post('/v1/memory/events', { session_id: 'sess-sdk', title: 'Observed success', input_text: 'Validated replay repair success.', memory_lane: 'shared' });
    assert.equal(typeof event.event.event_id, 'string');
    const listed = await get('/v1/memory/sessions', { include_meta: true, limit: 10 });
    assert.ok(listed.sessions.some((s: { session_id: string }) => s.session_id === 'sess-sdk'));
    assert.ok(warned(listed).includes('include_meta'));
    const events = await get('/v1/memory/sessions/sess-sdk/events', { include_meta: true, include_slots_preview: true, limit: 10 });
    assert.equal(events.session_id, 'sess-sdk');
    assert.equal(events.events.length, 1);
    const missing = await api.app.inject({ method: 'GET', url: `/v1/memory/sessions/nope/events?scope=${encodeURIComponent(who.scope)}` });
    assert.equal(missing.statusCode, 404);
    row('memory.sessions.create', 'memory.sessions.list', 'memory.sessions.writeEvent', 'memory.sessions.events');
  });

  it('delegation records: write on /v1/memory/delegation/records with delegation_records_v1; find by route_role', async () => {
    const written = await post('/v1/memory/delegation/records', {
      run_id: 'run-export-review',
      handoff_anchor: 'resume:src/routes/export.ts',
      task_family: 'export_review',
      memory_lane: 'shared',
      delegation_records_v1: {
        summary_version: 'execution_delegation_records_v1',
        record_mode: 'packet_backed',
        route_role: 'reviewer',
        packet_count: 1,
        return_count: 1,
        artifact_routing_count: 0,
        missing_record_types: [],
        delegation_packets: [
          { version: 1, role: 'reviewer', mission: 'Review the export route change', working_set: ['src/routes/export.ts'], acceptance_checks: ['npm test -- export'] },
        ],
        delegation_returns: [{ version: 1, role: 'reviewer', status: 'passed', summary: 'The export route is correct' }],
        artifact_routing_records: [],
      },
    });
    assert.equal(written.record.to_agent, 'reviewer');
    assert.equal(written.record.task, 'Review the export route change');
    assert.equal(written.record.status, 'completed');
    assert.equal(written.record.result, 'The export route is correct');
    assert.deepEqual(written.record.target_files, ['src/routes/export.ts']);
    assert.equal(written.record.metadata.handoff_anchor, 'resume:src/routes/export.ts');
    assert.equal(written.record.metadata.delegation_records_v1.record_mode, 'packet_backed');
    const found = await post('/v1/memory/delegation/records/find', { route_role: 'reviewer', limit: 10 });
    assert.deepEqual(
      found.records.map((r: { record_id: string }) => r.record_id),
      [written.record.record_id],
    );
    const bad = await refused('/v1/memory/delegation/records/find', { route_role: 'reviewer', record_mode: 'packet_backed' }, 422, 'validation_failed');
    assert.equal((bad.error.details.issues as { key: string }[])[0]!.key, 'record_mode');
    await notApplicable('/v1/memory/delegation/records/aggregate', { limit: 10 });
    row('memory.delegationRecords.write', 'memory.delegationRecords.find', 'memory.delegationRecords.aggregate');
  });

  it('the agent inspect and pack routes (an extension) answer what the SDK reads', async () => {
    const inspect = await post('/v1/memory/agent/inspect', { ...task, anchor: 'no-anchor-here', file_path: 'src/jobs/worker.ts', include_meta: true });
    assert.equal(inspect.agent_memory_summary.summary_version, 'agent_memory_inspect_summary_v1');
    assert.equal(inspect.agent_memory_summary.recommended_file_path, 'src/jobs/worker.ts');
    assert.ok(warned(inspect).includes('include_meta'));
    for (const [p, field] of [
      ['review-pack', 'agent_memory_review_pack'],
      ['resume-pack', 'agent_memory_resume_pack'],
      ['handoff-pack', 'agent_memory_handoff_pack'],
    ] as const) {
      const body = await post(`/v1/memory/agent/${p}`, task);
      assert.equal(body[field].pack_version, `${field}_v1`);
      assert.equal(body.agent_memory_inspect.summary_version, 'agent_memory_inspect_v1');
    }
    row('memory.agent.inspect', 'memory.agent.reviewPack', 'memory.agent.resumePack', 'memory.agent.handoffPack');
  });

  it('packs export (node_ids is a warning: the whole scope) and import', async () => {
    const exported = await post('/v1/memory/packs/export', { node_ids: [ids.noteA], include_embeddings: false });
    assert.ok(exported.pack.nodes.length > 1, 'the whole scope');
    assert.ok(warned(exported).includes('node_ids'));
    const imported = await api.post('/v1/memory/packs/import', { tenant_id: who.tenant_id, scope: uniqueName('sdk-import'), pack: exported.pack, mode: 'merge' });
    assert.equal(imported.status, 200, JSON.stringify(imported.body).slice(0, 400));
    assert.equal(imported.body.status, 'completed');
    row('memory.packs.exportPack', 'memory.packs.importPack');
  });

  it('archive rehydrate and nodes activate by node_ids; activate without outcome', async () => {
    const rehydrated = await post('/v1/memory/archive/rehydrate', { node_ids: [ids.noteA], target_tier: 'warm', reason: 'needed again', input_text: 'x' });
    assert.deepEqual(rehydrated.not_found, []);
    assert.equal(rehydrated.nodes[0].id, ids.noteA);
    const activated = await post('/v1/memory/nodes/activate', { node_ids: [ids.noteA], activate: true, reason: 'reused', run_id: 'r1' });
    assert.equal(activated.outcome, null);
    assert.equal(activated.nodes[0].activation.count, 1);
    assert.equal(activated.nodes[0].feedback.positive, 0);
    const positive = await post('/v1/memory/nodes/activate', { node_ids: [ids.noteA], outcome: 'positive', activate: true });
    assert.equal(positive.nodes[0].feedback.positive, 1);
    row('memory.archive.rehydrate', 'memory.nodes.activate');
  });

  it('payload rehydration on both aliases, mode summary_only', async () => {
    const summary = await post('/v1/memory/tools/rehydrate_payload', { anchor_id: ids.noteA, mode: 'summary_only', include_linked_decisions: false });
    assert.equal(summary.mode, 'summary');
    assert.equal(summary.payload_source, 'summary');
    const partial = await post('/v1/memory/anchors/rehydrate_payload', { anchor_id: ids.noteA, mode: 'partial', reason: 'inspect' });
    assert.ok(partial.payload.text.length > 0);
    row('memory.tools.rehydratePayload', 'memory.anchors.rehydratePayload');
  });

  it('rules: state by {rule_id (the node id), state, note}; evaluate', async () => {
    const made = await post('/v1/memory/rules/state', {
      rule_id: 'prefer-edit',
      state: 'draft',
      rule: { conditions: { task_kind: ['fix_flaky_test'] }, effects: [{ effect: 'prefer', tool: 'edit' }] },
    });
    const nodeId = made.rule.rule_node_id as string;
    const moved = await post('/v1/memory/rules/state', { rule_id: nodeId, state: 'active', note: 'reviewed by ops' });
    assert.equal(moved.rule.state, 'active');
    assert.equal(moved.rule.history.at(-1).reason, 'reviewed by ops');
    const evaluated = await post('/v1/memory/rules/evaluate', { context: { goal, task_kind: 'fix_flaky_test' }, include_shadow: true, limit: 10 });
    assert.ok(evaluated.evaluation.matched.some((m: { rule_id: string }) => m.rule_id === 'prefer-edit'));
    const unknown = await refused(
      '/v1/memory/rules/state',
      { rule_id: 'r2', state: 'draft', rule: { conditions: { tool_strict: true }, effects: [{ effect: 'prefer', tool: 'edit' }] } },
      422,
      'validation_failed',
    );
    assert.equal((unknown.error.details.issues as { key: string }[])[0]!.key, 'tool_strict');
    // Leave no active rule behind for the tool tests below.
    await post('/v1/memory/rules/state', { rule_id: 'prefer-edit', state: 'disabled' });
    row('memory.rules.state', 'memory.rules.evaluate');
  });

  it('tools: select (decision.decision_id), feedback, patterns suppress/unsuppress by anchor_id, governance apply', async () => {
    const selected = await post('/v1/memory/tools/select', { context: task.context, candidates: task.candidates, run_id: 'sel-1', tool_strict: false });
    assert.equal(selected.decision.decision_id, selected.decision_id);
    let last: any;
    for (const r of ['fb-1', 'fb-2', 'fb-3']) {
      last = await post('/v1/memory/tools/feedback', {
        outcome: 'positive',
        context: task.context,
        candidates: task.candidates,
        selected_tool: 'edit',
        target: 'tool',
        input_text: goal,
        run_id: r,
        ...(r === 'fb-1' ? { decision_id: selected.decision_id } : {}),
      });
    }
    assert.equal(last.pattern.state, 'trusted');
    const suppressed = await post('/v1/memory/patterns/suppress', { anchor_id: last.pattern.pattern_id, reason: 'noisy', mode: 'shadow_learn' });
    assert.equal(suppressed.pattern.state, 'suppressed');
    assert.ok(warned(suppressed).includes('mode'));
    const lifted = await post('/v1/memory/patterns/unsuppress', { anchor_id: last.pattern.pattern_id });
    assert.notEqual(lifted.pattern.state, 'suppressed');
    assert.ok(last.policy_memory?.node_id, 'a policy memory materialised');
    const retired = await post('/v1/memory/policies/governance/apply', {
      policy_memory_id: last.policy_memory.node_id,
      action: 'retire',
      reason: 'edit touches generated code',
      query_text: goal,
    });
    assert.equal(retired.previous_state, 'active');
    await refused('/v1/memory/policies/governance/apply', { policy_memory_id: last.policy_memory.node_id, action: 'refresh' }, 400, 'invalid_request');
    for (const p of ['decision', 'run', 'runs/list']) await notApplicable(`/v1/memory/tools/${p}`, { decision_id: selected.decision_id, run_id: 'sel-1' });
    row(
      'memory.tools.select',
      'memory.tools.feedback',
      'memory.patterns.suppress',
      'memory.patterns.unsuppress',
      'memory.policies.governanceApply',
      'memory.tools.decision',
      'memory.tools.run',
      'memory.tools.runsList',
    );
  });

  it('memory.reviewPacks.evolution reads evolution_inspect at the top level', async () => {
    const body = await post('/v1/memory/evolution/review-pack', { ...task, tool_candidates: task.candidates, limit: 5 });
    assert.ok(body.evolution_inspect.experience_intelligence);
    assert.deepEqual(body.evolution_inspect, body.evolution_review_pack.evolution_inspect);
    row('memory.reviewPacks.evolution');
  });

  it('automations: validate and create with {kind: condition, expression}; get, list, run, runs get/list, resume without reason, cancel', async () => {
    const graph = { nodes: [{ node_id: 'check-ready', kind: 'condition', name: 'Check Ready', expression: true }], edges: [] };
    for (const path of ['/v1/automations/validate', '/v1/automations/graph/validate']) {
      const v = await post(path, { graph });
      assert.equal(v.valid, true, JSON.stringify(v.issues));
    }
    const created = await post('/v1/automations/create', { automation_id: 'auto-sdk', name: 'SDK Automation', status: 'draft', graph, metadata: { source: 'sdk' } });
    assert.equal(created.automation.automation_id, 'auto-sdk');
    const fetched = await post('/v1/automations/get', { automation_id: 'auto-sdk' });
    assert.deepEqual(fetched.automation.graph.nodes[0].condition, { left: true, op: 'truthy' });
    const listed = await post('/v1/automations/list', { limit: 10 });
    assert.ok(listed.automations.some((a: { automation_id: string }) => a.automation_id === 'auto-sdk'));
    const run = await post('/v1/automations/run', { automation_id: 'auto-sdk', options: { execution_mode: 'default', record_run: true, stop_on_failure: true } });
    const runId = run.run_id as string;
    const done = await pollFor(
      'the automation run to succeed',
      async () => {
        const r = await post('/v1/automations/runs/get', { run_id: runId, include_nodes: true });
        return r.run.status === 'succeeded' ? r.run : null;
      },
      120_000,
      250,
    );
    assert.equal(done.nodes[0].state, 'succeeded');
    const runs = await post('/v1/automations/runs/list', { automation_id: 'auto-sdk', limit: 10, actionable_only: false });
    assert.ok(runs.runs.some((r: { run_id: string }) => r.run_id === runId));
    const badOption = await refused('/v1/automations/run', { automation_id: 'auto-sdk', options: { allow_local_exec: true } }, 422, 'validation_failed');
    assert.equal((badOption.error.details.issues as { key: string }[])[0]!.key, 'allow_local_exec');

    const gated = { nodes: [{ node_id: 'approve', kind: 'approval', approval_key: 'ops' }], edges: [] };
    await post('/v1/automations/create', { automation_id: 'auto-gated', name: 'Gated', graph: gated });
    const paused = async () => {
      const r = await post('/v1/automations/run', { automation_id: 'auto-gated' });
      await pollFor('the run to pause', async () => (await post('/v1/automations/runs/get', { run_id: r.run_id })).run.status === 'paused', 120_000, 250);
      return r.run_id as string;
    };
    const toResume = await paused();
    const resumed = await post('/v1/automations/runs/resume', { run_id: toResume });
    assert.deepEqual(resumed.resumed_node_ids, ['approve']);
    const toCancel = await paused();
    const cancelled = await post('/v1/automations/runs/cancel', { run_id: toCancel, reason: 'not needed' });
    assert.ok(['cancelled', 'paused', 'running'].includes(cancelled.run.status));
    await pollFor('the run to be cancelled', async () => (await post('/v1/automations/runs/get', { run_id: toCancel })).run.status === 'cancelled', 120_000, 250);
    row(
      'automations.validate',
      'automations.graphValidate',
      'automations.create',
      'automations.get',
      'automations.list',
      'automations.run',
      'automations.runs.get',
      'automations.runs.list',
      'automations.runs.resume',
      'automations.runs.cancel',
    );
  });

  it('sandbox: session, execute, runs get, logs, artifact, cancel', async () => {
    const session = await post('/v1/memory/sandbox/sessions', { profile: 'default', ttl_seconds: 600, metadata: { source: 'sdk' } });
    assert.ok(warned(session).includes('ttl_seconds'));
    const sid = session.session_id as string;
    const executed = await post('/v1/memory/sandbox/execute', {
      session_id: sid,
      mode: 'sync',
      timeout_ms: 20_000,
      planner_run_id: 'plan-1',
      action: { kind: 'command', argv: ['echo', 'hello from the sandbox'] },
    });
    assert.equal(executed.run.status, 'succeeded');
    assert.match(executed.run.stdout_tail, /hello from the sandbox/);
    const runId = executed.run_id as string;
    assert.equal((await post('/v1/memory/sandbox/runs/get', { run_id: runId })).run.exit_code, 0);
    const logs = await post('/v1/memory/sandbox/runs/logs', { run_id: runId, tail_bytes: 4096 });
    assert.ok(logs.logs.some((l: { text: string }) => l.text.includes('hello')));
    const artifact = await post('/v1/memory/sandbox/runs/artifact', { run_id: runId, include_output: true, include_result: true, bundle_inline: true });
    assert.ok(artifact.run_id === runId || artifact.run?.run_id === runId || artifact.output !== undefined);
    const long = await post('/v1/memory/sandbox/execute', { session_id: sid, mode: 'async', action: { kind: 'command', argv: ['sleep', '300'] } });
    await pollFor('the run to start', async () => (await post('/v1/memory/sandbox/runs/get', { run_id: long.run_id })).run.status === 'running', 120_000, 250);
    await post('/v1/memory/sandbox/runs/cancel', { run_id: long.run_id, reason: 'stop' });
    await pollFor('the run to be cancelled', async () => (await post('/v1/memory/sandbox/runs/get', { run_id: long.run_id })).run.status === 'cancelled', 120_000, 250);
    await refused('/v1/memory/sandbox/sessions', { profile: 'restricted' }, 400, 'invalid_request');
    row(
      'memory.sandbox.sessions.create',
      'memory.sandbox.execute',
      'memory.sandbox.runs.get',
      'memory.sandbox.runs.logs',
      'memory.sandbox.runs.artifact',
      'memory.sandbox.runs.cancel',
    );
  });

  it('every row of docs/compatibility.md was exercised above', () => {
    const doc = readFileSync(new URL('../../docs/compatibility.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([A-Za-z.]+)` \|/gm)].map((m) => m[1]!);
    assert.ok(rows.length > 60, `the table has ${rows.length} rows`);
    assert.deepEqual(
      rows.filter((r) => !covered.has(r)),
      [],
      'rows without a wire test',
    );
    assert.deepEqual(
      [...covered].filter((c) => !rows.includes(c)),
      [],
      'tested methods missing from the table',
    );
  });
});
