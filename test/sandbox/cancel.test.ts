/**
 * Cancellation through HTTP: a running command's whole process tree dies quickly, a queued run is
 * cancelled before its command starts, and cancelling a finished run is invalid_state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { createSession, exec, getRun, processesRunning, processesWith, run, sleep, waitFor, waitForStatus } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

describe('cancel', () => {
  it('cancel of a running sleep kills the whole tree quickly and records cancelled', async () => {
    const sid = await createSession(api);
    const marker = '777.4242';
    // A tree: sh → (sleep in the background, and a subshell with its own sleep) → wait.
    const res = await exec(api, sid, ['sh', '-c', `echo started; sleep ${marker} & (sleep ${marker}) & wait`], { mode: 'async', timeout_ms: 120_000 });
    assert.equal(res.status, 200);
    const runId = res.body.run_id;
    await waitFor('the command to start', async () => {
      const logs = await api.post('/v1/memory/sandbox/runs/logs', { run_id: runId });
      return logs.body.logs.some((e: any) => e.text.includes('started'));
    });
    await waitFor('both sleeps to be running', async () => (await processesRunning(['sleep', marker])).length >= 2, 30_000);

    const t0 = Date.now();
    const cancelled = await api.post('/v1/memory/sandbox/runs/cancel', { run_id: runId, reason: 'operator asked' });
    const elapsed = Date.now() - t0;
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.run.status, 'cancelled');
    assert.equal(cancelled.body.run.cancel_requested, true);
    assert.match(cancelled.body.run.reason, /cancelled: operator asked; process tree killed/);
    // "About a second" on an idle machine; the bound is generous for a loaded 2-core one.
    assert.ok(elapsed < 10_000, `cancel took ${elapsed} ms`);
    console.log(`# cancel of a running sleep answered in ${elapsed} ms`);
    assert.deepEqual(await processesWith(marker), [], 'a process of the cancelled run survived');
    // The workflow is cancelled too (visible as such in the Temporal UI).
    const wf = await waitFor('the workflow to close', async () => {
      const d = await api.engine.describe(cancelled.body.run.workflow_id);
      return d && d.state !== 'running' ? d : null;
    });
    assert.equal(wf.state, 'cancelled');
  });

  it('cancel of a finished run is invalid_state with the state', async () => {
    const sid = await createSession(api);
    const r = await run(api, sid, ['echo', 'done']);
    const body = assertError(await api.post('/v1/memory/sandbox/runs/cancel', { run_id: r.run_id }), 409, 'invalid_state');
    assert.equal(body.error.details.state, 'succeeded');
    // A cancelled run cannot be cancelled again either.
    const res = await exec(api, sid, ['sleep', '60'], { mode: 'async' });
    await waitForStatus(api, res.body.run_id, ['running']);
    assert.equal((await api.post('/v1/memory/sandbox/runs/cancel', { run_id: res.body.run_id })).body.run.status, 'cancelled');
    const again = assertError(await api.post('/v1/memory/sandbox/runs/cancel', { run_id: res.body.run_id }), 409, 'invalid_state');
    assert.equal(again.error.details.state, 'cancelled');
  });

  it('a run cancelled while queued never starts its command', async () => {
    const sid = await createSession(api);
    let runId = '';
    await api.stopWorker();
    try {
      const res = await exec(api, sid, ['sh', '-c', 'echo RAN; mkdir -p artifacts; echo x > artifacts/ran.txt'], { mode: 'async' });
      runId = res.body.run_id;
      assert.equal(res.body.run.status, 'queued');
      const c = await api.post('/v1/memory/sandbox/runs/cancel', { run_id: runId });
      assert.equal(c.status, 200);
      // No worker: the cancellation is recorded and takes effect when the workflow next runs.
      assert.equal(c.body.run.cancel_requested, true);
      assert.equal(c.body.run.status, 'queued');
      assert.match(c.body.message, /still queued/);
    } finally {
      await api.startWorker();
    }
    const ended = await waitForStatus(api, runId, ['cancelled', 'succeeded', 'failed']);
    assert.equal(ended.status, 'cancelled');
    assert.equal(ended.started_at, null);
    assert.equal(ended.log_entries, 0);
    assert.match(ended.reason, /before the command started/);
    const bundle = await api.post('/v1/memory/sandbox/runs/artifact', { run_id: runId });
    assert.deepEqual(bundle.body.files, []);
    assert.equal(bundle.body.output.stdout, '');
    await sleep(100);
    assert.equal((await getRun(api, runId)).status, 'cancelled');
  });

  it('a graceful worker stop mid-run kills the tree and records failed (worker shut down), never re-run', async () => {
    const sid = await createSession(api);
    const marker = '555.1212';
    const res = await exec(api, sid, ['sh', '-c', `echo x >> starts.log; exec sleep ${marker}`], { mode: 'async', timeout_ms: 300_000 });
    await waitForStatus(api, res.body.run_id, ['running']);
    await waitFor('the sleep to run', async () => (await processesRunning(['sleep', marker])).length > 0, 30_000);
    // Worker.shutdown waits shutdownGraceTime (10 s), then cancels in-flight activities.
    await api.stopWorker();
    await api.startWorker();
    const ended = await waitForStatus(api, res.body.run_id, ['succeeded', 'failed', 'timed_out', 'cancelled'], 90_000);
    assert.equal(ended.status, 'failed');
    console.log(`# graceful stop: ${ended.reason}`);
    assert.match(ended.reason, /worker (shut down|lost) during the run/);
    assert.deepEqual(await processesWith(`sleep ${marker}`), []);
    assert.equal((await run(api, sid, ['cat', 'starts.log'])).stdout_tail, 'x\n', 'the command was not re-run');
  });
});
