/**
 * Memory limits beyond the single big allocation of escape.test.ts: runtimes that reserve address
 * space still start, and memory spread over processes or shared mappings is bounded by the cgroup.
 */
import assert from 'node:assert/strict';
import { existsSync, promises as fsp } from 'node:fs';
import { after, before, test } from 'node:test';
import { detectIsolation } from '../../../src/sandbox/isolation/index';
import { makeWorkdir, processesOfUid, run, useIdRange } from './helpers';

useIdRange(4);

let root = '';
let workdir = '';
let cgroup = false;
before(async () => {
  const w = await makeWorkdir('memory');
  root = w.root;
  workdir = w.workdir;
  cgroup = (await detectIsolation()).memory_limit === 'cgroup';
});
after(async () => {
  await fsp.rm(root, { recursive: true, force: true });
});

const MiB = 1024 * 1024;
const limits = { memoryBytes: 512 * MiB, wallMs: 60_000 };

const runtimes: [string, string[]][] = [
  ['node', ['/usr/bin/node', '-e', 'console.log("started")']],
  ['java', ['/usr/bin/java', '-version']],
  ['go', ['/usr/local/go/bin/go', 'version']],
  ['python3', ['/usr/bin/python3', '-c', 'print("started")']],
];
for (const [name, argv] of runtimes) {
  test(`${name} starts under a 512 MiB limit (address space reservations are not counted)`, { skip: !existsSync(argv[0]!) && `${argv[0]} not installed` }, async () => {
    for (const isolation of ['bubblewrap', 'none'] as const) {
      const r = await run(argv, workdir, { isolation, limits });
      assert.equal(r.outcome.status, 'succeeded', `${isolation}: ${r.outcome.reason}\n${r.stderr.slice(0, 500)}`);
    }
  });
}

test('node: a 2 GiB Buffer fails under 512 MiB', { skip: !existsSync('/usr/bin/node') && 'node not installed' }, async () => {
  const r = await run(['node', '-e', 'Buffer.alloc(2 * 1024 ** 3, 1); console.log("ALLOCATED")'], workdir, { limits });
  assert.equal(r.outcome.status, 'failed');
  assert.ok(!r.stdout.includes('ALLOCATED'));
  assert.equal(r.outcome.limit_hit, 'memory', r.outcome.reason + r.stderr.slice(0, 300));
});

test('four processes touching 200 MiB each exceed 512 MiB together: the cgroup stops the tree', async (t) => {
  if (!cgroup) return t.skip('no memory cgroup on this host: only per-process RLIMIT_DATA');
  const script = [
    'import os, time',
    'for i in range(4):',
    '    if os.fork() == 0:',
    '        b = b"x" * (200 * 1024 * 1024)',
    '        time.sleep(3)',
    '        os._exit(0)',
    'codes = [os.wait()[1] for i in range(4)]',
    'print("child statuses", codes)',
    'raise SystemExit(0 if all(c == 0 for c in codes) else 1)',
  ].join('\n');
  for (const isolation of ['bubblewrap', 'none'] as const) {
    const r = await run(['python3', '-c', script], workdir, { isolation, limits: { ...limits, wallMs: 30_000 } });
    assert.equal(r.outcome.status, 'failed', `${isolation}: ${r.stdout}`);
    assert.match(r.stdout, /child statuses .*9/, 'at least one child was SIGKILLed');
    assert.equal(r.outcome.limit_hit, 'memory', `${isolation}: ${r.outcome.status} ${r.outcome.reason}`);
    assert.equal(r.outcome.isolation.memory_limit, 'cgroup');
    if (r.outcome.isolation.uid !== null) assert.deepEqual(await processesOfUid(r.outcome.isolation.uid), []);
  }
});

test('a 1 GiB shared anonymous mapping (not counted by RLIMIT_DATA) is stopped by the cgroup', async (t) => {
  if (!cgroup) return t.skip('no memory cgroup on this host: shared mappings are not limited (stated in the report)');
  const script = 'import mmap\nm = mmap.mmap(-1, 1024**3)\nfor i in range(0, 1024**3, 4096): m[i] = 1\nprint("TOUCHED")';
  const r = await run(['python3', '-c', script], workdir, { limits });
  assert.equal(r.outcome.status, 'failed');
  assert.ok(!r.stdout.includes('TOUCHED'));
  assert.equal(r.outcome.limit_hit, 'memory');
  assert.match(r.outcome.reason ?? '', /OOM/);
});

test('tmpfs /tmp inside the sandbox is capped', async () => {
  const r = await run(['sh', '-c', 'head -c 400000000 /dev/zero > /tmp/fill; ls -l /tmp/fill'], workdir, {
    limits: { ...limits, maxFileBytes: 1024 * MiB, tmpBytes: 64 * MiB },
  });
  assert.equal(r.outcome.status, 'succeeded');
  assert.match(r.stderr, /No space left on device/);
  const size = Number(r.stdout.trim().split(/\s+/)[4]);
  assert.ok(size <= 64 * MiB, `size ${size}`);
});
