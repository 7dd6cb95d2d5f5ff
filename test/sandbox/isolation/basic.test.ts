import assert from 'node:assert/strict';
import { existsSync, promises as fsp, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { detectIsolation, isShell, prepareWorkdir, SandboxSpecError } from '../../../src/sandbox/isolation/index';
import { isRoot, LIMITS, makeRoot, makeWorkdir, run, useIdRange } from './helpers';

useIdRange(0);

const roots: string[] = [];
after(async () => {
  for (const r of roots) await fsp.rm(r, { recursive: true, force: true });
});

test('detectIsolation finds working bubblewrap (real probe) and caches it', async () => {
  const info = await detectIsolation();
  assert.equal(info.kind, 'bubblewrap', `probe failed: ${info.reason}`);
  assert.match(info.version ?? '', /^\d+\.\d+/);
  assert.equal(info.uid_isolation, isRoot);
  const t0 = performance.now();
  const again = await detectIsolation();
  assert.ok(performance.now() - t0 < 50, 'second call is cached');
  assert.deepEqual(again, info);
});

for (const isolation of ['bubblewrap', 'none'] as const) {
  describe(`isolation ${isolation}`, () => {
    let workdir = '';
    let artifacts = '';
    before(async () => {
      const w = await makeWorkdir(`basic-${isolation}`);
      roots.push(w.root);
      workdir = w.workdir;
      artifacts = w.artifacts;
    });

    test('echo, ls and cat work in the workdir, which is the cwd', async () => {
      const r = await run(['sh', '-c', 'echo hello > greeting.txt && ls && cat greeting.txt && pwd'], workdir, { isolation });
      assert.equal(r.outcome.status, 'succeeded', r.outcome.reason);
      assert.equal(r.outcome.exit_code, 0);
      assert.equal(r.outcome.signal, null);
      const lines = r.stdout.trim().split('\n');
      assert.ok(lines.includes('greeting.txt'));
      assert.ok(lines.includes('artifacts'));
      assert.ok(lines.includes('hello'));
      assert.equal(lines.at(-1), isolation === 'bubblewrap' ? '/work' : workdir);
      assert.equal(r.outcome.stdout_tail, r.stdout);
      assert.equal(r.outcome.isolation.kind, isolation);
    });

    test('plain argv without a shell: echo and ls', async () => {
      const e = await run(['echo', 'a', 'b  c', '$HOME'], workdir, { isolation });
      assert.equal(e.stdout, 'a b  c $HOME\n', 'arguments are not shell-expanded');
      const l = await run(['ls', '-a'], workdir, { isolation });
      assert.equal(l.outcome.status, 'succeeded');
      assert.match(l.stdout, /artifacts/);
    });

    test('a file written to artifacts/ exists on the host afterwards', async () => {
      const target = isolation === 'bubblewrap' ? '/work/artifacts/x.txt' : 'artifacts/x.txt';
      const r = await run(['sh', '-c', `printf 'artifact-${isolation}' > ${target}`], workdir, { isolation });
      assert.equal(r.outcome.status, 'succeeded', r.outcome.reason + r.stderr);
      assert.equal(await fsp.readFile(path.join(artifacts, 'x.txt'), 'utf8'), `artifact-${isolation}`);
      if (isRoot) {
        const st = statSync(path.join(artifacts, 'x.txt'));
        assert.equal(st.uid, r.outcome.isolation.uid, 'file owned by the run uid, not root');
        assert.notEqual(st.uid, 0);
      }
    });

    test('exit codes are reported', async () => {
      const r = await run(['sh', '-c', 'exit 3'], workdir, { isolation });
      assert.equal(r.outcome.status, 'failed');
      assert.equal(r.outcome.exit_code, 3);
      assert.equal(r.outcome.signal, null);
      assert.equal(r.outcome.limit_hit, undefined);
      const f = await run(['false'], workdir, { isolation });
      assert.equal(f.outcome.exit_code, 1);
    });

    test('death by signal is reported', async () => {
      const r = await run(['sh', '-c', 'kill -TERM $$'], workdir, { isolation });
      assert.equal(r.outcome.status, 'failed');
      assert.equal(r.outcome.signal, 'SIGTERM');
      assert.equal(r.outcome.exit_code, null);
      assert.match(r.outcome.reason ?? '', /SIGTERM/);
      const k = await run(['sh', '-c', 'kill -KILL $$'], workdir, { isolation });
      assert.equal(k.outcome.signal, 'SIGKILL');
    });

    test('command not found', async () => {
      const r = await run(['no-such-command-xyz'], workdir, { isolation });
      assert.equal(r.outcome.status, 'failed');
      assert.equal(r.outcome.exit_code, 127);
    });

    test('only the minimal env plus the caller env reaches the command', async () => {
      process.env.LORE_FAKE_SECRET = 'hunter2-runtime-secret';
      try {
        const r = await run(['env'], workdir, { isolation, env: { AGENT_VAR: 'from-caller' } });
        assert.equal(r.outcome.status, 'succeeded');
        const env = Object.fromEntries(
          r.stdout
            .trim()
            .split('\n')
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
        );
        assert.equal(env.AGENT_VAR, 'from-caller');
        assert.equal(env.LANG, 'C.UTF-8');
        assert.equal(env.HOME, isolation === 'bubblewrap' ? '/work' : workdir);
        assert.ok(env.PATH);
        assert.ok(env.TMPDIR);
        assert.ok(!r.stdout.includes('hunter2'), 'runtime secret leaked');
        const allowed = new Set(['PATH', 'HOME', 'LANG', 'TMPDIR', 'USER', 'LOGNAME', 'PWD', 'AGENT_VAR', 'SHLVL', '_']);
        for (const k of Object.keys(env)) assert.ok(allowed.has(k), `unexpected env var ${k}`);
      } finally {
        delete process.env.LORE_FAKE_SECRET;
      }
    });

    test('stdout and stderr chunks arrive in order with one increasing seq; UTF-8 survives', async () => {
      const script = 'for i in 1 2 3 4 5; do echo "out-$i ✓ żółw"; echo "err-$i 🐢" >&2; sleep 0.05; done';
      const r = await run(['sh', '-c', script], workdir, { isolation });
      assert.equal(r.outcome.status, 'succeeded');
      r.chunks.forEach((c, i) => assert.equal(c.seq, i));
      assert.equal(r.stdout, [1, 2, 3, 4, 5].map((i) => `out-${i} ✓ żółw\n`).join(''));
      assert.equal(r.stderr, [1, 2, 3, 4, 5].map((i) => `err-${i} 🐢\n`).join(''));
      assert.equal(r.outcome.stderr_tail, r.stderr);
      assert.equal(r.outcome.output_bytes, Buffer.byteLength(r.stdout) + Buffer.byteLength(r.stderr));
      assert.equal(r.outcome.truncated, false);
      // interleaving: out-1 comes before err-5
      const order = r.chunks.map((c) => c.chunk).join('');
      assert.ok(order.indexOf('out-1') < order.indexOf('err-5'));
    });

    test('a multi-byte character split across writes is decoded whole', async () => {
      // 🐢 is f0 9f 90 a2; write two bytes, pause, write the rest
      const r = await run(['sh', '-c', "printf '\\360\\237'; sleep 0.2; printf '\\220\\242 done\\n'"], workdir, { isolation });
      assert.equal(r.stdout, '🐢 done\n');
      assert.ok(!r.stdout.includes('\ufffd'));
    });

    test('a run of the same session can modify and chmod files of an earlier run', async () => {
      await run(['sh', '-c', 'echo one > shared.txt'], workdir, { isolation });
      const r = await run(['sh', '-c', 'echo two >> shared.txt && chmod 755 shared.txt && cat shared.txt'], workdir, { isolation });
      assert.equal(r.outcome.status, 'succeeded', r.stderr);
      assert.equal(r.stdout, 'one\ntwo\n');
    });

    test('the command inherits no file descriptors besides stdin/stdout/stderr', async () => {
      // ls opens one fd of its own to read the directory; nothing else may be there.
      const r = await run(['ls', '/proc/self/fd'], workdir, { isolation });
      assert.equal(r.outcome.status, 'succeeded', r.stderr);
      assert.deepEqual(
        r.stdout
          .trim()
          .split('\n')
          .map(Number)
          .sort((a, b) => a - b),
        [0, 1, 2, 3],
      );
    });

    test('the outcome says which isolation was in force', async () => {
      const r = await run(['true'], workdir, { isolation });
      assert.equal(r.outcome.isolation.kind, isolation);
      assert.equal(r.outcome.isolation.uid_isolation, isRoot);
      assert.equal(r.outcome.isolation.enforced.processes, isRoot);
      if (isolation === 'none') assert.match(r.outcome.isolation.weaker ?? '', /no namespaces/);
      else assert.match(r.outcome.isolation.version ?? '', /^\d/);
    });
  });
}

test('isShell recognises shells by basename', () => {
  for (const s of ['sh', '/bin/sh', 'bash', '/usr/bin/bash', 'dash', 'zsh', 'busybox', 'bash5.2', 'fish', 'pwsh']) assert.ok(isShell(s), s);
  for (const s of ['ls', 'cat', 'python3', 'node', 'shasum', 'ssh', 'git', 'bashful']) assert.ok(!isShell(s), s);
});

test('shell: false refuses a shell argv[0]; bad specs are refused before anything runs', async () => {
  const w = await makeWorkdir('spec');
  roots.push(w.root);
  await assert.rejects(run(['bash', '-c', 'echo hi'], w.workdir, { shell: false }), SandboxSpecError);
  const ok = await run(['echo', 'hi'], w.workdir, { shell: false });
  assert.equal(ok.outcome.status, 'succeeded');
  await assert.rejects(run([], w.workdir), SandboxSpecError);
  await assert.rejects(run(['echo', 'a\0b'], w.workdir), SandboxSpecError);
  await assert.rejects(run(['echo'], w.workdir, { env: { 'BAD-NAME': 'x' } }), SandboxSpecError);
  await assert.rejects(run(['echo'], w.workdir, { limits: { wallMs: -1 } }), SandboxSpecError);
  await assert.rejects(run(['echo'], path.join(w.root, 'missing')), SandboxSpecError);
});

test('an already aborted signal returns cancelled without running', async () => {
  const w = await makeWorkdir('preabort');
  roots.push(w.root);
  const ac = new AbortController();
  ac.abort();
  const r = await run(['sh', '-c', 'echo ran > ran.txt'], w.workdir, { signal: ac.signal });
  assert.equal(r.outcome.status, 'cancelled');
  assert.ok(!existsSync(path.join(w.workdir, 'ran.txt')));
});

test('prepareWorkdir: private, idempotent, artifacts/ inside, safe names', async () => {
  const root = await makeRoot('prep');
  roots.push(root);
  const a = await prepareWorkdir(root, 'sess-A');
  const again = await prepareWorkdir(root, 'sess-A');
  assert.deepEqual(again, a);
  assert.equal(a.hostPath, path.join(root, 'sess-A'));
  assert.equal(a.artifactsPath, path.join(root, 'sess-A', 'artifacts'));
  assert.equal(a.sandboxPath, '/work');
  const b = await prepareWorkdir(root, 'sess-B');
  const weird = await prepareWorkdir(root, '../../etc/passwd');
  assert.equal(path.dirname(weird.hostPath), root, 'id cannot escape the root');
  if (isRoot) {
    assert.notEqual(a.sessionId, b.sessionId);
    const st = statSync(a.hostPath);
    assert.equal(st.uid, 0);
    assert.equal(st.gid, a.sessionId);
    assert.equal(st.mode & 0o7777, 0o2770);
    assert.equal(statSync(root).mode & 0o777, 0o711);
  }
  void LIMITS;
});
