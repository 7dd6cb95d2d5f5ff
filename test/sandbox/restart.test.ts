/**
 * Restarts with real processes: a worker killed with SIGKILL mid-run (its sandbox dies with it; the
 * run ends `failed` with a clear reason once the heartbeat times out, never re-run, never stuck),
 * runs queued while no worker is up, an API killed while a sync execute waits (the run still
 * finishes; a new API process reads it), and a worker killed mid-run in a session that sees a
 * workspace through an overlay (nothing stays mounted; the session goes on from its layer).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/local/ports';
import { startTestApi, type TestApi } from '../helpers/app';
import { LoreProcesses } from '../helpers/lore-processes';
import { createSession, exec, getRun, processesRunning, processesWith, run, waitFor, waitForStatus } from './helpers';

let api: TestApi;
let scratch = '';
let lore: LoreProcesses;

let projects = '';

before(async () => {
  projects = mkdtempSync(join(tmpdir(), 'lore-restart-projects-'));
  api = await startTestApi({ worker: false, env: { LORE_SANDBOX_WORKSPACE_ROOTS: projects } });
  scratch = mkdtempSync(join(tmpdir(), 'lore-restart-'));
  // Workers started by this file run one after another; 500000–509999 is this file's uid block (docs/sandbox.md).
  lore = new LoreProcesses({ api, dataDir: scratch, ids: { min: 500000, max: 509999 }, env: { LORE_SANDBOX_WORKSPACE_ROOTS: projects } });
});
after(async () => {
  lore?.killAll();
  await api?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (projects) rmSync(projects, { recursive: true, force: true });
});

/** Processes (any) whose mount namespace still has a mount under dir. */
function mountsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (readFileSync(`/proc/${pid}/mountinfo`, 'utf8').includes(dir)) out.push(pid);
    } catch {
      /* exited */
    }
  }
  return out;
}

describe('restarts', () => {
  it('worker killed -9 mid-run: the sandbox dies with it and the run ends failed (worker lost), not re-run', async () => {
    const workerA = await lore.start('worker');
    const sid = await createSession(api);
    const before = await run(api, sid, ['echo', 'before the crash'], { run_id: 'finished-before' });
    assert.equal(before.status, 'succeeded');

    const marker = '321.654';
    const res = await exec(api, sid, ['sh', '-c', `echo started >> starts.log; echo started; exec sleep ${marker}`], { mode: 'async', run_id: 'in-flight', timeout_ms: 300_000 });
    assert.equal(res.status, 200);
    await waitForStatus(api, 'in-flight', ['running']);
    await waitFor('the sleep to run', async () => (await processesRunning(['sleep', marker])).length > 0, 30_000);

    await lore.kill9(workerA, { tree: false });
    // bubblewrap's --die-with-parent (PDEATHSIG) takes the sandbox down with the worker.
    await waitFor('the sandbox to die with the worker', async () => (await processesWith(`sleep ${marker}`)).length === 0, 15_000);
    assert.equal((await getRun(api, 'in-flight')).status, 'running', 'nothing has settled it yet: no worker is up');

    // A run submitted while no worker is up waits queued and runs once one is.
    const queued = await exec(api, sid, ['echo', 'ran after restart'], { mode: 'async', run_id: 'queued-during-outage' });
    assert.equal(queued.body.run.status, 'queued');

    const t0 = Date.now();
    await lore.start('worker');
    const lost = await waitForStatus(api, 'in-flight', ['succeeded', 'failed', 'timed_out', 'cancelled'], 120_000);
    console.log(`# in-flight run settled ${Date.now() - t0} ms after the new worker started`);
    assert.equal(lost.status, 'failed');
    assert.match(lost.reason, /worker lost during the run/);
    assert.ok(lost.finished_at);

    // Not re-run: the command started exactly once.
    const check = await run(api, sid, ['cat', 'starts.log']);
    assert.equal(check.stdout_tail, 'started\n', JSON.stringify(check)); // the whole run when it fails (uid, reason, stderr)
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
    const apiProc = await lore.start('api', { LORE_PORT: String(port) });
    const pending = fetch(`http://127.0.0.1:${port}/v1/memory/sandbox/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: sid, mode: 'sync', run_id: 'outlives-api', action: { kind: 'command', argv: ['sh', '-c', 'sleep 2; echo finished'] } }),
    }).then(
      (r) => ({ ok: true as const, status: r.status }),
      (err: Error) => ({ ok: false as const, err }),
    );
    // The execute goes through the API process; wait until its run is running, then kill that process.
    await waitFor(
      'the run to be running',
      async () => {
        const r = await api.post('/v1/memory/sandbox/runs/get', { run_id: 'outlives-api' });
        return r.status === 200 && r.body.run.status === 'running';
      },
      60_000,
      50,
    );
    await lore.kill9(apiProc, { tree: false });
    const answer = await pending;
    assert.equal(answer.ok, false, 'the killed API cannot have answered the sync execute');

    const done = await waitForStatus(api, 'outlives-api', ['succeeded', 'failed', 'timed_out', 'cancelled'], 60_000);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.stdout_tail, 'finished\n');

    // A restarted API process serves the finished run from the store.
    const port2 = await freePort();
    const apiProc2 = await lore.start('api', { LORE_PORT: String(port2) });
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
      await lore.kill9(apiProc2, { tree: false });
    }
  });

  it('worker killed -9 mid-run in a workspace session: nothing stays mounted, the project is untouched, and with a new worker the session goes on from its layer', async () => {
    lore.killAll(); // the workers of the tests above: this test kills its own
    const project = join(projects, 'app');
    mkdirSync(project);
    writeFileSync(join(project, 'a.txt'), 'project a\n');
    const workerC = await lore.start('worker');
    const sid = await createSession(api, {}, { workspace: { path: project } });
    const session = (await api.post('/v1/memory/sandbox/sessions/get', { session_id: sid })).body.session;
    assert.equal(session.workspace.view, 'overlay', session.workspace.detail);
    const first = await run(api, sid, ['sh', '-c', 'echo mine > a.txt']);
    assert.equal(first.status, 'succeeded', JSON.stringify(first));

    const marker = '321.987';
    const res = await exec(api, sid, ['sh', '-c', `echo more >> a.txt; exec sleep ${marker}`], { mode: 'async', run_id: 'ws-in-flight', timeout_ms: 300_000 });
    assert.equal(res.status, 200);
    await waitFor('the sleep to run', async () => (await processesRunning(['sleep', marker])).length > 0, 60_000);
    assert.ok(mountsUnder(api.config.sandbox.dir).length > 0, 'the run’s namespace has the overlay while it runs');
    await lore.kill9(workerC, { tree: false });
    await waitFor('the sandbox to die with the worker', async () => (await processesWith(`sleep ${marker}`)).length === 0, 15_000);
    await waitFor('every namespace holding the overlay to go', async () => mountsUnder(api.config.sandbox.dir).length === 0, 15_000);
    assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'project a\n');

    await lore.start('worker');
    const lost = await waitForStatus(api, 'ws-in-flight', ['succeeded', 'failed', 'timed_out', 'cancelled'], 120_000);
    assert.equal(lost.status, 'failed');
    const next = await run(api, sid, ['cat', 'a.txt']);
    assert.equal(next.stdout_tail, 'mine\nmore\n', 'the layer is as the killed run left it');
    const diff = await api.post('/v1/memory/sandbox/sessions/diff', { session_id: sid });
    assert.deepEqual(
      diff.body.changes.map((c: { change: string; path: string; content: string }) => [c.change, c.path, c.content]),
      [['modified', 'a.txt', 'mine\nmore\n']],
    );
    assert.equal(readFileSync(join(project, 'a.txt'), 'utf8'), 'project a\n');
  });
});
