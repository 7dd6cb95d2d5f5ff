import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, type Identity } from '../helpers/isolation';
import { writeExecution } from './helpers';

/** Every learning route stays inside its tenant+scope, and rejects bad input with the envelope. */
describe('learning routes: isolation and bad input', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const task = { query_text: 'fix flaky retry in worker.ts', context: { task_kind: 'fix_flaky_test' }, candidates: ['read', 'edit', 'test'] };
  const post = async (path: string, body: object) => (await api.post(path, body)).body;

  async function learnWorkflow(owner: Identity) {
    for (const [i, goal] of ['fix flaky retry in worker.ts', 'flaky retry test in the worker', 'worker retry is nondeterministic'].entries()) {
      await writeExecution(api, owner, { goal, task_kind: 'fix_flaky_test', run_id: `r${i}`, steps: [{ tool: 'read', file_path: 'src/jobs/worker.ts' }] });
    }
  }
  async function trustPattern(owner: Identity): Promise<{ pattern_id: string; policy_id: string }> {
    let last: any;
    for (const r of ['a', 'b', 'c'])
      last = await post('/v1/memory/tools/feedback', { ...owner, outcome: 'positive', selected_tool: 'edit', run_id: r, input_text: task.query_text, context: task.context });
    return { pattern_id: last.pattern.pattern_id, policy_id: last.policy_memory.node_id };
  }

  const reads: [string, (b: any) => boolean][] = [
    ['/v1/memory/kickoff/recommendation', (b) => b.first_action !== null],
    ['/v1/memory/planning/context', (b) => b.planner_packet.sections.recommended_workflows.length > 0],
    ['/v1/memory/context/assemble', (b) => b.sources.length > 0],
    ['/v1/memory/action/retrieval', (b) => b.evidence.length > 0],
    ['/v1/memory/experience/intelligence', (b) => b.recommended_workflows.length > 0],
    ['/v1/memory/execution/introspect', (b) => b.demo_surface.sections.workflows.length > 0],
    ['/v1/memory/tools/select', (b) => b.history_applied === true],
    ['/v1/memory/evolution/review-pack', (b) => b.evolution_review_pack.stable_workflows.length > 0],
  ];
  for (const [path, seen] of reads) {
    it(`${path} is isolated`, async () => {
      await assertIsolated({ what: path, seed: learnWorkflow, sees: async (v) => seen(await post(path, { ...v, ...task })) });
    });
  }

  it('tools/feedback, patterns and governance are isolated', async () => {
    let ids: { pattern_id: string; policy_id: string } | null = null;
    await assertIsolated({
      what: 'tools/feedback',
      seed: async (o) => void (ids = await trustPattern(o)),
      sees: async (v) =>
        (await post('/v1/memory/tools/feedback', { ...v, outcome: 'neutral', selected_tool: 'edit', input_text: task.query_text, context: task.context })).pattern
          .distinct_positive_runs > 0,
    });
    await assertIsolated({
      what: 'patterns/suppress',
      seed: async (o) => void (ids = await trustPattern(o)),
      sees: async (v) => (await api.post('/v1/memory/patterns/suppress', { ...v, pattern_id: ids!.pattern_id })).status === 200,
    });
    await assertIsolated({
      what: 'policies/governance/apply',
      seed: async (o) => void (ids = await trustPattern(o)),
      sees: async (v) => (await api.post('/v1/memory/policies/governance/apply', { ...v, policy_memory_id: ids!.policy_id, action: 'retire', reason: 'x' })).status === 200,
    });
  });

  it('rules and continuity packs are isolated', async () => {
    await assertIsolated({
      what: 'rules/state',
      seed: async (o) => void (await post('/v1/memory/rules/state', { ...o, rule_id: 'r1', state: 'active', rule: { effects: [{ effect: 'deny', tool: 'bash' }] } })),
      sees: async (v) => (await api.post('/v1/memory/rules/state', { ...v, rule_id: 'r1', state: 'active' })).status === 200,
    });
    await assertIsolated({
      what: 'rules/evaluate',
      seed: async (o) => void (await post('/v1/memory/rules/state', { ...o, rule_id: 'r1', state: 'active', rule: { effects: [{ effect: 'deny', tool: 'bash' }] } })),
      sees: async (v) => (await post('/v1/memory/rules/evaluate', { ...v, ...task })).evaluation.matched.length > 0,
    });
    await assertIsolated({
      what: 'continuity/review-pack',
      seed: async (o) => void (await post('/v1/memory/handoff/store', { ...o, anchor: 'a1', summary: 'half done', target_files: ['x.ts'], next_action: 'finish' })),
      sees: async (v) => (await api.post('/v1/memory/continuity/review-pack', { ...v, anchor: 'a1' })).status === 200,
    });
  });

  it('bad input is invalid_request (never a 500); unknown fields are ignored', async () => {
    const id = { tenant_id: 'acme', scope: 'bad-input' };
    const paths = [...reads.map(([p]) => p), '/v1/memory/rules/evaluate'];
    for (const path of paths) {
      assertError(await api.post(path, { ...id, query_text: 42 }), 400, 'invalid_request');
      assertError(await api.post(path, { ...id, candidates: 'read' }), 400, 'invalid_request');
      assertError(await api.post(path, { ...id, context: 'fix it' }), 400, 'invalid_request');
      assertError(await api.post(path, { ...id, tenant_id: 'bad tenant!' }), 400, 'invalid_request');
      const res = await api.post(path, { ...id, query_text: 'anything', some_future_field: { x: 1 } });
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    }
    assertError(await api.post('/v1/memory/kickoff/recommendation', { ...id, query_text: 'x'.repeat(70_000) }), 413, 'payload_too_large');
    assertError(await api.post('/v1/memory/tools/feedback', { ...id, outcome: 'great', selected_tool: 'edit', input_text: 'x' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/tools/feedback', { ...id, outcome: 'positive', input_text: 'x' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/tools/feedback', { ...id, outcome: 'positive', selected_tool: 'edit', input_text: 'x', target: 'workflow' }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/patterns/suppress', { ...id, pattern_id: '019b0000-0000-7000-8000-000000000000' }), 404, 'not_found');
    assertError(await api.post('/v1/memory/patterns/unsuppress', { ...id }), 400, 'invalid_request');
    assertError(await api.post('/v1/memory/execution/introspect', { ...id, limit: 0 }), 400, 'invalid_request');
  });
});
