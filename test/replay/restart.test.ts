/**
 * Proof 3: a dispatched playbook run survives kill -9 of the worker (a real worker process) and
 * of the API process that dispatched it. The command in flight dies with its worker; after the
 * worker restarts, Temporal replays the run's workflow: finished steps are not run again, the
 * killed step's sandbox run is settled as lost and (max_attempts 2) tried again, the remaining
 * steps run, and runs/get — from another process — shows the final state.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/local/ports';
import { startTestApi, type TestApi } from '../helpers/app';
import { LoreProcesses } from '../helpers/lore-processes';
import { processesRunning, processesWith } from '../sandbox/helpers';
import { compile, getRun, ok, recordRun, waitFor } from './helpers';

let api: TestApi;
let scratch = '';
let lore: LoreProcesses;

before(async () => {
  api = await startTestApi({ worker: false });
  scratch = mkdtempSync(join(tmpdir(), 'lore-replay-restart-'));
  // Worker processes of this file run one after another; 510000–519999 is its uid block (docs/sandbox.md).
  lore = new LoreProcesses({ api, dataDir: scratch, ids: { min: 510000, max: 519999 } });
});
after(async () => {
  lore?.killAll();
  await api?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('dispatch survives kill -9 of the worker and of the API', () => {
  it('the run completes after the worker restarts and runs/get shows its final state', async () => {
    const marker = '7.321';
    await recordRun(api, 'slow-rec', 'prepare, wait, check', [
      { tool_name: 'command', tool_input: { argv: ['echo', 'first'] }, output_signature: { kind: 'stdout', summary: 'first' } },
      {
        tool_name: 'command',
        tool_input: { argv: ['sh', '-c', `echo started >> starts.log; sleep ${marker}; echo slept`] },
        output_signature: { kind: 'stdout', summary: 'slept' },
      },
      { tool_name: 'command', tool_input: { argv: ['cat', 'starts.log'] }, output_signature: { kind: 'stdout', summary: 'started' } },
    ]);
    // Every step may be tried twice: the killed attempt of step 1 is retried after the restart.
    await compile(api, 'slow-rec', 'slow-pb', { max_attempts: 2 });
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'slow-pb', target_status: 'active' });

    const workerA = await lore.start('worker');
    const port = await freePort();
    const apiProc = await lore.start('api', { LORE_PORT: String(port) });
    const res = await fetch(`http://127.0.0.1:${port}/v1/memory/replay/playbooks/dispatch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ playbook_id: 'slow-pb', mode: 'strict', run_id: 'dispatched-1' }),
    });
    const dispatched = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(dispatched));
    assert.equal(dispatched.dispatched, true);
    assert.equal(dispatched.status, 'open');
    assert.match(dispatched.workflow_id, /^playbook-run-/);
    const wf = await api.engine.describe(dispatched.workflow_id);
    assert.equal(wf?.state, 'running', 'the dispatched run is a Temporal workflow');

    // Mid-run: step 0 done, step 1's command sleeping in the sandbox.
    await waitFor('step 1 to be running', async () => {
      const r = await getRun(api, 'dispatched-1');
      return r.steps[0]?.status === 'success' && r.steps[1]?.status === 'running';
    });
    await waitFor('the sleep to run', async () => (await processesRunning(['sleep', marker])).length > 0, 30_000);
    await lore.kill9(apiProc, { tree: false });
    await lore.kill9(workerA, { tree: false });
    await waitFor('the sandbox to die with the worker', async () => (await processesWith(`sleep ${marker}`)).length === 0, 15_000);
    assert.equal((await getRun(api, 'dispatched-1')).state, 'open', 'no worker is up: nothing ended it');

    const t0 = Date.now();
    await lore.start('worker');
    const done = await waitFor(
      'the run to end',
      async () => {
        const r = await getRun(api, 'dispatched-1');
        return r.state === 'ended' ? r : null;
      },
      240_000,
      500,
    );
    console.log(`# dispatched run ended ${Date.now() - t0} ms after the new worker started`);

    assert.equal(done.status, 'success', JSON.stringify(done.steps, null, 1));
    assert.deepEqual(
      done.steps.map((s: any) => s.status),
      ['success', 'success', 'success'],
    );
    assert.equal(done.steps[0].attempts.length, 1, 'a finished step is not run again on replay');
    const killed = done.steps[1].attempts;
    assert.equal(killed.length, 2);
    assert.equal(killed[0].status, 'failed');
    assert.match(killed[0].reason, /worker lost/);
    assert.equal(killed[1].status, 'succeeded');
    // Both attempts ran in the run's own session; the first was killed, not re-run by the sandbox.
    assert.equal(done.steps[2].output_signature.summary, 'started\nstarted');
    assert.equal(done.learning.state, 'fed', 'a successful run of the active version feeds learning');
    // The run record shows the end first; the workflow closes right after its last write.
    const closed = await waitFor(
      'the workflow to close',
      async () => {
        const d = await api.engine.describe(dispatched.workflow_id);
        return d && d.state !== 'running' ? d : null;
      },
      60_000,
      200,
    );
    assert.equal(closed.state, 'completed');
  });
});
