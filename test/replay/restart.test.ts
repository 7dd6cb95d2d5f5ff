/**
 * Proof 3: a dispatched playbook run survives kill -9 of the worker (a real worker process) and
 * of the API process that dispatched it. The command in flight dies with its worker; after the
 * worker restarts, Temporal replays the run's workflow: finished steps are not run again, the
 * killed step's sandbox run is settled as lost and (max_attempts 2) tried again, the remaining
 * steps run, and runs/get — from another process — shows the final state.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/local/ports';
import { WORKER_READY_MARKER } from '../../src/worker';
import { startTestApi, type TestApi } from '../helpers/app';
import { processesWith } from '../sandbox/helpers';
import { compile, getRun, ok, recordRun, waitFor } from './helpers';

const LORE_BIN = fileURLToPath(new URL('../../bin/lore.mjs', import.meta.url));
/**
 * Worker processes started by this file share one uid range (one after another; a new one reaps
 * what a killed one left). 510000–519999 is reserved for this file (test/sandbox/restart.test.ts
 * has 500000–509999, in-process test workers 1000000 and up).
 */
const WORKER_IDS = { LORE_SANDBOX_ID_MIN: '510000', LORE_SANDBOX_ID_MAX: '519999' };

let api: TestApi;
let scratch = '';
const children = new Set<ChildProcess>();

before(async () => {
  api = await startTestApi({ worker: false });
  scratch = mkdtempSync(join(tmpdir(), 'lore-replay-restart-'));
});
after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await api?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function loreEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
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
    ...extra,
  };
}

async function startLore(role: 'worker' | 'api', extra: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [LORE_BIN, 'start', '--role', role], { env: loreEnv(extra), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const readyText = role === 'worker' ? WORKER_READY_MARKER : 'is up';
  await waitFor(`lore ${role} to be ready`, async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`lore ${role} exited:\n${out}`);
    return out.includes(readyText);
  }, 90_000, 100);
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));
  child.kill('SIGKILL');
  await exited;
}

describe('dispatch survives kill -9 of the worker and of the API', () => {
  it('the run completes after the worker restarts and runs/get shows its final state', async () => {
    const marker = '7.321';
    await recordRun(api, 'slow-rec', 'prepare, wait, check', [
      { tool_name: 'command', tool_input: { argv: ['echo', 'first'] }, output_signature: { kind: 'stdout', summary: 'first' } },
      { tool_name: 'command', tool_input: { argv: ['sh', '-c', `echo started >> starts.log; sleep ${marker}; echo slept`] }, output_signature: { kind: 'stdout', summary: 'slept' } },
      { tool_name: 'command', tool_input: { argv: ['cat', 'starts.log'] }, output_signature: { kind: 'stdout', summary: 'started' } },
    ]);
    // Every step may be tried twice: the killed attempt of step 1 is retried after the restart.
    await compile(api, 'slow-rec', 'slow-pb', { max_attempts: 2 });
    await ok(api, '/v1/memory/replay/playbooks/promote', { playbook_id: 'slow-pb', target_status: 'active' });

    const workerA = await startLore('worker', WORKER_IDS);
    const port = await freePort();
    const apiProc = await startLore('api', { LORE_PORT: String(port) });
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
    await waitFor('the sleep to run', async () => (await processesWith(`sleep ${marker}`)).length > 0, 30_000);
    await kill9(apiProc);
    await kill9(workerA);
    await waitFor('the sandbox to die with the worker', async () => (await processesWith(`sleep ${marker}`)).length === 0, 15_000);
    assert.equal((await getRun(api, 'dispatched-1')).state, 'open', 'no worker is up: nothing ended it');

    const t0 = Date.now();
    await startLore('worker', WORKER_IDS);
    const done = await waitFor('the run to end', async () => {
      const r = await getRun(api, 'dispatched-1');
      return r.state === 'ended' ? r : null;
    }, 240_000, 500);
    console.log(`# dispatched run ended ${Date.now() - t0} ms after the new worker started`);

    assert.equal(done.status, 'success', JSON.stringify(done.steps, null, 1));
    assert.deepEqual(done.steps.map((s: any) => s.status), ['success', 'success', 'success']);
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
    const closed = await waitFor('the workflow to close', async () => {
      const d = await api.engine.describe(dispatched.workflow_id);
      return d && d.state !== 'running' ? d : null;
    }, 60_000, 200);
    assert.equal(closed.state, 'completed');
  });
});
