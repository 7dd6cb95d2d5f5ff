/**
 * Proof 4b, restart safety with real processes: `lore start --role all` (the API, and the worker
 * it runs as a child process) is killed with SIGKILL while one run is paused at an approval and another is running a
 * sandbox command. After a new process starts, the running run continues from its last completed
 * node (its first playbook is not run again; the lost command is retried by the playbook's own
 * max_attempts) and succeeds; the paused run is still paused, and resuming it finishes it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { LoreProcesses, type LoreChild } from '../helpers/lore-processes';
import { processesRunning, processesWith } from '../sandbox/helpers';
import { createAutomation, getRun, makePlaybook, nodeOf, sleep, waitFor, waitForPausedAt, waitForStatus } from './helpers';

const SLEEP_MARKER = 'sleep 6.321';

let api: TestApi;
let scratch = '';
let procs: LoreProcesses;

before(async () => {
  api = await startTestApi({ worker: false });
  scratch = mkdtempSync(join(tmpdir(), 'lore-automation-restart-'));
  // This file's Lore processes run one after another; 520000–529999 is its uid block (docs/sandbox.md).
  procs = new LoreProcesses({ api, dataDir: scratch, ids: { min: 520000, max: 529999 } });
});
after(async () => {
  procs?.killAll();
  await api?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function call(lore: LoreChild, path: string, body: unknown) {
  const res = await fetch(`${lore.url!}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('restart', () => {
  it('kill -9 with runs running and paused: the running run continues from its last completed node, the paused one stays paused and resumes', { timeout: 900_000 }, async () => {
    await makePlaybook(api, 'echo-color', ['echo green'], { color: 'green' });
    await makePlaybook(api, 'slow', [`${SLEEP_MARKER} && echo slept`], {}, {}, { max_attempts: 2 });
    await createAutomation(api, 'gated', {
      nodes: [
        { node_id: 'first', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: 'one' } },
        { node_id: 'gate', kind: 'approval', approval_key: 'go' },
        { node_id: 'last', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: '$nodes.gate.reason' } },
      ],
      edges: [
        { from: 'first', to: 'gate' },
        { from: 'gate', to: 'last' },
      ],
    });
    await createAutomation(api, 'busy', {
      nodes: [
        { node_id: 'first', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: 'one' } },
        { node_id: 'slow', kind: 'playbook', playbook_id: 'slow', version: 1 },
        { node_id: 'last', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: 'three' } },
      ],
      edges: [
        { from: 'first', to: 'slow' },
        { from: 'slow', to: 'last' },
      ],
    });

    const lore1 = await procs.start('all');
    assert.equal((await call(lore1, '/v1/automations/run', { automation_id: 'gated', run_id: 'paused-run' })).status, 200);
    assert.equal((await call(lore1, '/v1/automations/run', { automation_id: 'busy', run_id: 'running-run' })).status, 200);
    const pausedBefore = await waitForPausedAt(api, 'paused-run', ['gate'], {}, 180_000);
    await waitFor('the slow command to run', async () => (await processesRunning(SLEEP_MARKER.split(' '))).length > 0, 180_000);
    const runningBefore = await getRun(api, 'running-run');
    assert.equal(runningBefore.status, 'running');
    assert.equal(nodeOf(runningBefore, 'first').state, 'succeeded');
    assert.equal(nodeOf(runningBefore, 'slow').state, 'running');

    await procs.kill9(lore1, { tree: true });
    await waitFor('the sandboxed command to die with the worker', async () => (await processesWith(SLEEP_MARKER)).length === 0, 30_000);
    // Nothing is lost from the store meanwhile, and nothing moves: no worker is up.
    assert.equal((await getRun(api, 'paused-run')).status, 'paused');
    assert.equal((await getRun(api, 'running-run')).status, 'running');

    const t0 = Date.now();
    const lore2 = await procs.start('all');
    const done = await waitForStatus(api, 'running-run', ['succeeded', 'failed', 'cancelled'], 300_000);
    console.log(`# the running run finished ${Date.now() - t0} ms after the restart`);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    // Continued from the last completed node: 'first' kept its one playbook run and its output.
    assert.deepEqual(nodeOf(done, 'first').output, nodeOf(runningBefore, 'first').output);
    assert.equal(nodeOf(done, 'first').child_workflow_id, nodeOf(runningBefore, 'first').child_workflow_id);
    assert.equal(nodeOf(done, 'first').started_at, nodeOf(runningBefore, 'first').started_at);
    const firstReplay = (await api.post('/v1/memory/replay/runs/get', { run_id: 'running-run:first' })).body.run;
    assert.equal(firstReplay.steps[0].attempts.length, 1, 'the completed node was not run again');
    // The command lost with the worker was not re-run blindly: the playbook's second attempt ran it.
    const slow = nodeOf(done, 'slow');
    assert.equal(slow.state, 'succeeded');
    assert.equal(slow.output.steps[0].attempts, 2, JSON.stringify(slow.output.steps));
    assert.equal(nodeOf(done, 'last').output.outputs['0'], 'three');

    // The paused run stayed paused through the crash and the restart.
    await sleep(3000);
    const stillPaused = await getRun(api, 'paused-run');
    assert.equal(stillPaused.status, 'paused');
    assert.deepEqual(stillPaused.paused_nodes, ['gate']);
    assert.equal(nodeOf(stillPaused, 'first').child_workflow_id, nodeOf(pausedBefore, 'first').child_workflow_id);
    const resumed = await call(lore2, '/v1/automations/runs/resume', { run_id: 'paused-run', reason: 'after-restart', actor: 'ops' });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    const finished = await waitForStatus(api, 'paused-run', ['succeeded', 'failed', 'cancelled'], 180_000);
    assert.equal(finished.status, 'succeeded', JSON.stringify(finished));
    assert.equal(nodeOf(finished, 'last').output.outputs['0'], 'after-restart');
    assert.equal(nodeOf(finished, 'gate').approval.resumed_by, 'ops');
    await procs.kill9(lore2, { tree: true });
  });
});
