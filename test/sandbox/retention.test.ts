/**
 * Workdir retention (LORE_SANDBOX_WORKDIR_TTL): a session with no run created for the TTL loses
 * its workdir's files and says when; a recently used session, a session with an open run and a
 * directory that is no session's workdir keep theirs; the next run of an expired session starts
 * in an empty workdir, and earlier run records and artifacts stay. Real commands through HTTP,
 * the engine and bubblewrap; the sweep is called directly with the test's clock.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, promises as fsp, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, ConfigError } from '../../src/config';
import { DAY_MS } from '../../src/model/clock';
import { sweepWorkdirs } from '../../src/domain/sandbox/retention';
import { silentLog } from '../../src/log';
import { startTestApi, type TestApi } from '../helpers/app';
import { identities } from '../helpers/isolation';
import { createSession, exec, processesRunning, run, waitFor, waitForStatus } from './helpers';

const TTL = '2d';
let api: TestApi;
let projects = '';
before(async () => {
  projects = mkdtempSync(path.join(tmpdir(), 'lore-retention-ws-'));
  api = await startTestApi({ worker: true, env: { LORE_SANDBOX_WORKDIR_TTL: TTL, LORE_SANDBOX_WORKSPACE_ROOTS: projects } });
});
after(async () => {
  await api?.close();
  if (projects) rmSync(projects, { recursive: true, force: true });
});

const sweep = (config = api.config) => sweepWorkdirs({ config, db: api.db, clock: api.clock, log: silentLog });
const sessionDirs = async () => (await fsp.readdir(api.config.sandbox.dir)).filter((n) => n.startsWith('s-')).sort();
const getSession = async (session_id: string, who = {}) => {
  const res = await api.post('/v1/memory/sandbox/sessions/get', { ...who, session_id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.session;
};

describe('sandbox workdir retention', () => {
  it('an idle session loses its workdir and says when; recently used ones (one in another tenant) keep theirs; the next run starts empty', async () => {
    const { otherTenant } = identities();
    const idle = await createSession(api, {}, { session_id: 'shared-name' });
    const reused = await createSession(api); // created now, used a day later: idleness counts from its last run
    const first = await run(api, idle, ['sh', '-c', 'echo notes > notes.txt; mkdir -p artifacts; echo a > artifacts/a.txt']);
    assert.equal(first.status, 'succeeded');
    const usedAt = api.clock.now().toISOString();
    assert.equal((await getSession(idle)).last_run_at, usedAt);
    assert.equal((await getSession(idle)).workdir_removed_at, null);

    // The same caller id in another tenant is another session with a workdir of its own, used a day later.
    api.clock.advance(DAY_MS);
    const recent = await createSession(api, otherTenant, { session_id: 'shared-name' });
    await run(api, recent, ['sh', '-c', 'echo mine > mine.txt'], {}, otherTenant);
    await run(api, reused, ['sh', '-c', 'echo again > again.txt']);
    const before = await sessionDirs();
    assert.equal(before.length, 3, `three session workdirs: ${before.join(', ')}`);

    api.clock.advance(DAY_MS + 60_000); // the first is idle for 2 days and a minute, the other two for a day
    const result = await sweep();
    assert.equal(result.removed.length, 1, JSON.stringify(result));
    assert.equal(result.kept, 2);
    const left = await sessionDirs();
    assert.deepEqual(
      left,
      before.filter((n) => n !== result.removed[0]),
    );
    await assert.rejects(fsp.stat(path.join(api.config.sandbox.dir, result.removed[0]!)), /ENOENT/);

    const expired = await getSession(idle);
    assert.equal(expired.workdir_removed_at, api.clock.now().toISOString());
    assert.equal(expired.last_run_at, usedAt, 'the session itself stays');
    // A second pass (e.g. after a restart) finds nothing more to do.
    api.clock.advance(60_000);
    const again = await sweep();
    assert.deepEqual(again.removed, [], JSON.stringify(again));
    assert.equal((await getSession(idle)).workdir_removed_at, expired.workdir_removed_at);
    assert.equal((await getSession(recent, otherTenant)).workdir_removed_at, null);
    assert.equal((await getSession(reused)).workdir_removed_at, null);
    assert.equal((await run(api, reused, ['cat', 'again.txt'])).stdout_tail, 'again\n');

    // The next run of the expired session: a fresh workdir without the old files.
    const next = await run(api, idle, ['sh', '-c', 'ls -A; test ! -e notes.txt']);
    assert.equal(next.status, 'succeeded', JSON.stringify(next));
    assert.doesNotMatch(next.stdout_tail, /notes\.txt/);
    // The other tenant's files are still there.
    const theirs = await run(api, recent, ['cat', 'mine.txt'], {}, otherTenant);
    assert.equal(theirs.stdout_tail, 'mine\n');
    // What the store holds of the earlier run stays: its record and its artifact bundle.
    const bundle = await api.post('/v1/memory/sandbox/runs/artifact', { run_id: first.run_id });
    assert.equal(bundle.status, 200, JSON.stringify(bundle.body));
    assert.deepEqual(
      bundle.body.files.map((f: { path: string; content: string }) => [f.path, f.content]),
      [['a.txt', 'a\n']],
    );
  });

  it('a session with a run still open keeps its workdir however long ago the run began', async () => {
    const known = await sessionDirs();
    const sid = await createSession(api);
    await run(api, sid, ['sh', '-c', 'echo keep > keep.txt']);
    const mine = (await sessionDirs()).filter((n) => !known.includes(n));
    assert.equal(mine.length, 1, 'the session has a workdir');
    const marker = `${500 + Math.floor(Math.random() * 400)}.${Math.floor(Math.random() * 1000)}`;
    const res = await exec(api, sid, ['sleep', marker], { mode: 'async', timeout_ms: 600_000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const runId = res.body.run.run_id;
    await waitFor('the sleep to run', async () => (await processesRunning(['sleep', marker])).length > 0);
    api.clock.advance(30 * DAY_MS);
    const result = await sweep();
    assert.ok(!result.removed.includes(mine[0]!), 'kept while a run is open');
    assert.ok(result.kept >= 1, JSON.stringify(result));
    assert.ok((await sessionDirs()).includes(mine[0]!));
    assert.equal((await getSession(sid)).workdir_removed_at, null);

    const cancel = await api.post('/v1/memory/sandbox/runs/cancel', { run_id: runId });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    await waitForStatus(api, runId, ['cancelled']);
    // Closed now, and its creation 30 days ago: the workdir goes.
    const later = await sweep();
    assert.deepEqual(later.removed, mine, JSON.stringify(later));
    assert.notEqual((await getSession(sid)).workdir_removed_at, null);
  });

  it('a workspace session loses its layer with its workdir; its next run sees the project as it is; the stored diff says the layer went', async () => {
    const project = path.join(projects, 'app');
    await fsp.mkdir(project);
    writeFileSync(path.join(project, 'a.txt'), 'project a\n');
    const sid = await createSession(api, {}, { workspace: { path: project } });
    const session = await getSession(sid);
    const first = await run(api, sid, ['sh', '-c', 'echo mine > a.txt && echo n > new.txt']);
    assert.equal(first.status, 'succeeded', JSON.stringify(first));
    const layers = async () => (await fsp.readdir(api.config.sandbox.dir)).filter((n) => n.endsWith('.ovl'));
    assert.equal(session.workspace.view, 'overlay', session.workspace.detail);
    assert.equal((await layers()).length, 1, 'the overlay keeps its scratch directory beside the workdir');

    api.clock.advance(3 * DAY_MS);
    const result = await sweep();
    assert.ok(result.removed.length >= 1, JSON.stringify(result));
    assert.deepEqual(await layers(), [], 'the overlay scratch directories went with their workdirs');
    assert.equal(await fsp.readFile(path.join(project, 'a.txt'), 'utf8'), 'project a\n', 'the project was never touched');
    const kept = await api.post('/v1/memory/sandbox/sessions/diff', { session_id: sid });
    assert.deepEqual(
      kept.body.changes.map((c: { change: string; path: string }) => `${c.change} ${c.path}`),
      ['modified a.txt', 'added new.txt'],
    );
    assert.match(kept.body.message, /layer was removed/);

    const next = await run(api, sid, ['sh', '-c', 'cat a.txt; ls']);
    assert.equal(next.stdout_tail, 'project a\na.txt\nartifacts\n', 'the next run starts from the project as it is');
    const fresh = await api.post('/v1/memory/sandbox/sessions/diff', { session_id: sid });
    assert.deepEqual([fresh.body.changes, fresh.body.read.run_id, fresh.body.message], [[], next.run_id, undefined]);
  });

  it('directories that are no session workdir of this store are left alone', async () => {
    const root = api.config.sandbox.dir;
    const foreign = ['s-00000000-0000-7000-8000-000000000000', 'not-a-session', 's-notes'];
    for (const name of foreign) await fsp.mkdir(path.join(root, name), { recursive: true });
    api.clock.advance(365 * DAY_MS);
    const result = await sweep();
    for (const name of foreign) assert.ok((await fsp.stat(path.join(root, name))).isDirectory(), `${name} is still there`);
    assert.ok(result.unknown >= foreign.length, JSON.stringify(result));
  });

  it('LORE_SANDBOX_WORKDIR_TTL=off keeps every workdir; a bad value names the variable', async () => {
    const sid = await createSession(api);
    await run(api, sid, ['true']);
    api.clock.advance(100 * DAY_MS);
    const off = loadConfig({ ...process.env, LORE_SANDBOX_WORKDIR_TTL: 'off' });
    assert.equal(off.sandbox.workdirTtlMs, 0);
    const result = await sweep({ ...api.config, sandbox: { ...api.config.sandbox, workdirTtlMs: off.sandbox.workdirTtlMs } });
    assert.deepEqual(result, { removed: [], kept: 0, unknown: 0 });
    assert.equal((await getSession(sid)).workdir_removed_at, null);

    assert.equal(loadConfig({ LORE_SANDBOX_WORKDIR_TTL: '12h' }).sandbox.workdirTtlMs, 12 * 3_600_000);
    assert.equal(loadConfig({}).sandbox.workdirTtlMs, 7 * DAY_MS, 'default: 7 days');
    assert.throws(
      () => loadConfig({ LORE_SANDBOX_WORKDIR_TTL: 'soon' }),
      (err: unknown) => err instanceof ConfigError && /LORE_SANDBOX_WORKDIR_TTL/.test((err as Error).message),
    );
  });
});
