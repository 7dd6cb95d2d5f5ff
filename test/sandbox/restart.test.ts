/**
 * Restarts with real processes: a worker killed with SIGKILL mid-run (its sandbox dies with it; the
 * run ends `failed` with a clear reason once the heartbeat times out, never re-run, never stuck),
 * runs queued while no worker is up, and an API killed while a sync execute waits (the run still
 * finishes; a new API process reads it).
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
import { createSession, exec, getRun, processesWith, run, waitFor, waitForStatus } from './helpers';

const LORE_BIN = fileURLToPath(new URL('../../bin/lore.mjs', import.meta.url));
/**
 * Workers started by this file share one uid range (they run one after another; a new one reaps
 * what a killed one left). 500000–509999 is reserved for this file: the runner's own tests use
 * 400000–479999, its benchmark 490000–499999, in-process test workers 1000000 and up.
 */
const WORKER_IDS = { LORE_SANDBOX_ID_MIN: '500000', LORE_SANDBOX_ID_MAX: '509999' };

let api: TestApi;
let scratch = '';
const children = new Set<ChildProcess>();

before(async () => {
  api = await startTestApi({ worker: false });
  scratch = mkdtempSync(join(tmpdir(), 'lore-restart-'));
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
    LORE_LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Starts `lore start --role <role>` and resolves once it is ready. */
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

describe('restarts', () => {
  it('worker killed -9 mid-run: the sandbox dies with it and the run ends failed (worker lost), not re-run', async () => {
    const workerA = await startLore('worker', WORKER_IDS);
    const sid = await createSession(api);
    const before = await run(api, sid, ['echo', 'before the crash'], { run_id: 'finished-before' });
    assert.equal(before.status, 'succeeded');

    const marker = '321.654';
    const res = await exec(api, sid, ['sh', '-c', `echo started >> starts.log; echo started; exec sleep ${marker}`], { mode: 'async', run_id: 'in-flight', timeout_ms: 300_000 });
    assert.equal(res.status, 200);
    await waitForStatus(api, 'in-flight', ['running']);
    await waitFor('the sleep to run', async () => (await processesWith(`sleep ${marker}`)).length > 0, 30_000);

    await kill9(workerA);
    // bubblewrap's --die-with-parent (PDEATHSIG) takes the sandbox down with the worker.
    await waitFor('the sandbox to die with the worker', async () => (await processesWith(`sleep ${marker}`)).length === 0, 15_000);
    assert.equal((await getRun(api, 'in-flight')).status, 'running', 'nothing has settled it yet: no worker is up');

    // A run submitted while no worker is up waits queued and runs once one is.
    const queued = await exec(api, sid, ['echo', 'ran after restart'], { mode: 'async', run_id: 'queued-during-outage' });
    assert.equal(queued.body.run.status, 'queued');

    const t0 = Date.now();
    await startLore('worker', WORKER_IDS);
    const lost = await waitForStatus(api, 'in-flight', ['succeeded', 'failed', 'timed_out', 'cancelled'], 120_000);
    console.log(`# in-flight run settled ${Date.now() - t0} ms after the new worker started`);
    assert.equal(lost.status, 'failed');
    assert.match(lost.reason, /worker lost during the run/);
    assert.ok(lost.finished_at);

    // Not re-run: the command started exactly once.
    const check = await run(api, sid, ['cat', 'starts.log']);
    assert.equal(check.stdout_tail, 'started\n');
    const logs = await api.post('/v1/memory/sandbox/runs/logs', { run_id: 'in-flight' });
    assert.equal(logs.body.complete, true);

    const afterRestart = await waitForStatus(api, 'queued-during-outage', ['succeeded', 'failed'], 60_000);
    assert.equal(afterRestart.status, 'succeeded');
    assert.equal(afterRestart.stdout_tail, 'ran after restart\n');

    // Finished runs are still readable, output and all.
    assert.deepEqual(await getRun(api, 'finished-before'), before);
  });

  it('API killed -9 while a sync execute waits: the run still finishes and a new API process reads it', async () => {
    // The worker started by the previous test is still up.
    const sid = await createSession(api);
    const port = await freePort();
    const apiProc = await startLore('api', { LORE_PORT: String(port) });
    const pending = fetch(`http://127.0.0.1:${port}/v1/memory/sandbox/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sid, mode: 'sync', run_id: 'outlives-api', action: { kind: 'command', argv: ['sh', '-c', 'sleep 2; echo finished'] } }),
    }).then(
      (r) => ({ ok: true as const, status: r.status }),
      (err: Error) => ({ ok: false as const, err }),
    );
    // The execute goes through the API process; wait until its run is running, then kill that process.
    await waitFor('the run to be running', async () => {
      const r = await api.post('/v1/memory/sandbox/runs/get', { run_id: 'outlives-api' });
      return r.status === 200 && r.body.run.status === 'running';
    }, 60_000, 50);
    await kill9(apiProc);
    const answer = await pending;
    assert.equal(answer.ok, false, 'the killed API cannot have answered the sync execute');

    const done = await waitForStatus(api, 'outlives-api', ['succeeded', 'failed', 'timed_out', 'cancelled'], 60_000);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.stdout_tail, 'finished\n');

    // A restarted API process serves the finished run from the store.
    const port2 = await freePort();
    const apiProc2 = await startLore('api', { LORE_PORT: String(port2) });
    try {
      const r = await fetch(`http://127.0.0.1:${port2}/v1/memory/sandbox/runs/get`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ run_id: 'outlives-api' }),
      });
      assert.equal(r.status, 200);
      const body = (await r.json()) as { run: { status: string; stdout_tail: string } };
      assert.equal(body.run.status, 'succeeded');
      assert.equal(body.run.stdout_tail, 'finished\n');
      const health = (await (await fetch(`http://127.0.0.1:${port2}/health`)).json()) as { sandbox: { isolation: string } };
      assert.equal(health.sandbox.isolation, 'bubblewrap', 'the API process reports what the worker found');
    } finally {
      await kill9(apiProc2);
    }
  });
});
