/** Many runs at once through HTTP: each its own workflow, activity and sandbox, outputs kept apart. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { createSession, exec } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

it('50 concurrent short runs all complete with correct, separate outputs', async () => {
  const sessions = [await createSession(api), await createSession(api)];
  const t0 = performance.now();
  const replies = await Promise.all(
    Array.from({ length: 50 }, (_, n) =>
      exec(api, sessions[n % 2]!, ['sh', '-c', `echo run-${n}; echo err-${n} >&2; mkdir -p artifacts; echo ${n} > artifacts/file-${n}.txt`], {
        run_id: `conc-${n}`,
        wait_ms: 240_000,
      }),
    ),
  );
  const elapsed = performance.now() - t0;
  console.log(`# 50 concurrent sync runs through HTTP took ${elapsed.toFixed(0)} ms`);
  for (const [n, res] of replies.entries()) {
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.completed, true, `run ${n}: ${JSON.stringify(res.body)}`);
    const r = res.body.run;
    assert.equal(r.run_id, `conc-${n}`);
    assert.equal(r.status, 'succeeded', `run ${n}: ${r.reason} ${r.stderr_tail}`);
    assert.equal(r.stdout_tail, `run-${n}\n`);
    assert.equal(r.stderr_tail, `err-${n}\n`);
  }
  // Logs and artifact bundles are per run as well.
  await Promise.all(
    replies.map(async (_, n) => {
      const logs = await api.post('/v1/memory/sandbox/runs/logs', { run_id: `conc-${n}` });
      assert.deepEqual(
        logs.body.logs.map((e: any) => [e.seq, e.stream, e.text]).sort(),
        [
          [0, 'stdout', `run-${n}\n`],
          [1, 'stderr', `err-${n}\n`],
        ].sort(),
      );
      const bundle = await api.post('/v1/memory/sandbox/runs/artifact', { run_id: `conc-${n}` });
      const own = bundle.body.files.find((f: any) => f.path === `file-${n}.txt`);
      assert.ok(own, `run ${n} lost its artifact: ${JSON.stringify(bundle.body.files.map((f: any) => f.path))}`);
      assert.equal(own.content, `${n}\n`);
    }),
  );
});
