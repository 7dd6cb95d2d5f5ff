/** Tenant and scope isolation of sandbox sessions and runs: another tenant or scope cannot see, use or cancel them. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError, assertIsolated, identities, type Identity } from '../helpers/isolation';
import { createSession, exec, run, waitForStatus } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

it('a session is visible and usable only in its tenant and scope', async () => {
  const SID = 'shared-name-session';
  await assertIsolated({
    what: 'sandbox session',
    seed: async (owner) => {
      await createSession(api, owner, { session_id: SID });
    },
    sees: async (viewer) => {
      const got = await api.post('/v1/memory/sandbox/sessions/get', { ...viewer, session_id: SID });
      const used = await exec(api, SID, ['true'], {}, viewer);
      assert.equal(got.status === 200, used.status === 200, 'get and execute must agree');
      if (got.status !== 200) {
        assertError(got, 404, 'not_found');
        assertError(used, 404, 'not_found');
      }
      return got.status === 200;
    },
  });
});

it('runs, logs and artifacts are visible only in their tenant and scope', async () => {
  const RID = 'shared-name-run';
  await assertIsolated({
    what: 'sandbox run',
    seed: async (owner) => {
      const sid = await createSession(api, owner);
      await run(api, sid, ['sh', '-c', 'echo owner-secret; mkdir -p artifacts; echo s > artifacts/s.txt'], { run_id: RID }, owner);
    },
    sees: async (viewer) => {
      const results = await Promise.all(['get', 'logs', 'artifact'].map((p) => api.post(`/v1/memory/sandbox/runs/${p}`, { ...viewer, run_id: RID })));
      const visible = results.map((r) => r.status === 200);
      assert.ok(
        visible.every((v) => v === visible[0]),
        `routes disagree: ${visible}`,
      );
      for (const r of results) if (r.status !== 200) assertError(r, 404, 'not_found');
      if (visible[0]) assert.ok(JSON.stringify(results[1]!.body).includes('owner-secret'));
      return visible[0]!;
    },
  });
});

it('the same session and run ids in two tenants are separate sessions with separate workdirs', async () => {
  const { owner, otherTenant } = identities();
  const a = await createSession(api, owner, { session_id: 'same-id' });
  const b = await createSession(api, otherTenant, { session_id: 'same-id' });
  await run(api, a, ['sh', '-c', 'echo tenant-a > file.txt'], { run_id: 'same-run' }, owner);
  const other = await run(api, b, ['sh', '-c', 'cat file.txt 2>&1; ls'], { run_id: 'same-run' }, otherTenant);
  assert.ok(!other.stdout_tail.includes('tenant-a'), 'a workdir is shared across tenants');
  assert.equal(other.run_id, 'same-run');
});

it('another tenant or scope cannot cancel a run; it keeps running', async () => {
  const { owner, otherTenant, otherScope } = identities();
  const sid = await createSession(api, owner);
  const res = await exec(api, sid, ['sleep', '30'], { mode: 'async', run_id: 'victim' }, owner);
  assert.equal(res.status, 200);
  await waitForStatus(api, 'victim', ['running'], 60_000, owner);
  for (const stranger of [otherTenant, otherScope] as Identity[]) {
    assertError(await api.post('/v1/memory/sandbox/runs/cancel', { ...stranger, run_id: 'victim' }), 404, 'not_found');
  }
  const still = await api.post('/v1/memory/sandbox/runs/get', { ...owner, run_id: 'victim' });
  assert.equal(still.body.run.status, 'running');
  assert.equal(still.body.run.cancel_requested, false);
  const mine = await api.post('/v1/memory/sandbox/runs/cancel', { ...owner, run_id: 'victim' });
  assert.equal(mine.body.run.status, 'cancelled');
});
