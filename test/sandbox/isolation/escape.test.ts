/**
 * Escape attempts against the bubblewrap sandbox, with real commands. Each one must fail and be
 * reported as failed (or cut by a limit), and the host must be unaffected.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, promises as fsp, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { listArtifacts, prepareWorkdir, readArtifact } from '../../../src/sandbox/isolation/index';
import { treeDigest } from '../../helpers/tree';
import { isRoot, makeWorkdir, processesOfUid, run, useIdRange, useOverlayHelper } from './helpers';

useIdRange(1);

let root = '';
let workdir = '';
const cleanup: string[] = [];
before(async () => {
  const w = await makeWorkdir('escape');
  root = w.root;
  workdir = w.workdir;
  cleanup.push(root);
});
after(async () => {
  for (const p of cleanup) await fsp.rm(p, { recursive: true, force: true });
});

async function assertNoSurvivors(uid: number | null): Promise<void> {
  if (uid === null) return;
  const left = await processesOfUid(uid);
  assert.deepEqual(left, [], `processes of run uid ${uid} survived`);
}

test('network: a TCP connect to a host listener on 127.0.0.1 fails and no connection arrives', async () => {
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  try {
    // Sanity: the listener is reachable from the host itself.
    await new Promise<void>((resolve, reject) => {
      const c = net.connect(port, '127.0.0.1', () => {
        c.destroy();
        resolve();
      });
      c.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(connections, 1);
    connections = 0;

    const viaBash = await run(['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED`], workdir);
    assert.equal(viaBash.outcome.status, 'failed');
    assert.notEqual(viaBash.outcome.exit_code, 0);
    assert.ok(!viaBash.stdout.includes('CONNECTED'));
    assert.match(viaBash.stderr, /Connection refused|Network is unreachable/);

    const py = `import socket\ns=socket.socket()\ns.settimeout(3)\ns.connect(("127.0.0.1", ${port}))\nprint("CONNECTED")`;
    const viaPython = await run(['python3', '-c', py], workdir);
    assert.equal(viaPython.outcome.status, 'failed');
    assert.ok(!viaPython.stdout.includes('CONNECTED'));

    // Only a loopback of its own: no other interface, no route out.
    const ifaces = await run(['cat', '/proc/net/dev'], workdir);
    const names = ifaces.stdout
      .split('\n')
      .slice(2)
      .filter(Boolean)
      .map((l) => l.split(':')[0]!.trim());
    assert.deepEqual(names, ['lo']);
    const outside = await run(['bash', '-c', 'exec 3<>/dev/tcp/1.1.1.1/80 && echo CONNECTED'], workdir);
    assert.equal(outside.outcome.status, 'failed');
    assert.match(outside.stderr, /Network is unreachable/);

    await new Promise((r) => setTimeout(r, 100));
    assert.equal(connections, 0, 'a connection from the sandbox reached the host listener');
  } finally {
    server.close();
  }
});

test('writes outside the workdir fail: /usr, /etc, /, /var, /dev; sandbox /tmp is private', async () => {
  const marker = `lore-escape-${randomBytes(6).toString('hex')}`;
  const targets = ['/usr/' + marker, '/etc/' + marker, '/' + marker, '/var/' + marker, '/dev/' + marker, '/bin/' + marker, '/proc/' + marker];
  const script =
    targets.map((t) => `if (echo pwn > ${t}) 2>/dev/null; then echo "WROTE ${t}"; else echo "DENIED ${t}"; fi`).join('\n') + `\necho private > /tmp/${marker} && echo "TMP-OK"`;
  const r = await run(['sh', '-c', script], workdir);
  for (const t of targets) assert.ok(r.stdout.includes(`DENIED ${t}`), `${t}: ${r.stdout}`);
  assert.ok(!r.stdout.includes('WROTE'));
  assert.ok(r.stdout.includes('TMP-OK'), 'the private /tmp is writable');
  for (const t of targets) assert.ok(!existsSync(t), `${t} exists on the host`);
  assert.ok(!existsSync(path.join(os.tmpdir(), marker)), 'sandbox /tmp write reached the host /tmp');
  assert.ok(!existsSync('/tmp/' + marker), 'sandbox /tmp write reached the host /tmp');

  // A single write that should fail is reported as a failed run.
  const single = await run(['sh', '-c', `echo x > /etc/${marker}`], workdir);
  assert.equal(single.outcome.status, 'failed');
  assert.match(single.stderr, /Read-only file system|Permission denied/);
});

test('host paths are not visible: runtime data dir, /root, /home, host /tmp, the repo', async () => {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'lore-fake-datadir-'));
  cleanup.push(dataDir);
  await fsp.chmod(dataDir, 0o755);
  const secret = `secret-${randomBytes(8).toString('hex')}`;
  await fsp.writeFile(path.join(dataDir, 'secret.txt'), secret, { mode: 0o644 });

  const r = await run(['cat', path.join(dataDir, 'secret.txt')], workdir);
  assert.equal(r.outcome.status, 'failed');
  assert.match(r.stderr, /No such file or directory/);
  assert.ok(!r.stdout.includes(secret));

  const probe = ['/root', '/home', dataDir, '/work/main', '/opt', '/run', '/srv', '/mnt', '/var/lib', '/var/run'];
  const script =
    probe.map((p) => `if [ -e ${p} ]; then echo "VISIBLE ${p}"; else echo "ABSENT ${p}"; fi`).join('\n') +
    `\necho TMP-ENTRIES $(ls -A /tmp | wc -l)\ngrep -r ${secret} / --exclude-dir=proc --exclude-dir=sys 2>/dev/null && echo FOUND-SECRET; echo GREP-DONE`;
  // The whole-filesystem grep is slow on a loaded machine: a generous wall limit, and a marker that
  // says it finished (a run cut short by the limit must not pass as "secret not found").
  const s = await run(['sh', '-c', script], workdir, { limits: { wallMs: 300_000 } });
  for (const p of probe) assert.ok(s.stdout.includes(`ABSENT ${p}`), `${p}: ${s.stdout}`);
  assert.ok(s.stdout.includes('GREP-DONE'), `the grep over / did not finish: ${s.outcome.status}`);
  assert.ok(!s.stdout.includes('FOUND-SECRET'));
  assert.ok(s.stdout.includes('TMP-ENTRIES 0'), `sandbox /tmp starts empty: ${s.stdout}`);

  // /work inside is the session workdir, not the host's /work.
  const w = await run(['sh', '-c', 'ls -a /work'], workdir);
  assert.deepEqual(
    w.stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '.' && l !== '..')
      .sort(),
    (await fsp.readdir(workdir)).sort(),
  );
});

test('a runtime secret in process.env is not visible (env, /proc/1/environ, /proc/self/environ)', async () => {
  const secret = `tok-${randomBytes(8).toString('hex')}`;
  process.env.LORE_TEST_API_TOKEN = secret;
  try {
    const r = await run(['sh', '-c', 'env; cat /proc/1/environ /proc/self/environ; for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null; done'], workdir);
    assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret), 'runtime secret visible in the sandbox');
    assert.ok(!r.stdout.includes('LORE_TEST_API_TOKEN'));
    // Also in isolation 'none', where the host /proc is visible: root's environ is not readable by the run uid.
    const n = await run(['sh', '-c', `env; cat /proc/${process.pid}/environ`], workdir, { isolation: 'none' });
    assert.ok(!n.stdout.includes(secret), 'runtime secret visible in none mode');
    if (isRoot) assert.match(n.stderr, /Permission denied/);
  } finally {
    delete process.env.LORE_TEST_API_TOKEN;
  }
});

for (const isolation of ['bubblewrap', 'none'] as const) {
  test(`fork bomb (${isolation}) is bounded by maxProcesses, ends, leaves nothing behind`, { skip: !isRoot && 'needs root (per-run uid)' }, async () => {
    const limits = { maxProcesses: 24, wallMs: 4000, cpuSeconds: 10 };
    const t0 = performance.now();
    const r = await run(['perl', '-e', 'fork while 1'], workdir, { isolation, limits });
    const elapsed = performance.now() - t0;
    assert.equal(r.outcome.status, 'timed_out', r.outcome.reason);
    assert.equal(r.outcome.limit_hit, 'wall_time');
    assert.match(r.outcome.reason ?? '', /process limit was saturated/);
    assert.ok(elapsed < 20_000, `took ${elapsed} ms`);
    await assertNoSurvivors(r.outcome.isolation.uid);

    // The classic shell bomb: its processes hit 'Cannot fork' and die out (the outer sh may then
    // go on and succeed, or fail itself on fork); either way the run ends and nothing remains.
    const sh = await run(['sh', '-c', 'b(){ b | b & }; b; sleep 2'], workdir, { isolation, limits: { maxProcesses: 24, wallMs: 8000 } });
    assert.notEqual(sh.outcome.status, 'timed_out');
    assert.match(sh.stderr, /Cannot fork/);
    await assertNoSurvivors(sh.outcome.isolation.uid);

    // The machine stays healthy: a normal run right after works and is quick.
    const t1 = performance.now();
    const ok = await run(['echo', 'still-fine'], workdir, { isolation });
    assert.equal(ok.stdout, 'still-fine\n');
    assert.ok(performance.now() - t1 < 5000);
  });

  test(`processes beyond maxProcesses fail to start (${isolation})`, { skip: !isRoot && 'needs root (per-run uid)' }, async () => {
    const r = await run(['sh', '-c', 'for i in $(seq 1 20); do sleep 2 & done; wait; echo all-started'], workdir, {
      isolation,
      limits: { maxProcesses: 8 },
    });
    assert.equal(r.outcome.status, 'failed');
    assert.equal(r.outcome.limit_hit, 'processes');
    assert.ok(!r.stdout.includes('all-started'));
    await assertNoSurvivors(r.outcome.isolation.uid);
  });
}

test('allocating 2 GiB fails under a 512 MiB limit (python3 and perl)', async () => {
  const limits = { memoryBytes: 512 * 1024 * 1024 };
  const py = await run(['python3', '-c', 'b = bytearray(2 * 1024**3); print("ALLOCATED")'], workdir, { limits });
  assert.equal(py.outcome.status, 'failed');
  assert.equal(py.outcome.limit_hit, 'memory');
  assert.match(py.stderr, /MemoryError/);
  assert.ok(!py.stdout.includes('ALLOCATED'));
  const pl = await run(['perl', '-e', '$x = "a" x (2 * 1024**3); print "ALLOCATED"'], workdir, { limits });
  assert.equal(pl.outcome.status, 'failed');
  assert.equal(pl.outcome.limit_hit, 'memory');
  // The same allocation of 100 MiB works under the limit.
  const small = await run(['python3', '-c', 'b = bytearray(100 * 1024**2); print("ALLOCATED")'], workdir, { limits });
  assert.equal(small.outcome.status, 'succeeded', small.stderr);
});

test('printing 100 MB is cut at maxOutputBytes: truncated, limit_hit output_bytes, tree killed', async () => {
  const max = 1024 * 1024;
  for (const argv of [
    ['head', '-c', '100000000', '/dev/zero'],
    ['sh', '-c', 'yes | head -c 100000000'],
  ]) {
    const t0 = performance.now();
    const r = await run(argv, workdir, { limits: { maxOutputBytes: max } });
    const elapsed = performance.now() - t0;
    assert.equal(r.outcome.status, 'failed', JSON.stringify(argv));
    assert.equal(r.outcome.truncated, true);
    assert.equal(r.outcome.limit_hit, 'output_bytes');
    assert.equal(r.outcome.output_bytes, max);
    assert.equal(Buffer.byteLength(r.stdout), max, 'exactly maxOutputBytes delivered');
    assert.ok(r.outcome.stdout_tail.length <= 4096 && r.outcome.stdout_tail.length > 4000);
    assert.ok(elapsed < 15_000, `took ${elapsed} ms`);
    await assertNoSurvivors(r.outcome.isolation.uid);
  }
});

test('file size limit: writing past maxFileBytes fails with file_size', async () => {
  const r = await run(['sh', '-c', 'head -c 5000000 /dev/zero > big.bin'], workdir, { limits: { maxFileBytes: 1024 * 1024 } });
  assert.equal(r.outcome.status, 'failed');
  assert.equal(r.outcome.limit_hit, 'file_size');
  assert.ok((await fsp.stat(path.join(workdir, 'big.bin'))).size <= 1024 * 1024);
  await fsp.rm(path.join(workdir, 'big.bin'));
});

test('CPU limit: a busy loop is stopped by RLIMIT_CPU', async () => {
  const r = await run(['sh', '-c', 'while :; do :; done'], workdir, { limits: { cpuSeconds: 1, wallMs: 30_000 } });
  assert.equal(r.outcome.status, 'failed');
  assert.equal(r.outcome.limit_hit, 'cpu_time');
  assert.equal(r.outcome.signal, 'SIGXCPU');
});

test('sleep 30 with wallMs 1000 ends timed_out quickly, including a forked background sleep', async () => {
  const t0 = performance.now();
  const r = await run(['sh', '-c', 'sleep 30 & sleep 30'], workdir, { limits: { wallMs: 1000 } });
  const elapsed = performance.now() - t0;
  assert.equal(r.outcome.status, 'timed_out', JSON.stringify({ outcome: r.outcome, stderr: r.stderr.slice(0, 500) }));
  assert.equal(r.outcome.limit_hit, 'wall_time');
  assert.ok(elapsed < 6000, `took ${elapsed} ms`);
  assert.ok(r.outcome.duration_ms >= 900);
  await assertNoSurvivors(r.outcome.isolation.uid);
});

test('background processes do not outlive the command', async () => {
  for (const isolation of ['bubblewrap', 'none'] as const) {
    const t0 = performance.now();
    const r = await run(['sh', '-c', 'sleep 30 & setsid sleep 31 & echo started'], workdir, { isolation });
    assert.equal(r.outcome.status, 'succeeded', JSON.stringify({ isolation, outcome: r.outcome, stderr: r.stderr.slice(0, 500) }));
    assert.ok(performance.now() - t0 < 6000, isolation);
    await assertNoSurvivors(r.outcome.isolation.uid);
  }
});

test('nested user namespaces are refused inside the sandbox', async () => {
  const r = await run(['unshare', '--user', '--map-root-user', 'id'], workdir);
  assert.equal(r.outcome.status, 'failed');
  assert.ok(!r.stdout.includes('uid=0'));
});

test('artifacts: links planted by the command are not followed when the host collects them', async () => {
  const w = await makeWorkdir('artifacts');
  cleanup.push(w.root);
  const hostSecret = path.join(w.root, 'host-secret.txt');
  await fsp.writeFile(hostSecret, 'HOST-SECRET', { mode: 0o600 });
  const script = [
    'mkdir -p artifacts/sub && echo real > artifacts/sub/ok.txt && echo top > artifacts/top.txt',
    `ln -s ${hostSecret} artifacts/link-to-secret`,
    'ln -s /etc artifacts/link-dir',
    'mkfifo artifacts/fifo',
  ].join(' && ');
  const r = await run(['sh', '-c', script], w.workdir);
  assert.equal(r.outcome.status, 'succeeded', r.stderr);
  const listing = await listArtifacts(w.artifacts);
  assert.deepEqual(
    listing.files.map((f) => f.path),
    ['sub/ok.txt', 'top.txt'],
  );
  assert.deepEqual(listing.skipped.sort(), ['fifo', 'link-dir', 'link-to-secret']);
  assert.equal((await readArtifact(w.artifacts, 'sub/ok.txt')).toString(), 'real\n');
  await assert.rejects(readArtifact(w.artifacts, 'link-to-secret'));
  await assert.rejects(readArtifact(w.artifacts, 'fifo'));
  await assert.rejects(readArtifact(w.artifacts, 'link-dir/passwd'));
  await assert.rejects(readArtifact(w.artifacts, '../../host-secret.txt'));

  // The command replaces artifacts/ itself with a link to a host directory.
  const swap = await run(['sh', '-c', `rm -rf artifacts && ln -s ${w.root} artifacts`], w.workdir);
  assert.equal(swap.outcome.status, 'succeeded', swap.stderr);
  const after = await listArtifacts(w.artifacts);
  assert.deepEqual(after.files, []);
  await assert.rejects(readArtifact(w.artifacts, 'host-secret.txt'));
});

describe('a workspace seen through the overlay', () => {
  let base = '';
  let secretDir = '';
  const secret = `overlay-secret-${randomBytes(8).toString('hex')}`;
  before(async () => {
    const helper = await useOverlayHelper();
    assert.ok(helper.path, helper.problem);
    const w = await makeWorkdir('escape-overlay');
    base = w.root;
    cleanup.push(base);
    // Outside every project, on the same filesystem (a hard link to it can be made from one).
    secretDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'lore-overlay-secret-'));
    cleanup.push(secretDir);
    writeFileSync(path.join(secretDir, 'secret.txt'), secret);
  });

  async function project(name: string): Promise<string> {
    const dir = path.join(base, 'projects', name);
    await fsp.mkdir(path.join(dir, 'src', 'deep'), { recursive: true });
    writeFileSync(path.join(dir, 'src', 'a.txt'), 'a\n');
    writeFileSync(path.join(dir, 'src', 'deep', 'b.txt'), 'b\n');
    writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\n');
    await fsp.chmod(path.join(dir, 'run.sh'), 0o755);
    return dir;
  }

  test('no write reaches the project: overwrites, deletions, modes, times, renames, links, a hard link to a file outside, mount calls', async () => {
    const dir = await project('writes');
    // A hard link in the project to a file outside it: the same inode, which the command must not be able to write.
    linkSync(path.join(secretDir, 'secret.txt'), path.join(dir, 'hardlink'));
    const before = treeDigest(dir);
    const wd = await prepareWorkdir(base, 'writes');
    const script = [
      'for f in $(find . -type f); do echo pwn > "$f"; done',
      'chmod -R 777 . ; chown -R 0:0 . 2>/dev/null; touch -d 2000-01-01 src/a.txt',
      'mv src moved; ln moved/a.txt hl2; ln -s /etc/passwd src2',
      'truncate -s 0 run.sh; rm -rf ./* ./.[!.]* 2>/dev/null',
      'mount -t tmpfs x /work 2>&1 | head -1; umount /work 2>&1 | head -1; mount --bind / /work 2>&1 | head -1',
      'echo remaining: $(ls -A | wc -l)',
    ].join('; ');
    const r = await run(['sh', '-c', script], wd.hostPath, { workspace: dir });
    assert.equal(r.outcome.status, 'succeeded', `${r.outcome.reason} ${r.stderr}`);
    assert.match(r.stdout, /remaining: [01]\n/, 'the command emptied its view of the workspace');
    assert.deepEqual(treeDigest(dir), before, 'the project is as it was, modes and times included');
    assert.equal(readFileSync(path.join(secretDir, 'secret.txt'), 'utf8'), secret, 'the file outside, written through its hard link, is untouched');
    // The next run sees the command's changes (its layer), the project still untouched underneath.
    const next = await run(['sh', '-c', 'ls -A'], wd.hostPath, { workspace: dir });
    assert.match(next.stdout, /^(artifacts\n)?$/);
  });

  test('nothing outside the project becomes visible: absolute and relative symbolic links, a link to a directory, /proc, the path above /work, a mount inside the project', async () => {
    const dir = await project('links');
    symlinkSync(path.join(secretDir, 'secret.txt'), path.join(dir, 'abs'));
    symlinkSync(`${'../'.repeat(12)}${secretDir.slice(1)}/secret.txt`, path.join(dir, 'rel'));
    symlinkSync(secretDir, path.join(dir, 'dirlink'));
    symlinkSync(`/proc/1/root${secretDir}/secret.txt`, path.join(dir, 'proc'));
    await fsp.mkdir(path.join(dir, 'sub'));
    // A mount inside the project (as root): the project's clone is its directory only, without what is mounted below it.
    const bound = isRoot && spawnSync('mount', ['--bind', secretDir, path.join(dir, 'sub')]).status === 0;
    try {
      if (isRoot) assert.ok(bound, 'the test could not bind-mount a directory into the project');
      const wd = await prepareWorkdir(base, 'links');
      const script = [
        'for l in abs rel dirlink/secret.txt proc sub/secret.txt ../../' + secretDir.slice(1) + '/secret.txt; do cat "$l" 2>/dev/null && echo "READ $l"; done',
        'ls -A sub | wc -l',
        `grep -r ${secret} / --exclude-dir=proc --exclude-dir=sys 2>/dev/null && echo FOUND-SECRET; echo GREP-DONE`,
      ].join('; ');
      const r = await run(['sh', '-c', script], wd.hostPath, { workspace: dir, limits: { wallMs: 300_000 } });
      assert.equal(r.outcome.status, 'succeeded', `${r.outcome.reason} ${r.stderr}`);
      assert.ok(!r.stdout.includes(secret) && !r.stdout.includes('READ'), r.stdout);
      assert.ok(r.stdout.includes('GREP-DONE'), `the grep over / did not finish: ${r.outcome.status}`);
      assert.ok(!r.stdout.includes('FOUND-SECRET'));
      assert.match(r.stdout, /^0\n/, 'the directory mounted inside the project is seen empty');
    } finally {
      if (bound) spawnSync('umount', [path.join(dir, 'sub')]);
    }
  });
});
