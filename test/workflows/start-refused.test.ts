/**
 * One start for every workflow-backed run (src/domain/runs/start.ts): the run is recorded, then its
 * workflow started; when the engine refuses the start, the call fails and the record is ended with
 * the reason, so no automation, playbook or sandbox run stays queued with nothing to pick it up.
 * A repeated run_id answers the stored run and starts nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { createAutomation, makePlaybook } from '../automation/helpers';
import { createSession } from '../sandbox/helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

const REFUSED = 'the engine is down (test)';

/** Makes the engine refuse every start while fn runs; returns how many starts were asked for. */
async function withRefusedStarts(fn: () => Promise<void>): Promise<number> {
  const engine = api.engine as unknown as { start: (...a: unknown[]) => Promise<unknown> };
  const real = engine.start;
  let asked = 0;
  engine.start = async () => {
    asked += 1;
    throw new Error(REFUSED);
  };
  try {
    await fn();
  } finally {
    engine.start = real;
  }
  return asked;
}

const handedOver = `the run could not be handed to the workflow engine: ${REFUSED}`;

describe('a start the engine refuses', () => {
  it('automation: the call fails, the run is failed with the reason and its nodes are settled; a repeat starts nothing', async () => {
    const id = uniqueName('refused');
    await createAutomation(api, id, { nodes: [{ node_id: 'gate', kind: 'approval', approval_key: 'go' }], edges: [] });
    const run_id = uniqueName('run');
    const asked = await withRefusedStarts(async () => {
      const res = await api.post('/v1/automations/run', { automation_id: id, run_id });
      assert.notEqual(res.status, 200, JSON.stringify(res.body));
    });
    assert.equal(asked, 1);
    const got = await api.post('/v1/automations/runs/get', { run_id, include_nodes: true });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.run.status, 'failed');
    assert.equal(got.body.run.reason, handedOver);
    assert.equal(got.body.run.nodes[0].state, 'skipped');
    assert.equal(got.body.run.nodes[0].skip_reason, 'the run never started');

    // The same run_id again is the stored run: answered, nothing started.
    const again = await withRefusedStarts(async () => {
      const res = await api.post('/v1/automations/run', { automation_id: id, run_id });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.created, false);
      assert.equal(res.body.run.status, 'failed');
    });
    assert.equal(again, 0);
  });

  it('playbook dispatch: the call fails and the replay run ends failure with the reason, not eligible for learning', async () => {
    const playbook_id = uniqueName('pb-refused');
    await makePlaybook(api, playbook_id, ['echo hi']);
    const run_id = uniqueName('pb-run');
    const asked = await withRefusedStarts(async () => {
      const res = await api.post('/v1/memory/replay/playbooks/dispatch', { playbook_id, mode: 'strict', params: {}, run_id });
      assert.notEqual(res.status, 200, JSON.stringify(res.body));
    });
    assert.equal(asked, 1);
    const got = await api.post('/v1/memory/replay/runs/get', { run_id, include_steps: true });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.run.state, 'ended');
    assert.equal(got.body.run.status, 'failure');
    assert.equal(got.body.run.summary, `failure: ${handedOver}`);
    assert.equal(got.body.run.learning.state, 'not_eligible');
  });

  it('sandbox execute: the call fails and the run is failed with the reason, never started', async () => {
    const session_id = await createSession(api);
    const run_id = uniqueName('sb-run');
    const asked = await withRefusedStarts(async () => {
      const res = await api.post('/v1/memory/sandbox/execute', { session_id, action: { kind: 'command', argv: ['true'] }, run_id, mode: 'async' });
      assert.notEqual(res.status, 200, JSON.stringify(res.body));
    });
    assert.equal(asked, 1);
    const got = await api.post('/v1/memory/sandbox/runs/get', { run_id });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.run.status, 'failed');
    assert.equal(got.body.run.reason, handedOver);
    assert.equal(got.body.run.started_at, null);
  });
});
