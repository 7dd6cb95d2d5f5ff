import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError, assertIsolated } from '../helpers/isolation';

describe('POST /v1/memory/write', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => api?.close());

  const scope = () => ({ tenant_id: 'acme', scope: uniqueName('w') });

  it('an input_text-only write stores one event node, with a summary and extracted signals', async () => {
    const id = scope();
    const text =
      'Fixed the flaky retry test in src/payments/retry.ts. Steps: read tests/payments/retry.test.ts, then ran npm test -- tests/payments/retry.test.ts. ' +
      "First run failed with: TypeError: Cannot read properties of undefined (reading 'delay'). Outcome: all tests passed.";
    const res = await api.post('/v1/memory/write', { ...id, input_text: text });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.tenant_id, 'acme');
    assert.equal(res.body.nodes.length, 1);
    const [n] = res.body.nodes;
    assert.equal(n.type, 'event');
    assert.equal(n.tier, 'hot');
    assert.equal(n.outcome, 'created');
    assert.match(res.body.commit_id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(res.body.extracted.file_paths, ['src/payments/retry.ts', 'tests/payments/retry.test.ts']);
    assert.deepEqual(res.body.extracted.commands, ['npm test -- tests/payments/retry.test.ts']);
    assert.equal(res.body.extracted.outcome, 'success');
    assert.deepEqual(res.body.learning, { workflows_updated: [], patterns_updated: [], workflow_anchors: [] });

    const got = await api.post('/v1/memory/resolve', { ...id, id: n.id });
    assert.equal(got.status, 200);
    assert.equal(got.body.node.text, text);
    assert.ok(got.body.node.summary.length > 0 && got.body.node.summary.length <= 281);
    const slot = got.body.node.slots.execution_native_v1;
    assert.equal(slot.version, 1);
    assert.deepEqual(slot.tools, ['read', 'test']);
    assert.deepEqual(slot.error_classes, ['TypeError']);
    assert.equal(slot.task_signature.version, 1);
    assert.equal(got.body.node.commit_id, res.body.commit_id);
  });

  it('the execution form stores a readable node and its structured signals', async () => {
    const id = scope();
    const res = await api.post('/v1/memory/write', {
      ...id,
      execution: {
        task_kind: 'fix_auth',
        goal: 'Fix JWT refresh for expired tokens',
        run_id: 'run-42',
        steps: [
          { tool: 'read', file_path: 'app/auth/token.py' },
          { tool: 'edit', file_path: 'app/auth/token.py' },
          { tool: 'bash', command: 'pytest tests/auth/test_token.py -q', outcome: 'passed' },
        ],
        target_files: ['app/auth/token.py'],
        outcome: 'success',
        error_signature: "KeyError: 'exp'",
        next_action: 'open a PR',
        acceptance_checks: ['pytest tests/auth -q'],
      },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.extracted.tools, ['read', 'edit', 'bash']);
    assert.equal(res.body.extracted.outcome, 'success');
    assert.equal(res.body.extracted.task_signature.task_kind, 'fix_auth');
    const got = await api.post('/v1/memory/resolve', { ...id, id: res.body.nodes[0].id });
    assert.equal(got.body.node.title, 'Fix JWT refresh for expired tokens');
    assert.match(got.body.node.text, /Step 3: bash .*pytest tests\/auth\/test_token.py -q/);
    const slot = got.body.node.slots.execution_native_v1;
    assert.equal(slot.run_id, 'run-42');
    assert.deepEqual(slot.target_files, ['app/auth/token.py']);
    assert.equal(slot.steps.length, 3);
    assert.equal(slot.next_action, 'open a PR');
    const rec = await api.post('/v1/memory/recall_text', { ...id, query_text: 'JWT token refresh' });
    assert.equal(rec.body.results[0].id, res.body.nodes[0].id);
  });

  it('accepts the batch body of the load generator (extra fields ignored) as one node', async () => {
    const id = scope();
    const body = {
      ...id,
      actor: 'bench-agent',
      input_text: 'Fix retry backoff in payments handler. Run r0001: fixed retry backoff in src/payments/handler.ts. Outcome: all tests passed.',
      memory_lane: 'shared',
      producer_agent_id: 'bench-agent',
      owner_agent_id: 'bench-agent',
      nodes: [
        {
          client_id: 'bench:s:1',
          type: 'event',
          title: 'Fix retry backoff in payments handler',
          text_summary: 'Run r0001: fixed retry backoff in src/payments/handler.ts. Outcome: all tests passed.',
          slots: { task_kind: 'fix_payments', file_path: 'src/payments/handler.ts', tool_sequence: ['read', 'edit', 'test'], outcome_status: 'success', run_ref: 'r0001' },
          producer_agent_id: 'bench-agent',
          memory_lane: 'shared',
        },
      ],
      edges: [],
    };
    const res = await api.post('/v1/memory/write', body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.nodes.length, 1);
    assert.equal(res.body.nodes[0].client_id, 'bench:s:1');
    // Top-level fields Lore has no use for are accepted and named (nested ones are dropped quietly).
    assert.deepEqual(
      res.body.warnings.map((w: { code: string; field: string }) => `${w.code}:${w.field}`),
      ['unknown_field:memory_lane', 'unknown_field:producer_agent_id', 'unknown_field:owner_agent_id'],
    );
    const got = await api.post('/v1/memory/resolve', { ...id, client_id: 'bench:s:1' });
    assert.equal(got.body.node.text, body.input_text, 'input_text is the evidence of the one node without text');
    assert.equal(got.body.node.summary, body.nodes[0]!.text_summary);
    assert.equal(got.body.node.slots.task_kind, 'fix_payments', 'caller slots are kept');
    assert.equal(got.body.node.slots.execution_native_v1.outcome_source, 'slots');
    assert.equal(got.body.node.slots.execution_native_v1.run_id, 'r0001');
    assert.equal(got.body.node.actor, 'bench-agent');
    assert.equal(got.body.node.slots.memory_lane, undefined);
  });

  it('accepts the LoCoMo benchmark bodies (input_text with client_id, and with aionis nodes)', async () => {
    const id = scope();
    const a = await api.post('/v1/memory/write', {
      ...id,
      actor: 'locomo-bench',
      input_text: '[1:56 pm on 8 May, 2023] Caroline: I went to a LGBTQ support group yesterday.',
      client_id: 'locomo:26:D1:3',
    });
    assert.equal(a.status, 200);
    assert.equal(a.body.nodes[0].client_id, 'locomo:26:D1:3');
    const text = '[1:56 pm on 8 May, 2023] Melanie: That sounds great!';
    const b = await api.post('/v1/memory/write', { ...id, input_text: text, nodes: [{ client_id: 'locomo:26:D1:4', type: 'event', text_summary: text }] });
    assert.equal(b.status, 200);
    assert.equal(b.body.nodes.length, 1);
    const found = await api.post('/v1/memory/find', { ...id });
    assert.equal(found.body.nodes.length, 2);
  });

  it('stores input_text as its own node (with a warning) when several batch nodes lack text', async () => {
    const id = scope();
    const res = await api.post('/v1/memory/write', {
      ...id,
      input_text: 'the whole story',
      nodes: [
        { client_id: 'n1', text_summary: 'first part' },
        { client_id: 'n2', text_summary: 'second part' },
      ],
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.nodes.length, 3);
    assert.equal(res.body.warnings[0].code, 'input_text_stored_separately');
    const texts = (await api.post('/v1/memory/find', { ...id })).body.nodes.map((n: { text: string }) => n.text).sort();
    assert.deepEqual(texts, ['first part', 'second part', 'the whole story']);
  });

  it('writes edges by client_id (same write) and by node id (earlier write); a replay does not duplicate them', async () => {
    const id = scope();
    const first = await api.post('/v1/memory/write', { ...id, input_text: 'the parent topic', client_id: 'topic-1', type: 'topic' });
    const parentId = first.body.nodes[0].id;
    const body = {
      ...id,
      nodes: [
        { client_id: 'c1', text: 'child one' },
        { client_id: 'c2', text: 'child two' },
      ],
      edges: [
        { src: 'c1', dst: parentId, type: 'part_of' },
        { src: 'c2', dst: 'topic-1', type: 'part_of' },
        { src: 'c2', dst: 'c1', type: 'derived_from' },
      ],
    };
    const res = await api.post('/v1/memory/write', body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.edges.length, 3);
    const again = await api.post('/v1/memory/write', body);
    assert.equal(again.body.deduplicated, true);
    const parent = await api.post('/v1/memory/resolve', { ...id, id: parentId });
    assert.equal(parent.body.edges.length, 2, 'two part_of edges into the parent, once each');
    const c2 = await api.post('/v1/memory/resolve', { ...id, client_id: 'c2' });
    assert.deepEqual(c2.body.edges.map((e: { type: string }) => e.type).sort(), ['derived_from', 'part_of']);
  });

  it('an unknown edge endpoint is not_found and nothing is written', async () => {
    const id = scope();
    const res = await api.post('/v1/memory/write', { ...id, nodes: [{ client_id: 'lonely', text: 'x' }], edges: [{ src: 'lonely', dst: 'nobody', type: 'related_to' }] });
    const body = assertError(res, 404, 'not_found');
    assert.equal(body.error.details.ref, 'nobody');
    const found = await api.post('/v1/memory/find', { ...id });
    assert.equal(found.body.nodes.length, 0);
  });

  it('client_id: same content is idempotent; new content supersedes and keeps the old as a revision', async () => {
    const id = scope();
    const w1 = await api.post('/v1/memory/write', { ...id, client_id: 'note-1', input_text: 'the cache key includes the tenant' });
    const w2 = await api.post('/v1/memory/write', { ...id, client_id: 'note-1', input_text: 'the cache key includes the tenant' });
    assert.equal(w2.body.nodes[0].id, w1.body.nodes[0].id);
    assert.equal(w2.body.deduplicated, true);
    assert.equal(w2.body.nodes[0].outcome, 'deduplicated');
    const w3 = await api.post('/v1/memory/write', { ...id, client_id: 'note-1', input_text: 'the cache key includes tenant and locale' });
    assert.equal(w3.body.nodes[0].id, w1.body.nodes[0].id);
    assert.equal(w3.body.nodes[0].outcome, 'superseded');
    assert.equal(w3.body.nodes[0].revision, 2);
    const got = await api.post('/v1/memory/resolve', { ...id, client_id: 'note-1' });
    assert.equal(got.body.node.text, 'the cache key includes tenant and locale');
    assert.equal(got.body.revisions.length, 1);
    assert.equal(got.body.revisions[0].revision, 1);
    assert.equal(got.body.revisions[0].text, 'the cache key includes the tenant');
    const rec = await api.post('/v1/memory/recall_text', { ...id, query_text: 'locale' });
    assert.equal(rec.body.results.length, 1, 'the new content is recallable at once');
  });

  it('tells write listeners (the learning hook) and reports what they updated', async () => {
    const id = scope();
    const seen: string[] = [];
    const off = api.modules.memory.services.onWrite((e) => {
      seen.push(e.nodes[0]!.node.id);
      return { workflows_updated: ['wf-1'], patterns_updated: [] };
    });
    const offBad = api.modules.memory.services.onWrite(() => {
      throw new Error('learning is down');
    });
    try {
      const res = await api.post('/v1/memory/write', { ...id, input_text: 'observed by learning' });
      assert.equal(res.status, 200);
      assert.deepEqual(seen, [res.body.nodes[0].id]);
      assert.deepEqual(res.body.learning.workflows_updated, ['wf-1']);
      assert.equal(res.body.warnings[0].code, 'learning_failed', 'a failing listener is a warning, not a failed write');
    } finally {
      off();
      offBad();
    }
  });

  it('a batch node may name its own id (a UUID): kept, superseded by a second write, edges by it; a taken id is conflict', async () => {
    const id = scope();
    const a = randomUUID();
    const b = randomUUID();
    const res = await api.post('/v1/memory/write', {
      ...id,
      nodes: [
        { id: a, type: 'event', text_summary: 'The payload log of the export repair.' },
        { id: b, type: 'procedure', text_summary: 'Export repair guidance.', slots: { anchor_v1: { anchor_kind: 'workflow', summary: 'export repair' } } },
      ],
      edges: [{ src: { id: b }, dst: { id: a }, type: 'derived_from' }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.nodes.map((n: any) => n.id),
      [a, b],
    );
    assert.equal(res.body.nodes[1].kind, 'workflow_anchor', 'a declared workflow anchor');
    assert.deepEqual(res.body.learning.workflow_anchors, [{ workflow_id: b, uri: res.body.nodes[1].uri, source: 'declared' }]);
    assert.deepEqual([res.body.edges[0].src, res.body.edges[0].dst], [b, a]);
    const again = await api.post('/v1/memory/write', { ...id, nodes: [{ id: a, type: 'event', text_summary: 'The payload log, revised.' }] });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.nodes[0].id, a);
    assert.equal(again.body.nodes[0].outcome, 'superseded');
    assert.equal(again.body.nodes[0].revision, 2);
    const same = await api.post('/v1/memory/write', { ...id, nodes: [{ id: a, type: 'event', text_summary: 'The payload log, revised.' }] });
    assert.equal(same.body.nodes[0].outcome, 'deduplicated');
    // Node ids are unique store-wide: another scope cannot take it; nor can a client_id of another node.
    const elsewhere = await api.post('/v1/memory/write', { tenant_id: 'acme', scope: uniqueName('w'), nodes: [{ id: a, type: 'event', text_summary: 'mine' }] });
    assertError(elsewhere, 409, 'conflict');
    await api.post('/v1/memory/write', { ...id, nodes: [{ client_id: 'named', type: 'event', text_summary: 'named node' }] });
    assertError(await api.post('/v1/memory/write', { ...id, nodes: [{ id: randomUUID(), client_id: 'named', type: 'event', text_summary: 'x' }] }), 409, 'conflict');
    assertError(await api.post('/v1/memory/write', { ...id, nodes: [{ id: 'not-a-uuid', type: 'event', text_summary: 'x' }] }), 400, 'invalid_request');
    assertError(
      await api.post('/v1/memory/write', {
        ...id,
        nodes: [
          { id: b, type: 'event', text_summary: 'x' },
          { id: b, type: 'event', text_summary: 'y' },
        ],
      }),
      400,
      'invalid_request',
    );
  });

  it('feedback counters declared in slots are the counters a new node starts with', async () => {
    const id = scope();
    const res = await api.post('/v1/memory/write', {
      ...id,
      nodes: [{ type: 'event', text_summary: 'A note the caller already knows to be doubtful.', slots: { feedback_positive: 1, feedback_negative: 1 } }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const node = (await api.post('/v1/memory/resolve', { ...id, id: res.body.nodes[0].id })).body.node;
    assert.equal(node.feedback.positive, 1);
    assert.equal(node.feedback.negative, 1);
    assert.equal(node.feedback.quality, 0);
  });

  it('rejects bad input with invalid_request, never 500', async () => {
    const id = scope();
    const cases: [unknown, string][] = [
      [{}, 'input_text'],
      [{ input_text: '   ' }, 'input_text'],
      [{ input_text: 5 }, 'input_text'],
      [{ input_text: 'x', tier: 'lukewarm' }, 'tier'],
      [{ input_text: 'x', type: 'blob' }, 'type'],
      [{ input_text: 'x', client_id: 'has spaces' }, 'client_id'],
      [{ input_text: 'x', importance: 3 }, 'importance'],
      [{ input_text: 'x', tags: 'not-an-array' }, 'tags'],
      [{ nodes: 'x' }, 'nodes'],
      [{ nodes: [{ client_id: 'a' }] }, 'nodes.0'],
      [{ input_text: 'x', edges: [{ src: 'a' }] }, 'edges.0.dst'],
      [{ input_text: 'x', edges: [{ src: 'a', dst: 'b', type: 'likes' }] }, 'edges.0.type'],
      [{ execution: { outcome: 'meh' } }, 'execution.outcome'],
      [{ execution: { steps: [{ file_path: 'a.ts' }] } }, 'execution.steps.0.tool'],
    ];
    for (const [body, path] of cases) {
      const res = await api.post('/v1/memory/write', { ...id, ...(body as object) });
      const err = assertError(res, 400, 'invalid_request');
      assert.ok(
        err.error.details.issues.some((i: { path: string }) => i.path === path),
        `${JSON.stringify(body)} → ${JSON.stringify(err.error.details.issues)}`,
      );
    }
    const dup = await api.post('/v1/memory/write', {
      ...id,
      nodes: [
        { client_id: 'd', text: 'a' },
        { client_id: 'd', text: 'b' },
      ],
    });
    assertError(dup, 400, 'invalid_request');
    const self = await api.post('/v1/memory/write', { ...id, nodes: [{ client_id: 'd', text: 'a' }], edges: [{ src: 'd', dst: 'd' }] });
    assertError(self, 400, 'invalid_request');
  });

  it('oversized text or slots are payload_too_large, never truncated', async () => {
    const id = scope();
    assertError(await api.post('/v1/memory/write', { ...id, input_text: 'x'.repeat(64 * 1024 + 1) }), 413, 'payload_too_large');
    assertError(await api.post('/v1/memory/write', { ...id, nodes: [{ text: 'é'.repeat(40 * 1024) }] }), 413, 'payload_too_large');
    assertError(await api.post('/v1/memory/write', { ...id, input_text: 'x', slots: { blob: 'y'.repeat(70 * 1024) } }), 413, 'payload_too_large');
    const ok = await api.post('/v1/memory/write', { ...id, input_text: 'x'.repeat(64 * 1024) });
    assert.equal(ok.status, 200, 'exactly 64 KiB is accepted');
  });

  it('keeps tenants and scopes apart', async () => {
    await assertIsolated({
      what: 'memory.write',
      seed: async (owner) => {
        const r = await api.post('/v1/memory/write', { ...owner, client_id: 'iso-1', input_text: 'isolated quokka evidence' });
        assert.equal(r.status, 200);
      },
      sees: async (viewer) => {
        const byClient = await api.post('/v1/memory/find', { ...viewer, client_id: 'iso-1' });
        const byText = await api.post('/v1/memory/recall_text', { ...viewer, query_text: 'quokka' });
        return byClient.body.nodes.length > 0 || byText.body.results.length > 0;
      },
    });
    // The same client_id in two scopes is two nodes.
    const a = await api.post('/v1/memory/write', { tenant_id: 't1', scope: 'same', client_id: 'shared-id', input_text: 'one' });
    const b = await api.post('/v1/memory/write', { tenant_id: 't2', scope: 'same', client_id: 'shared-id', input_text: 'one' });
    assert.notEqual(a.body.nodes[0].id, b.body.nodes[0].id);
    assert.equal(b.body.nodes[0].outcome, 'created');
  });
});
