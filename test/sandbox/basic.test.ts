/**
 * The sandbox through HTTP with real commands: sessions, sync and async execute, run records,
 * ordered logs, artifact bundles, exit codes and signals, profiles, bad input and unknown ids.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, type TestApi } from '../helpers/app';
import { assertError } from '../helpers/isolation';
import { createSession, exec, getRun, run, waitForStatus } from './helpers';

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true });
});
after(async () => api?.close());

describe('sessions', () => {
  it('create a session that says which isolation is in force, and read it back', async () => {
    const res = await api.post('/v1/memory/sandbox/sessions', { profile: 'default', actor: 'agent-1' });
    assert.equal(res.status, 200);
    const s = res.body.session;
    assert.equal(res.body.created, true);
    assert.equal(s.session_id, res.body.session_id);
    assert.equal(s.profile, 'default');
    assert.equal(s.isolation.kind, 'bubblewrap', `bubblewrap is installed here (.ci/run): ${JSON.stringify(s.isolation)}`);
    assert.equal(s.isolation.network, 'none');
    assert.match(s.isolation.version, /^\d+\.\d+/);
    assert.equal(s.shell_allowed, true);
    assert.equal(s.allowed_commands, null);
    assert.equal(s.workdir, '/work');
    assert.equal(s.actor, 'agent-1');
    assert.equal(s.limits.wall_ms, 30_000);
    const got = await api.post('/v1/memory/sandbox/sessions/get', { session_id: s.session_id });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.session, s);
    const health = await api.get('/health');
    assert.equal(health.body.sandbox.enabled, true);
    assert.equal(health.body.sandbox.isolation, 'bubblewrap', 'GET /health says what the worker found');
  });

  it('a caller-chosen session_id is idempotent; a different profile under it is conflict', async () => {
    const first = await api.post('/v1/memory/sandbox/sessions', { session_id: 'my-session.1', profile: 'local-safe' });
    assert.equal(first.status, 200);
    assert.equal(first.body.session_id, 'my-session.1');
    const again = await api.post('/v1/memory/sandbox/sessions', { session_id: 'my-session.1', profile: 'local-safe' });
    assert.equal(again.body.created, false);
    assert.deepEqual(again.body.session, first.body.session);
    assertError(await api.post('/v1/memory/sandbox/sessions', { session_id: 'my-session.1', profile: 'default' }), 409, 'conflict');
  });

  it('session limits apply to its runs and execute may override them within the caps', async () => {
    const sid = await createSession(api, {}, { limits: { wall_ms: 5000, max_output_bytes: 2048 } });
    const r = await run(api, sid, ['true']);
    assert.equal(r.limits.wall_ms, 5000);
    assert.equal(r.limits.max_output_bytes, 2048);
    const r2 = await run(api, sid, ['true'], { limits: { wall_ms: 7000 }, timeout_ms: 8000 });
    assert.equal(r2.limits.wall_ms, 8000, 'timeout_ms is the shorthand for limits.wall_ms and wins');
    const over = assertError(await exec(api, sid, ['true'], { limits: { memory_bytes: 64 * 1024 ** 3 } }), 400, 'invalid_request');
    assert.equal(over.error.details.issues[0].path, 'limits.memory_bytes');
    assert.match(over.error.details.issues[0].message, /cap/);
  });
});

describe('execute', () => {
  it('echo, ls and cat work; output, logs and artifacts come back', async () => {
    const sid = await createSession(api);
    const echo = await run(api, sid, ['echo', 'hello', 'sandbox']);
    assert.equal(echo.status, 'succeeded');
    assert.equal(echo.exit_code, 0);
    assert.equal(echo.signal, null);
    assert.equal(echo.stdout_tail, 'hello sandbox\n');
    assert.equal(echo.truncated, false);
    assert.equal(typeof echo.duration_ms, 'number');
    assert.equal(echo.isolation.kind, 'bubblewrap');
    assert.equal(echo.isolation.enforced.processes, true);

    const write = await run(api, sid, [
      'sh',
      '-c',
      'mkdir -p artifacts/sub && printf "report\\n" > artifacts/report.txt && printf "\\000\\001\\002\\377" > artifacts/sub/bin.dat && echo notes > notes.txt',
    ]);
    assert.equal(write.status, 'succeeded', write.reason);
    assert.equal(write.artifact_count, 2);

    const ls = await run(api, sid, ['ls', '-1', '/work']);
    assert.equal(ls.stdout_tail, 'artifacts\nnotes.txt\n', 'the workdir persists across runs of a session');
    const cat = await run(api, sid, ['cat', 'notes.txt', 'artifacts/report.txt']);
    assert.equal(cat.stdout_tail, 'notes\nreport\n');
    assert.equal(cat.artifact_count, 0, 'a later run does not repeat files it did not write');

    const bundle = await api.post('/v1/memory/sandbox/runs/artifact', { run_id: write.run_id, include_output: true, include_result: true });
    assert.equal(bundle.status, 200);
    assert.equal(bundle.body.complete, true);
    assert.equal(bundle.body.result.status, 'succeeded');
    assert.equal(bundle.body.result.exit_code, 0);
    const files = Object.fromEntries(bundle.body.files.map((f: any) => [f.path, f]));
    assert.deepEqual(Object.keys(files).sort(), ['report.txt', 'sub/bin.dat']);
    assert.equal(files['report.txt'].encoding, 'utf8');
    assert.equal(files['report.txt'].content, 'report\n');
    assert.equal(files['sub/bin.dat'].encoding, 'base64');
    assert.deepEqual([...Buffer.from(files['sub/bin.dat'].content, 'base64')], [0, 1, 2, 255]);

    const catBundle = await api.post('/v1/memory/sandbox/runs/artifact', { run_id: cat.run_id, include_files: false });
    assert.equal(catBundle.body.output.stdout, 'notes\nreport\n');
    assert.equal(catBundle.body.files, undefined);
    const onlyResult = await api.post('/v1/memory/sandbox/runs/artifact', { run_id: cat.run_id, include_output: false, include_files: false });
    assert.equal(onlyResult.body.output, undefined);
    assert.equal(onlyResult.body.result.exit_code, 0);
  });

  it('exit codes, signals and missing programs are reported', async () => {
    const sid = await createSession(api);
    const code = await run(api, sid, ['sh', '-c', 'echo out; echo oops >&2; exit 7']);
    assert.equal(code.status, 'failed');
    assert.equal(code.exit_code, 7);
    assert.equal(code.stderr_tail, 'oops\n');
    assert.match(code.reason, /code 7/);
    const sig = await run(api, sid, ['sh', '-c', 'kill -TERM $$']);
    assert.equal(sig.status, 'failed');
    assert.equal(sig.signal, 'SIGTERM');
    assert.equal(sig.exit_code, null);
    const missing = await run(api, sid, ['no-such-program-xyz']);
    assert.equal(missing.status, 'failed');
    assert.equal(missing.exit_code, 127);
    assert.match(missing.reason, /not found/);
    const f = await run(api, sid, ['false']);
    assert.equal(f.exit_code, 1);
  });

  it('logs are ordered with sequence numbers across both streams and pageable', async () => {
    const sid = await createSession(api);
    // Each line is flushed separately and the streams alternate, so they become separate entries.
    const script = 'for i in 1 2 3 4 5 6; do echo "out $i"; sleep 0.3; echo "err $i" >&2; sleep 0.3; done';
    const r = await run(api, sid, ['sh', '-c', script]);
    assert.equal(r.status, 'succeeded');
    const all: any[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await api.post('/v1/memory/sandbox/runs/logs', { run_id: r.run_id, limit: 3, ...(cursor ? { cursor } : {}) });
      assert.equal(page.status, 200);
      pages += 1;
      all.push(...page.body.logs);
      if (page.body.next_cursor === null) {
        assert.equal(page.body.complete, true);
        break;
      }
      cursor = page.body.next_cursor;
      assert.ok(pages < 20);
    }
    assert.ok(pages >= 3, `expected several pages, got ${pages}`);
    assert.deepEqual(
      all.map((e) => e.seq),
      all.map((_, i) => i),
    );
    assert.equal(
      all
        .filter((e) => e.stream === 'stdout')
        .map((e) => e.text)
        .join(''),
      [1, 2, 3, 4, 5, 6].map((i) => `out ${i}\n`).join(''),
    );
    assert.equal(
      all
        .filter((e) => e.stream === 'stderr')
        .map((e) => e.text)
        .join(''),
      [1, 2, 3, 4, 5, 6].map((i) => `err ${i}\n`).join(''),
    );
    // Interleaving follows arrival: out 1 comes before err 1, which comes before out 2.
    const order = all.map((e) => e.text).join('');
    assert.ok(order.indexOf('out 1') < order.indexOf('err 1') && order.indexOf('err 1') < order.indexOf('out 2'));
    const onlyErr = await api.post('/v1/memory/sandbox/runs/logs', { run_id: r.run_id, stream: 'stderr', limit: 100 });
    assert.ok(onlyErr.body.logs.every((e: any) => e.stream === 'stderr'));
  });

  it('async returns a queued run at once; it runs to the end and is readable', async () => {
    const sid = await createSession(api);
    const res = await exec(api, sid, ['sh', '-c', 'sleep 1; echo done'], { mode: 'async' });
    assert.equal(res.status, 200);
    assert.equal(res.body.completed, false);
    assert.ok(['queued', 'running'].includes(res.body.run.status));
    assert.equal(res.body.run.mode, 'async');
    const done = await waitForStatus(api, res.body.run_id, ['succeeded', 'failed'], 60_000);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.stdout_tail, 'done\n');
  });

  it('a sync wait that runs out says the run is still going; the run goes on and finishes', async () => {
    const sid = await createSession(api);
    const res = await exec(api, sid, ['sh', '-c', 'sleep 2; echo late'], { wait_ms: 300 });
    assert.equal(res.status, 200);
    assert.equal(res.body.completed, false);
    assert.match(res.body.message, /still (queued|running)/);
    const done = await waitForStatus(api, res.body.run_id, ['succeeded', 'failed'], 60_000);
    assert.equal(done.stdout_tail, 'late\n');
  });

  it('a caller run_id makes execute idempotent; the same id with another command is conflict', async () => {
    const sid = await createSession(api);
    const a = await run(api, sid, ['echo', 'once'], { run_id: 'run-idem-1' });
    const b = await run(api, sid, ['echo', 'once'], { run_id: 'run-idem-1' });
    assert.equal(b.run_id, 'run-idem-1');
    assert.deepEqual(b, a);
    const logs = await api.post('/v1/memory/sandbox/runs/logs', { run_id: 'run-idem-1' });
    assert.equal(logs.body.logs.length, 1, 'the command ran once');
    assertError(await exec(api, sid, ['echo', 'twice'], { run_id: 'run-idem-1' }), 409, 'conflict');
  });

  it('the environment is scrubbed: only what the run sets is visible', async () => {
    const sid = await createSession(api);
    const r = await run(api, sid, ['env'], { action: { kind: 'command', argv: ['env'], env: { GREETING: 'hi' } } });
    const names = r.stdout_tail
      .trim()
      .split('\n')
      .map((l: string) => l.split('=')[0])
      .sort();
    assert.deepEqual(names, ['GREETING', 'HOME', 'LANG', 'LOGNAME', 'PATH', 'PWD', 'TMPDIR', 'USER']);
    assert.ok(!/MONGODB|TEMPORAL|LORE_/.test(r.stdout_tail));
  });
});

describe('profiles', () => {
  it('local-safe runs its read-only tools and refuses others with command_not_allowed', async () => {
    const res = await api.post('/v1/memory/sandbox/sessions', { profile: 'local-safe' });
    const s = res.body.session;
    assert.equal(s.shell_allowed, false);
    assert.ok(s.allowed_commands.includes('ls') && s.allowed_commands.includes('cat'));
    const ls = await run(api, s.session_id, ['ls', '-a']);
    assert.equal(ls.status, 'succeeded');
    assert.equal((await run(api, s.session_id, ['/usr/bin/echo', 'ok'])).stdout_tail, 'ok\n');

    for (const argv of [['sh', '-c', 'echo hi'], ['bash'], ['/bin/dash', '-c', 'id'], ['python3', '-c', '1'], ['rm', '-rf', '/work'], ['./ls'], ['/work/ls']]) {
      const body = assertError(await exec(api, s.session_id, argv), 403, 'command_not_allowed');
      assert.equal(body.error.details.argv0, argv[0]);
      assert.equal(body.error.details.profile, 'local-safe');
      assert.deepEqual(body.error.details.allowed, s.allowed_commands);
    }
    // Allowlisted tools with options that would run programs or write files.
    assertError(await exec(api, s.session_id, ['find', '.', '-exec', 'sh', '-c', 'id', ';']), 403, 'command_not_allowed');
    assertError(await exec(api, s.session_id, ['find', '.', '-delete']), 403, 'command_not_allowed');
    assertError(await exec(api, s.session_id, ['sort', '-o', 'out.txt', 'in.txt']), 403, 'command_not_allowed');
    assertError(await exec(api, s.session_id, ['sort', '--compress-program=sh', 'x']), 403, 'command_not_allowed');
    assertError(await exec(api, s.session_id, ['ls'], { action: { kind: 'command', argv: ['ls'], env: { LD_PRELOAD: '/work/x.so' } } }), 403, 'command_not_allowed');
  });

  it('the default profile allows shells (isolation is the protection)', async () => {
    const sid = await createSession(api);
    const r = await run(api, sid, ['bash', '-c', 'echo $((6*7)) | cat']);
    assert.equal(r.stdout_tail, '42\n');
  });
});

describe('bad input and unknown ids', () => {
  it('bad input is invalid_request, never 500', async () => {
    const sid = await createSession(api);
    const cases: [string, unknown][] = [
      ['/v1/memory/sandbox/sessions', { profile: 'root' }],
      ['/v1/memory/sandbox/sessions', { session_id: 'has space' }],
      ['/v1/memory/sandbox/sessions', { limits: { wall_ms: -1 } }],
      ['/v1/memory/sandbox/execute', {}],
      ['/v1/memory/sandbox/execute', { session_id: sid }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'shell', argv: ['ls'] } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'command', argv: 'ls -la' } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'command', argv: [] } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'command', argv: [''] } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'command', argv: ['echo', 'a\u0000b'] } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'command', argv: ['echo', 1] } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, mode: 'later', action: { kind: 'command', argv: ['ls'] } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'command', argv: ['ls'], env: { 'BAD-NAME': 'x' } } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'command', argv: Array(300).fill('x') } }],
      ['/v1/memory/sandbox/execute', { session_id: sid, action: { kind: 'command', argv: ['ls'] }, timeout_ms: 10 ** 9 }],
      ['/v1/memory/sandbox/runs/get', {}],
      ['/v1/memory/sandbox/runs/get', { run_id: '../etc' + ' x' }],
      ['/v1/memory/sandbox/runs/logs', { run_id: 'r', limit: 0 }],
      ['/v1/memory/sandbox/runs/logs', { run_id: 'r', cursor: 'abc' }],
      ['/v1/memory/sandbox/runs/artifact', { run_id: 'r', include_output: 'yes' }],
      ['/v1/memory/sandbox/runs/cancel', { run_id: 5 }],
    ];
    for (const [path, body] of cases) {
      const res = await api.post(path, body);
      assertError(res, 400, 'invalid_request');
    }
    // Unknown top-level fields are accepted and named in warnings; an unknown key in action (or
    // limits) would change what runs, so it is validation_failed naming it.
    const ok = await exec(api, sid, ['true'], { extra_field: { nested: 1 } });
    assert.equal(ok.status, 200);
    assert.deepEqual(
      ok.body.warnings.map((w: { field: string }) => w.field),
      ['extra_field'],
    );
    const closed = assertError(await exec(api, sid, ['true'], { action: { kind: 'command', argv: ['true'], cwd: '/' } }), 422, 'validation_failed');
    assert.deepEqual(closed.error.details.issues[0].accepted, ['kind', 'argv', 'env']);
    assertError(await exec(api, sid, ['true'], { limits: { memory_mb: 64 } }), 422, 'validation_failed');
  });

  it('unknown sessions and runs are not_found', async () => {
    assertError(await exec(api, 'no-such-session', ['true']), 404, 'not_found');
    assertError(await api.post('/v1/memory/sandbox/sessions/get', { session_id: 'no-such-session' }), 404, 'not_found');
    for (const path of ['get', 'logs', 'artifact', 'cancel']) {
      const body = assertError(await api.post(`/v1/memory/sandbox/runs/${path}`, { run_id: 'no-such-run' }), 404, 'not_found');
      assert.equal(body.error.details.run_id, 'no-such-run');
    }
  });
});

describe('SANDBOX_ENABLED=false', () => {
  it('every sandbox route answers sandbox_disabled naming the setting', async () => {
    const off = await startTestApi({ env: { SANDBOX_ENABLED: 'false' } });
    try {
      const valid: [string, unknown][] = [
        ['/v1/memory/sandbox/sessions', { profile: 'default' }],
        ['/v1/memory/sandbox/sessions/get', { session_id: 's' }],
        ['/v1/memory/sandbox/execute', { session_id: 's', mode: 'sync', action: { kind: 'command', argv: ['true'] } }],
        ['/v1/memory/sandbox/runs/get', { run_id: 'r' }],
        ['/v1/memory/sandbox/runs/logs', { run_id: 'r' }],
        ['/v1/memory/sandbox/runs/artifact', { run_id: 'r', include_output: true, include_result: true }],
        ['/v1/memory/sandbox/runs/cancel', { run_id: 'r' }],
      ];
      for (const [path, body] of valid) {
        const res = assertError(await off.post(path, body), 503, 'sandbox_disabled');
        assert.equal(res.error.details.setting, 'SANDBOX_ENABLED');
        assert.match(res.error.message, /SANDBOX_ENABLED/);
      }
      const health = await off.get('/health');
      assert.equal(health.body.sandbox.enabled, false);
    } finally {
      await off.close();
    }
  });

  it('runs/get of a finished run answers from the store', async () => {
    const sid = await createSession(api);
    const r = await run(api, sid, ['echo', 'kept']);
    const again = await getRun(api, r.run_id);
    assert.deepEqual(again, r);
  });
});
