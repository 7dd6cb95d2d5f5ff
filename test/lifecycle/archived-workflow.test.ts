import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/model/clock';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { DAY, runOperator } from './helpers';

/**
 * Proof 2: archived memory is offered, not injected. A learned workflow that went unused long
 * enough is archived by the operator; planning/context then lists it under
 * planner_packet.sections.rehydration_candidates (and not among the workflows it applies), and
 * task start does not use it. Rehydrating it makes the next task start use it again.
 * Needs the learning family's routes (contract.md §2): planning/context, kickoff/recommendation.
 */

const RUNS = ['fix flaky retry in worker.ts', 'fix the flaky retry test for the worker', 'resolve flaky retries in the job worker'];
const STEPS = [
  { tool: 'read', file_path: 'src/jobs/worker.ts' },
  { tool: 'edit', file_path: 'src/jobs/worker.ts' },
  { tool: 'test', command: 'npm test -- worker' },
];
const TASK = 'the flaky retry in the worker fails again';

async function ok(api: TestApi, path: string, body: unknown) {
  const res = await api.post(path, body);
  assert.equal(res.status, 200, `${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const ids = (entries: any[] | undefined) => (entries ?? []).map((e) => e.id);

describe('archived workflows and planning', () => {
  let api: TestApi;
  const clock = new ManualClock('2026-01-01T00:00:00.000Z');
  before(async () => {
    api = await startTestApi({ worker: true, clock });
  });
  after(async () => api?.close());

  it('offers an archived workflow as a rehydration candidate, and uses it again once rehydrated', async () => {
    const id = { tenant_id: 'acme', scope: uniqueName('wf') };
    for (const [i, goal] of RUNS.entries()) {
      await ok(api, '/v1/memory/write', {
        ...id,
        execution: { goal, run_id: `run-${i}`, steps: STEPS, target_files: ['src/jobs/worker.ts'], outcome: 'success', next_action: 'read the retry loop in src/jobs/worker.ts' },
      });
    }
    const found = await ok(api, '/v1/memory/find', { ...id, kinds: ['workflow'] });
    assert.equal(found.nodes.length, 1, `one learned workflow: ${JSON.stringify(found.nodes.map((n: any) => n.title))}`);
    const workflowId: string = found.nodes[0].id;

    const warm = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: TASK, candidates: ['read', 'edit', 'test'] });
    assert.equal(warm.first_action?.source_kind, 'stable_workflow', 'learned before it is archived');

    // A year and more without use: the operator archives the workflow (and the evidence).
    clock.advance(400 * DAY);
    await runOperator(api, id);
    const archived = await ok(api, '/v1/memory/resolve', { ...id, id: workflowId });
    assert.equal(archived.node.tier, 'archive');
    assert.equal(archived.node.slots.archive_relocation_v1.payload_scope, 'anchor_payload', 'a workflow is anchored workflow memory');

    const plan = await ok(api, '/v1/memory/planning/context', { ...id, query_text: TASK, context: { goal: TASK }, tool_candidates: ['read', 'edit', 'test'] });
    const sections = plan.planner_packet.sections;
    assert.ok(ids(sections.rehydration_candidates).includes(workflowId), `offered for rehydration: ${JSON.stringify(sections.rehydration_candidates)}`);
    assert.ok(!ids(sections.recommended_workflows).includes(workflowId), 'not applied while archived');
    assert.ok(!ids(sections.candidate_workflows).includes(workflowId), 'not injected as a live candidate');
    assert.ok(plan.planning_summary.forgetting_summary.differential_rehydration_candidate_count >= 1);
    assert.ok(plan.planning_summary.forgetting_summary.tier_counts.archive >= 1);

    const cold = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: TASK, candidates: ['read', 'edit', 'test'] });
    assert.notEqual(cold.first_action?.source_kind, 'stable_workflow', 'task start does not use an archived workflow');

    const r = await ok(api, '/v1/memory/archive/rehydrate', { ...id, ids: [workflowId], target_tier: 'warm', reason: 'planning offered it' });
    assert.deepEqual(
      r.nodes.map((n: any) => [n.id, n.from_tier, n.to_tier, n.payload_restored]),
      [[workflowId, 'archive', 'warm', true]],
    );

    const again = await ok(api, '/v1/memory/kickoff/recommendation', { ...id, query_text: TASK, candidates: ['read', 'edit', 'test'] });
    const fa = again.first_action;
    assert.ok(fa, `a first action once rehydrated: ${JSON.stringify(again)}`);
    assert.equal(fa.source_kind, 'stable_workflow');
    assert.equal(fa.selected_tool, 'read');
    assert.equal(fa.file_path, 'src/jobs/worker.ts');
    const replanned = await ok(api, '/v1/memory/planning/context', { ...id, query_text: TASK, context: { goal: TASK }, tool_candidates: ['read', 'edit', 'test'] });
    assert.ok(!ids(replanned.planner_packet.sections.rehydration_candidates).includes(workflowId), 'no longer a rehydration candidate');
    assert.ok(ids(replanned.planner_packet.sections.recommended_workflows).includes(workflowId), 'recommended again');
  });
});
