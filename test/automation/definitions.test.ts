/**
 * Definitions through HTTP: validation collects every problem at once, create/get/list/status with
 * their errors, and bad input answered with the contract's envelope (never a 500).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { branchGraph, createAutomation } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: false });
});
after(async () => api?.close());

const issuePaths = (body: { issues?: { path: string }[]; error?: { details: { issues: { path: string }[] } } }) =>
  (body.issues ?? body.error?.details.issues ?? []).map((i) => i.path);

describe('validate', () => {
  it('answers 200 valid with a topological order for a good graph (both entries)', async () => {
    for (const path of ['/v1/automations/validate', '/v1/automations/graph/validate']) {
      const res = await api.post(path, { graph: branchGraph('yes') });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.valid, true);
      assert.deepEqual(res.body.issues, []);
      assert.deepEqual(res.body.order, ['approve', 'check', 'yes', 'no']);
      assert.equal(res.body.node_count, 4);
      assert.equal(res.body.edge_count, 3);
    }
  });

  it('collects every problem at once, each with its path', async () => {
    const graph = {
      nodes: [
        { node_id: 'a', kind: 'approval', approval_key: 'ok' },
        { node_id: 'a', kind: 'approval', approval_key: 'dup' }, // duplicate id
        { node_id: '', kind: 'approval', approval_key: 'x' }, // empty id
        { node_id: 'k', kind: 'teleport' }, // unknown kind
        { node_id: 'p', kind: 'playbook' }, // missing playbook_id and version
        { node_id: 'q', kind: 'approval' }, // missing approval_key
        { node_id: 'c', kind: 'condition', condition: { left: '$nodes.z.summary', op: 'between' } }, // ref to a non-upstream node, bad op
        { node_id: 'g', kind: 'artifact_gate', artifacts: [{ path: '../etc/passwd' }] }, // bad path, no playbook upstream
        { node_id: 'x', kind: 'approval', approval_key: 'x' },
        { node_id: 'y', kind: 'approval', approval_key: 'y' },
        { node_id: 'z', kind: 'approval', approval_key: 'z', inputs: { v: '$nodes.', w: '$nodes.x.out' } }, // malformed ref, x not upstream
        'not a node',
      ],
      edges: [
        { from: 'a', to: 'ghost' }, // unknown node
        { from: 'x', to: 'y' },
        { from: 'y', to: 'x' }, // cycle x → y → x
        { from: 'a', to: 'c', type: 'on_failure' }, // unknown edge type
        { from: 'a', to: 'q', type: 'on_false' }, // on_false from a non-condition
        { from: 'c', to: 'z' },
        { from: 'c', to: 'z' }, // duplicate edge
      ],
    };
    const res = await api.post('/v1/automations/validate', { graph });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.valid, false);
    assert.equal(res.body.order, null);
    const paths = issuePaths(res.body);
    const messages = res.body.issues.map((i: { path: string; message: string }) => `${i.path}: ${i.message}`).join('\n');
    const expected = [
      'graph.nodes[1].node_id', // duplicate
      'graph.nodes[2].node_id', // empty
      'graph.nodes[3].kind', // unknown kind
      'graph.nodes[4].playbook_id',
      'graph.nodes[4].version',
      'graph.nodes[5].approval_key',
      'graph.nodes[6].condition.op',
      'graph.nodes[6].condition.left', // $nodes.z is downstream of c, not upstream
      'graph.nodes[7].artifacts[0].path',
      'graph.nodes[7].artifacts[0]', // no playbook upstream
      'graph.nodes[10].inputs.v', // malformed reference
      'graph.nodes[10].inputs.w', // x is not upstream of z
      'graph.nodes[11]',
      'graph.edges[0].to',
      'graph.edges[3].type',
      'graph.edges[4].type',
      'graph.edges[6]',
      'graph.edges', // the cycle
    ];
    for (const p of expected) assert.ok(paths.includes(p), `expected an issue at ${p}; got:\n${messages}`);
    assert.match(messages, /cycle: (x → y → x|y → x → y)/);
    assert.match(messages, /duplicate node_id 'a'/);
    assert.match(messages, /unknown kind 'teleport'/);
    assert.match(messages, /not upstream of 'c'/);
  });

  it('create answers 422 validation_failed with the same issues, and stores nothing', async () => {
    const id = uniqueName('bad');
    const res = await api.post('/v1/automations/create', {
      automation_id: id,
      name: 'bad',
      graph: {
        nodes: [
          { node_id: 'a', kind: 'approval' },
          { node_id: 'b', kind: 'condition', condition: { op: 'gt', left: true, right: 1 } },
        ],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'a' },
        ],
      },
    });
    const body = assertError(res, 422, 'validation_failed');
    const paths = issuePaths(body);
    assert.ok(paths.includes('graph.nodes[0].approval_key'));
    assert.ok(paths.includes('graph.nodes[1].condition.left'), 'gt compares numbers or strings');
    assert.ok(paths.includes('graph.edges'), 'the cycle');
    assertError(await api.post('/v1/automations/get', { automation_id: id }), 404, 'not_found');
  });

  it('a graph over 200 nodes is payload_too_large; an empty graph is invalid', async () => {
    const nodes = Array.from({ length: 201 }, (_, i) => ({ node_id: `n${i}`, kind: 'approval', approval_key: 'k' }));
    assertError(await api.post('/v1/automations/validate', { graph: { nodes } }), 413, 'payload_too_large');
    const ok = await api.post('/v1/automations/validate', { graph: { nodes: nodes.slice(0, 200) } });
    assert.equal(ok.body.valid, true);
    const empty = await api.post('/v1/automations/validate', { graph: { nodes: [], edges: [] } });
    assert.equal(empty.body.valid, false);
    assert.deepEqual(issuePaths(empty.body), ['graph.nodes']);
  });

  it('malformed requests are invalid_request, never a 500', async () => {
    for (const body of [{}, { graph: 'x' }, { graph: { nodes: 'x' } }, { graph: { nodes: [], edges: 3 } }, { graph: null }]) {
      assertError(await api.post('/v1/automations/validate', body), 400, 'invalid_request');
    }
    // Deep nesting is refused, never a stack overflow: past the request limit (64 levels) by the
    // transport, deeper than inputs may nest (32 levels) as a graph issue.
    const nest = (levels: number) => {
      let v: unknown = 'leaf';
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    const tooDeep = assertError(
      await api.post('/v1/automations/validate', { graph: { nodes: [{ node_id: 'a', kind: 'approval', approval_key: 'k', inputs: { deep: nest(1000) } }] } }),
      400,
      'invalid_request',
    );
    assert.equal(tooDeep.error.details.limit_depth, 64);
    const nested = await api.post('/v1/automations/validate', { graph: { nodes: [{ node_id: 'a', kind: 'approval', approval_key: 'k', inputs: { deep: nest(40) } }] } });
    assert.equal(nested.status, 200, JSON.stringify(nested.body).slice(0, 500));
    assert.deepEqual(issuePaths(nested.body), ['graph.nodes[0].inputs']);
    const raw = await api.app.inject({ method: 'POST', url: '/v1/automations/validate', payload: '{not json', headers: { 'content-type': 'application/json' } });
    assert.equal(raw.statusCode, 400);
  });
});

describe('definitions', () => {
  it('create stores a draft; the same content again is idempotent; other content is a conflict; unknown top-level fields are warnings, unknown graph keys validation_failed', async () => {
    const id = uniqueName('auto');
    const graph = branchGraph('yes');
    const res = await api.post('/v1/automations/create', { automation_id: id, name: 'Ship', status: 'draft', graph, extra_field: 1 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.warnings.map((w: { field: string }) => w.field),
      ['extra_field'],
    );
    assert.equal(res.body.created, true);
    assert.equal(res.body.tenant_id, 'default');
    assert.equal(res.body.automation.status, 'draft');
    assert.equal(res.body.automation.node_count, 4);
    assert.equal(res.body.automation.graph.edges[0].type, 'on_success');
    // A graph is closed: a key Lore does not know in a node is refused by name, never dropped.
    const unknownKey = assertError(
      await api.post('/v1/automations/create', { automation_id: id, name: 'Ship', graph: { ...graph, nodes: graph.nodes.map((n) => ({ ...n, ui: { x: 1 } })) } }),
      422,
      'validation_failed',
    );
    assert.equal(unknownKey.error.details.issues[0].key, 'ui');
    assert.ok(unknownKey.error.details.issues[0].accepted.includes('approval_key'));
    const again = await api.post('/v1/automations/create', { automation_id: id, name: 'Ship', graph });
    assert.equal(again.status, 200);
    assert.equal(again.body.created, false);
    assert.equal(again.body.automation.content_hash, res.body.automation.content_hash);
    const changed = { ...graph, nodes: graph.nodes.map((n) => (n.node_id === 'approve' ? { ...n, approval_key: 'other' } : n)) };
    const conflict = assertError(await api.post('/v1/automations/create', { automation_id: id, name: 'Ship', graph: changed }), 409, 'conflict');
    assert.equal(conflict.error.details.automation_id, id);
    const got = await api.post('/v1/automations/get', { automation_id: id });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.automation, res.body.automation);
  });

  it('status: draft → active → disabled → active; same status is a no-op; never back to draft', async () => {
    const id = uniqueName('st');
    await createAutomation(api, id, branchGraph('x'));
    const setStatus = (status: string, reason?: string) => api.post('/v1/automations/status', { automation_id: id, status, reason, actor: 'ops' });
    const a = await setStatus('active', 'ready');
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body.changed, true);
    assert.equal(a.body.automation.status, 'active');
    assert.equal((await setStatus('active')).body.changed, false);
    assert.equal((await setStatus('disabled', 'pause')).body.automation.status, 'disabled');
    const back = await setStatus('active');
    assert.equal(back.body.automation.status, 'active');
    assert.deepEqual(
      back.body.automation.status_history.map((h: { from: string | null; to: string; actor: string }) => [h.from, h.to, h.actor]),
      [
        [null, 'draft', 'local-user'],
        ['draft', 'active', 'ops'],
        ['active', 'disabled', 'ops'],
        ['disabled', 'active', 'ops'],
      ],
    );
    assertError(await setStatus('draft'), 400, 'invalid_request');
    assertError(await api.post('/v1/automations/status', { automation_id: uniqueName('nope'), status: 'active' }), 404, 'not_found');
    // Creating as anything but draft is refused (the spec creates drafts).
    assertError(await api.post('/v1/automations/create', { automation_id: uniqueName('x'), status: 'active', graph: branchGraph('x') }), 400, 'invalid_request');
  });

  it('list pages in creation order with a cursor and filters by status', async () => {
    const scope = uniqueName('list');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(`auto-${i}`);
      await createAutomation(api, `auto-${i}`, branchGraph(String(i)), { scope });
    }
    await api.post('/v1/automations/status', { scope, automation_id: 'auto-3', status: 'active' });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await api.post('/v1/automations/list', { scope, limit: 2, ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      seen.push(...res.body.automations.map((a: { automation_id: string }) => a.automation_id));
      assert.equal(res.body.automations[0].graph, undefined, 'graph only with include_graph');
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    assert.deepEqual(seen, ids);
    const active = await api.post('/v1/automations/list', { scope, status: 'active', include_graph: true });
    assert.deepEqual(
      active.body.automations.map((a: { automation_id: string }) => a.automation_id),
      ['auto-3'],
    );
    assert.equal(active.body.automations[0].graph.nodes.length, 4);
    assertError(await api.post('/v1/automations/list', { scope, cursor: 'garbage' }), 400, 'invalid_request');
    assertError(await api.post('/v1/automations/list', { scope, limit: 0 }), 400, 'invalid_request');
  });

  it('unknown ids are not_found with the id in details', async () => {
    const id = uniqueName('missing');
    const body = assertError(await api.post('/v1/automations/get', { automation_id: id }), 404, 'not_found');
    assert.equal(body.error.details.automation_id, id);
    assertError(await api.post('/v1/automations/run', { automation_id: id }), 404, 'not_found');
    assertError(await api.post('/v1/automations/runs/get', { run_id: id }), 404, 'not_found');
    assertError(await api.post('/v1/automations/runs/cancel', { run_id: id }), 404, 'not_found');
    assertError(await api.post('/v1/automations/runs/resume', { run_id: id, reason: 'r' }), 404, 'not_found');
    assertError(await api.post('/v1/automations/get', { automation_id: 'bad id with spaces' }), 400, 'invalid_request');
    assertError(await api.post('/v1/automations/runs/resume', { run_id: id }), 404, 'not_found'); // reason is optional
    assertError(await api.post('/v1/automations/runs/resume', { run_id: id, reason: '  ' }), 400, 'invalid_request'); // but not blank
    assertError(await api.post('/v1/automations/runs/resume', { run_id: id, decision: 'veto' }), 400, 'invalid_request');
    assertError(await api.post('/v1/automations/run', { automation_id: id, options: { execution_mode: 'turbo' } }), 400, 'invalid_request');
    const option = assertError(await api.post('/v1/automations/run', { automation_id: id, options: { stop_on_failur: false } }), 422, 'validation_failed');
    assert.deepEqual([option.error.details.issues[0].key, option.error.details.issues[0].accepted], ['stop_on_failur', ['execution_mode', 'record_run', 'stop_on_failure']]);
  });
});
