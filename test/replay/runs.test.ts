/**
 * Recorded runs and steps (contract.md §6): open → ended, (run_id, step_index) unique, step/after
 * needs its step/before, no steps on an ended run, unknown runs, ordering, bad input, and
 * idempotent repeats.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { getRun, ok } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: false });
});
after(async () => {
  await api?.close();
});

const post = (path: string, body: unknown) => api.post(`/v1/memory/replay/${path}`, body);

describe('replay runs and steps', () => {
  it('records a run step by step; runs/get returns it with its steps in step_index order', async () => {
    const start = await ok(api, '/v1/memory/replay/run/start', { run_id: 'r-order', goal: 'fix the flaky test', metadata: { ticket: 'T-1' } });
    assert.equal(start.created, true);
    assert.equal(start.run.state, 'open');
    assert.equal(start.run.status, 'open');
    assert.equal(start.tenant_id, 'default');
    // Written out of order; read back in order.
    for (const i of [2, 0, 1]) {
      const b = await ok(api, '/v1/memory/replay/step/before', { run_id: 'r-order', step_index: i, tool_name: `tool_${i}`, tool_input: { n: i } });
      assert.equal(b.step.status, 'started');
    }
    const a = await ok(api, '/v1/memory/replay/step/after', { run_id: 'r-order', step_index: 1, status: 'success', output_signature: { kind: 'text', summary: 'ok' } });
    assert.equal(a.step.status, 'success');
    assert.deepEqual(a.step.output_signature, { kind: 'text', summary: 'ok' });
    const mid = await getRun(api, 'r-order');
    assert.deepEqual(
      mid.steps.map((s: any) => [s.step_index, s.status]),
      [
        [0, 'started'],
        [1, 'success'],
        [2, 'started'],
      ],
    );
    const end = await ok(api, '/v1/memory/replay/run/end', { run_id: 'r-order', status: 'failed', summary: 'gave up' });
    assert.equal(end.run.state, 'ended');
    assert.equal(end.run.status, 'failure', '`failed` is accepted as failure');
    assert.ok(end.run.ended_at);
    const got = await getRun(api, 'r-order');
    assert.equal(got.summary, 'gave up');
    assert.equal(got.step_count, 3);
    assert.deepEqual(got.metadata, { ticket: 'T-1' });
    const noSteps = await ok(api, '/v1/memory/replay/runs/get', { run_id: 'r-order', include_steps: false });
    assert.equal(noSteps.run.steps, undefined);
    assert.equal(noSteps.run.step_count, 3);
  });

  it('repeats with the same content are answered again; different content conflicts', async () => {
    await ok(api, '/v1/memory/replay/run/start', { run_id: 'r-idem', goal: 'g' });
    const again = await ok(api, '/v1/memory/replay/run/start', { run_id: 'r-idem', goal: 'g' });
    assert.equal(again.created, false);
    assertError(await post('run/start', { run_id: 'r-idem', goal: 'another goal' }), 409, 'conflict');

    await ok(api, '/v1/memory/replay/step/before', { run_id: 'r-idem', step_index: 0, tool_name: 'read', tool_input: { path: 'a' } });
    const b2 = await ok(api, '/v1/memory/replay/step/before', { run_id: 'r-idem', step_index: 0, tool_name: 'read', tool_input: { path: 'a' } });
    assert.equal(b2.created, false);
    assertError(await post('step/before', { run_id: 'r-idem', step_index: 0, tool_name: 'read', tool_input: { path: 'b' } }), 409, 'conflict');

    await ok(api, '/v1/memory/replay/step/after', { run_id: 'r-idem', step_index: 0, status: 'success', output_signature: { summary: 'x' } });
    const a2 = await ok(api, '/v1/memory/replay/step/after', { run_id: 'r-idem', step_index: 0, status: 'success', output_signature: { summary: 'x' } });
    assert.equal(a2.created, false);
    assertError(await post('step/after', { run_id: 'r-idem', step_index: 0, status: 'failed' }), 409, 'conflict');

    await ok(api, '/v1/memory/replay/run/end', { run_id: 'r-idem', status: 'success', summary: 'done' });
    await ok(api, '/v1/memory/replay/run/end', { run_id: 'r-idem', status: 'success', summary: 'done' });
    const diff = assertError(await post('run/end', { run_id: 'r-idem', status: 'partial', summary: 'done' }), 409, 'invalid_state');
    assert.equal(diff.error.details.state, 'ended');
  });

  it('step/after without its step/before is invalid_state', async () => {
    await ok(api, '/v1/memory/replay/run/start', { run_id: 'r-nobefore', goal: 'g' });
    const res = assertError(await post('step/after', { run_id: 'r-nobefore', step_index: 0, status: 'success' }), 409, 'invalid_state');
    assert.equal(res.error.details.state, 'not_started');
    assert.equal(res.error.details.step_index, 0);
  });

  it('steps and ends on an ended run are invalid_state (state ended)', async () => {
    await ok(api, '/v1/memory/replay/run/start', { run_id: 'r-ended', goal: 'g' });
    await ok(api, '/v1/memory/replay/step/before', { run_id: 'r-ended', step_index: 0, tool_name: 't', tool_input: {} });
    await ok(api, '/v1/memory/replay/run/end', { run_id: 'r-ended', status: 'cancelled', summary: 'stop' });
    for (const [path, body] of [
      ['step/before', { run_id: 'r-ended', step_index: 1, tool_name: 't', tool_input: {} }],
      ['step/after', { run_id: 'r-ended', step_index: 0, status: 'success' }],
    ] as const) {
      const res = assertError(await post(path, body), 409, 'invalid_state');
      assert.equal(res.error.details.state, 'ended', path);
    }
  });

  it('unknown runs are not_found on every route', async () => {
    for (const [path, body] of [
      ['step/before', { run_id: 'nope', step_index: 0, tool_name: 't', tool_input: {} }],
      ['step/after', { run_id: 'nope', step_index: 0, status: 'success' }],
      ['run/end', { run_id: 'nope', status: 'success' }],
      ['runs/get', { run_id: 'nope' }],
      ['playbooks/compile_from_run', { run_id: 'nope' }],
    ] as const) {
      const res = assertError(await post(path, body), 404, 'not_found');
      assert.equal(res.error.details.run_id, 'nope', path);
    }
  });

  it('bad input is invalid_request (never a 500); unknown fields are ignored; oversized input is payload_too_large', async () => {
    const bad: [string, unknown][] = [
      ['run/start', {}],
      ['run/start', { goal: 5 }],
      ['run/start', { goal: 'g', run_id: 'has spaces' }],
      ['step/before', { run_id: 'r', step_index: -1, tool_name: 't', tool_input: {} }],
      ['step/before', { run_id: 'r', step_index: 0, tool_name: '', tool_input: {} }],
      ['step/before', { run_id: 'r', step_index: 0, tool_name: 't', tool_input: 'not an object' }],
      ['step/before', { run_id: 'r', step_index: 1.5, tool_name: 't', tool_input: {} }],
      ['step/after', { run_id: 'r', step_index: 0, status: 'done' }],
      ['step/after', { run_id: 'r', step_index: 0, status: 'success', output_signature: { summary: 7 } }],
      ['run/end', { run_id: 'r', status: 'ok' }],
      ['runs/get', { run_id: ['x'] }],
      ['runs/get', { tenant_id: 'bad tenant!', run_id: 'x' }],
    ];
    for (const [path, body] of bad) {
      const res = await post(path, body);
      assertError(res, 400, 'invalid_request');
      assert.ok(Array.isArray(res.body.error.details.issues), `${path} ${JSON.stringify(body)}`);
    }
    const start = await ok(api, '/v1/memory/replay/run/start', { run_id: 'r-extra', goal: 'g', context_snapshot_ref: 'x', consumer_agent_id: 'a' });
    assert.equal(start.run.run_id, 'r-extra');
    const big = await post('step/before', { run_id: 'r-extra', step_index: 0, tool_name: 't', tool_input: { blob: 'x'.repeat(70 * 1024) } });
    assertError(big, 413, 'payload_too_large');
  });

  it('run/start without a run_id gets a server id', async () => {
    const r = await ok(api, '/v1/memory/replay/run/start', { goal: 'server id' });
    assert.match(r.run_id, /^[0-9a-f-]{36}$/);
    assert.equal((await getRun(api, r.run_id)).goal, 'server id');
  });
});
