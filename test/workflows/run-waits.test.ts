/**
 * Clients wait on a run without polling: runs/get of automation, playbook (replay/runs/get) and
 * sandbox runs with wait_ms and until (not_queued, paused_or_done, done, or a version) answers as
 * soon as the condition holds, or with the current state at the deadline; 50 clients waiting at
 * once are all answered. Every run has its Temporal UI link (LORE_TEMPORAL_UI_URL here).
 * No timed assertions: "as soon as" is checked as "before the deadline, with the condition met";
 * how soon is measured in docs/benchmarks.md ("Waiting for a run").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { createAutomation, makePlaybook, nodeOf, startRun } from '../automation/helpers';
import { createSession } from '../sandbox/helpers';

const UI = 'http://temporal-ui.example:8080';
let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true, env: { LORE_TEMPORAL_UI_URL: `${UI}/` } });
});
after(async () => api?.close());

const approvalGraph = { nodes: [{ node_id: 'gate', kind: 'approval', approval_key: 'go' }], edges: [] };
const get = (run_id: string, extra: Record<string, unknown> = {}) => api.post('/v1/automations/runs/get', { run_id, include_nodes: true, ...extra });

describe('automation runs/get wait_ms', () => {
  it('answers once the run pauses, then once it is done; the answer links the workflow in the Temporal UI', async () => {
    const id = uniqueName('wait');
    await createAutomation(api, id, approvalGraph);
    const runId = await startRun(api, id);
    // Right after run the run is queued: a resume would be invalid_state; a wait is the way.
    const paused = await get(runId, { wait_ms: 30_000, until: 'paused_or_done' });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.run.status, 'paused');
    assert.equal(paused.body.wait.met, true);
    assert.equal(paused.body.wait.until, 'paused_or_done');
    assert.ok(paused.body.wait.waited_ms < 30_000, 'answered before the deadline');
    console.log(`# paused_or_done answered after ${paused.body.wait.waited_ms} ms`);
    const wf = paused.body.run.workflow_id as string;
    assert.equal(paused.body.run.temporal_ui_url, `${UI}/namespaces/default/workflows/${encodeURIComponent(wf)}`);
    assert.match(paused.body.version, /^[0-9a-f]{16}$/);

    // An unchanged run: the wait ends at the deadline with the same state and version.
    const still = await get(runId, { wait_ms: 1500, until: paused.body.version });
    assert.equal(still.body.wait.met, false);
    assert.ok(still.body.wait.waited_ms >= 1500, `waited the whole ${still.body.wait.waited_ms} ms`);
    assert.equal(still.body.version, paused.body.version);
    assert.equal(still.body.run.status, 'paused');

    // Waiting for any change since that version, and for the end, while the run is resumed.
    const changed = get(runId, { wait_ms: 30_000, until: paused.body.version });
    const done = get(runId, { wait_ms: 30_000, until: 'done' });
    assert.equal((await api.post('/v1/automations/runs/resume', { run_id: runId, reason: 'go' })).status, 200);
    const c = (await changed).body;
    assert.equal(c.wait.met, true);
    assert.notEqual(c.version, paused.body.version);
    const d = (await done).body;
    assert.equal(d.wait.met, true);
    assert.equal(d.run.status, 'succeeded');
    assert.equal(nodeOf(d.run, 'gate').state, 'succeeded');
    // A condition that already holds answers at once, and says so.
    const again = await get(runId, { wait_ms: 30_000, until: 'not_queued' });
    assert.equal(again.body.wait.met, true);
    assert.equal(again.body.version, d.version);
  });

  it('50 clients waiting at once on 25 runs are all answered correctly', { timeout: 300_000 }, async () => {
    const id = uniqueName('wait-many');
    await createAutomation(api, id, approvalGraph);
    const runs: string[] = [];
    for (let i = 0; i < 25; i++) runs.push(await startRun(api, id));
    // Per run: one client waits for the pause, one for the end (it sees the pause go by).
    const settled = new Set<string>();
    const track = (key: string, p: ReturnType<typeof get>) => p.finally(() => settled.add(key));
    const toPause = runs.map((r) => get(r, { wait_ms: 30_000, until: 'paused_or_done', include_nodes: false }));
    const toEnd = runs.map((r) => track(`done ${r}`, get(r, { wait_ms: 30_000, until: 'done', include_nodes: false })));
    const paused = await Promise.all(toPause);
    for (const [i, p] of paused.entries()) {
      assert.equal(p.status, 200);
      assert.equal(p.body.run.run_id, runs[i]);
      assert.equal(p.body.run.status, 'paused', JSON.stringify(p.body));
      assert.equal(p.body.wait.met, true);
    }
    // And one more per run for any change since the paused state it saw: 50 clients now wait at
    // once on runs that will not change until they are decided.
    const toChange = paused.map((p, i) => track(`change ${runs[i]}`, get(runs[i]!, { wait_ms: 30_000, until: p.body.version, include_nodes: false })));
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual([...settled], [], 'no waiting client is answered while its run stays paused');
    for (const r of runs) assert.equal((await api.post('/v1/automations/runs/resume', { run_id: r, decision: 'reject' })).status, 200);
    const [ended, changed] = await Promise.all([Promise.all(toEnd), Promise.all(toChange)]);
    for (const [i, e] of ended.entries()) {
      assert.equal(e.status, 200);
      assert.equal(e.body.run.run_id, runs[i]);
      assert.equal(e.body.run.status, 'failed', JSON.stringify(e.body));
      assert.equal(e.body.wait.met, true);
    }
    for (const [i, c] of changed.entries()) {
      assert.equal(c.status, 200);
      assert.equal(c.body.run.run_id, runs[i]);
      assert.equal(c.body.wait.met, true, JSON.stringify(c.body));
      assert.notEqual(c.body.version, paused[i]!.body.version, 'answered with the changed run');
    }
  });

  it('bad wait_ms or until is invalid_request; an unknown run, or one of another scope, is not_found at once', async () => {
    const id = uniqueName('wait-bad');
    await createAutomation(api, id, approvalGraph);
    const runId = await startRun(api, id);
    assertError(await get(runId, { wait_ms: 30_001 }), 400, 'invalid_request');
    assertError(await get(runId, { wait_ms: -1 }), 400, 'invalid_request');
    assertError(await get(runId, { wait_ms: 1000, until: 'finished' }), 400, 'invalid_request');
    assertError(await get(uniqueName('nope'), { wait_ms: 30_000 }), 404, 'not_found');
    const t0 = Date.now();
    assertError(await api.post('/v1/automations/runs/get', { scope: uniqueName('elsewhere'), run_id: runId, wait_ms: 30_000 }), 404, 'not_found');
    assert.ok(Date.now() - t0 < 30_000, 'not_found does not wait');
    await api.post('/v1/automations/runs/cancel', { run_id: runId });
  });
});

describe('sandbox runs/get wait_ms', () => {
  it('answers once the command has started, then once it has ended', async () => {
    const session = await createSession(api);
    const res = await api.post('/v1/memory/sandbox/execute', { session_id: session, mode: 'async', action: { kind: 'command', argv: ['sh', '-c', 'sleep 2; echo waited'] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const runId = res.body.run_id as string;
    const started = await api.post('/v1/memory/sandbox/runs/get', { run_id: runId, wait_ms: 30_000, until: 'not_queued' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.body.wait.met, true);
    assert.notEqual(started.body.run.status, 'queued');
    assert.equal(started.body.run.temporal_ui_url, `${UI}/namespaces/default/workflows/${encodeURIComponent(started.body.run.workflow_id)}`);
    const done = await api.post('/v1/memory/sandbox/runs/get', { run_id: runId, wait_ms: 30_000, until: 'paused_or_done' });
    assert.equal(done.body.wait.met, true);
    assert.equal(done.body.run.status, 'succeeded', JSON.stringify(done.body));
    assert.match(done.body.run.stdout_tail, /waited/);
    assertError(await api.post('/v1/memory/sandbox/runs/get', { run_id: runId, wait_ms: 100_000 }), 400, 'invalid_request');
  });
});

describe('playbook runs (replay/runs/get) wait_ms', () => {
  it('answers once a dispatched run has started a step, then once it has ended', async () => {
    const playbook = uniqueName('pb-wait');
    await makePlaybook(api, playbook, ['sleep 1 && echo one', 'echo two']);
    const d = await api.post('/v1/memory/replay/playbooks/dispatch', { playbook_id: playbook });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    const runId = d.body.run_id as string;
    const started = await api.post('/v1/memory/replay/runs/get', { run_id: runId, wait_ms: 30_000, until: 'not_queued' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.body.wait.met, true);
    assert.ok(started.body.run.state === 'ended' || started.body.run.steps.some((s: { status: string }) => s.status !== 'queued'), JSON.stringify(started.body.run.steps));
    assert.equal(started.body.run.playbook.temporal_ui_url, `${UI}/namespaces/default/workflows/${encodeURIComponent(d.body.workflow_id)}`);
    const done = await api.post('/v1/memory/replay/runs/get', { run_id: runId, wait_ms: 30_000, until: 'done', include_steps: false });
    assert.equal(done.body.wait.met, true);
    assert.equal(done.body.run.status, 'success', JSON.stringify(done.body));
    assert.equal(done.body.run.step_count, 2);
    // Nothing changes any more: a wait for a change since this version ends at the deadline.
    const same = await api.post('/v1/memory/replay/runs/get', { run_id: runId, wait_ms: 1000, until: done.body.version });
    assert.equal(same.body.wait.met, false);
    assert.equal(same.body.version, done.body.version);
  });
});
