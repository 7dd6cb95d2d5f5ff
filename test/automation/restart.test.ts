/**
 * Proof 4b, restart safety with real processes: `lore start --role all` (the API, and the worker
 * it runs as a child process) is killed with SIGKILL while one run is paused at an approval and another is running a
 * sandbox command. After a new process starts, the running run continues from its last completed
 * node (its first playbook is not run again; the lost command is retried by the playbook's own
 * max_attempts) and succeeds; the paused run is still paused, and resuming it finishes it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/local/ports';
import { descendants } from '../e2e/lore-process';
import { startTestApi, type TestApi } from '../helpers/app';
import { processesWith } from '../sandbox/helpers';
import { createAutomation, getRun, makePlaybook, nodeOf, sleep, waitFor, waitForPausedAt, waitForStatus } from './helpers';

const LORE_BIN = fileURLToPath(new URL('../../bin/lore.mjs', import.meta.url));
/** Reserved for this file's Lore processes (they run one after another; a new one reaps what a killed one left). */
const IDS = { LORE_SANDBOX_ID_MIN: '520000', LORE_SANDBOX_ID_MAX: '529999' };
const SLEEP_MARKER = 'sleep 6.321';

let api: TestApi;
let scratch = '';
const children = new Set<ChildProcess>();

before(async () => {
  api = await startTestApi({ worker: false });
  scratch = mkdtempSync(join(tmpdir(), 'lore-automation-restart-'));
});
after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await api?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

interface Lore {
  child: ChildProcess;
  url: string;
}

async function startLore(): Promise<Lore> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LORE_BIN_DIR: process.env.LORE_BIN_DIR ?? '',
    LORE_DATA_DIR: scratch,
    TEMPORAL_ADDRESS: api.config.temporal.address!,
    MONGODB_URI: api.config.mongo.uri!,
    MONGODB_DB: api.config.mongo.database,
    LORE_TASK_QUEUE: api.config.temporal.taskQueue,
    LORE_SANDBOX_DIR: api.config.sandbox.dir,
    LORE_LIFECYCLE_INTERVAL: 'off',
    LORE_LOG_LEVEL: 'warn',
    LORE_PORT: String(port),
    ...IDS,
  };
  const child = spawn(process.execPath, [LORE_BIN, 'start', '--role', 'all'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const url = `http://127.0.0.1:${port}`;
  // Role all: the API in this process, the worker in a child it starts (and waits for) first.
  await waitFor('lore to be up', async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`lore exited:\n${out}`);
    return out.includes('is up (role all)');
  }, 180_000, 250);
  return { child, url };
}

/** SIGKILL to the process and everything below it (its sandbox processes), as a crash would. */
async function kill9(lore: Lore): Promise<void> {
  const tree = [lore.child.pid!, ...descendants(lore.child.pid!)];
  const exited = new Promise<void>((r) => (lore.child.exitCode !== null || lore.child.signalCode !== null ? r() : lore.child.once('exit', () => r())));
  for (const pid of tree) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await exited;
}

async function call(lore: Lore, path: string, body: unknown) {
  const res = await fetch(`${lore.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(60_000) });
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

    const lore1 = await startLore();
    assert.equal((await call(lore1, '/v1/automations/run', { automation_id: 'gated', run_id: 'paused-run' })).status, 200);
    assert.equal((await call(lore1, '/v1/automations/run', { automation_id: 'busy', run_id: 'running-run' })).status, 200);
    const pausedBefore = await waitForPausedAt(api, 'paused-run', ['gate'], {}, 180_000);
    await waitFor('the slow command to run', async () => (await processesWith(SLEEP_MARKER)).length > 0, 180_000);
    const runningBefore = await getRun(api, 'running-run');
    assert.equal(runningBefore.status, 'running');
    assert.equal(nodeOf(runningBefore, 'first').state, 'succeeded');
    assert.equal(nodeOf(runningBefore, 'slow').state, 'running');

    await kill9(lore1);
    await waitFor('the sandboxed command to die with the worker', async () => (await processesWith(SLEEP_MARKER)).length === 0, 30_000);
    // Nothing is lost from the store meanwhile, and nothing moves: no worker is up.
    assert.equal((await getRun(api, 'paused-run')).status, 'paused');
    assert.equal((await getRun(api, 'running-run')).status, 'running');

    const t0 = Date.now();
    const lore2 = await startLore();
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
    await kill9(lore2);
  });
});
