/** Many runs at once: separate outputs, separate process budgets, consistent workdir ownership. */
import assert from 'node:assert/strict';
import { promises as fsp, statSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { prepareWorkdir } from '../../../src/sandbox/isolation/index';
import { isRoot, makeRoot, makeWorkdir, processesInRange, run, useIdRange } from './helpers';

useIdRange(3);
const RANGE = { min: 430000, max: 439999 };

const roots: string[] = [];
after(async () => {
  for (const r of roots) await fsp.rm(r, { recursive: true, force: true });
});

test('50 concurrent short runs in one session all complete with correct, separate outputs', async () => {
  const w = await makeWorkdir('conc-one');
  roots.push(w.root);
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: 50 }, (_, n) => run(['sh', '-c', `echo run-${n}; echo err-${n} >&2; echo ${n} > file-${n}.txt`], w.workdir)));
  const elapsed = performance.now() - t0;
  results.forEach((r, n) => {
    assert.equal(r.outcome.status, 'succeeded', `run ${n}: ${r.outcome.reason} ${r.stderr}`);
    assert.equal(r.stdout, `run-${n}\n`);
    assert.equal(r.stderr, `err-${n}\n`);
    assert.equal(r.outcome.stdout_tail, `run-${n}\n`);
    assert.equal(r.outcome.stderr_tail, `err-${n}\n`);
    r.chunks.forEach((c, i) => assert.equal(c.seq, i));
  });
  if (isRoot) {
    const uids = new Set(results.map((r) => r.outcome.isolation.uid));
    assert.ok(uids.size > 1, 'concurrent runs used distinct uids');
  }
  console.log(`# 50 concurrent runs took ${elapsed.toFixed(0)} ms`);

  // A later run of the same session can take over every file the concurrent runs wrote
  // (they ran under borrowed uids; ownership is normalised back to the session's uid).
  const r = await run(['sh', '-c', 'chmod 600 file-*.txt && cat file-*.txt | wc -l'], w.workdir);
  assert.equal(r.outcome.status, 'succeeded', r.stderr);
  assert.equal(r.stdout.trim(), '50');
  if (isRoot) {
    const home = r.outcome.isolation.uid;
    for (let n = 0; n < 50; n++) assert.equal(statSync(path.join(w.workdir, `file-${n}.txt`)).uid, home);
  }
  assert.deepEqual(await processesInRange(RANGE.min, RANGE.max), []);
});

test('50 concurrent runs across 10 sessions do not share process budgets', { skip: !isRoot && 'needs root (per-run uid)' }, async () => {
  const root = await makeRoot('conc-many');
  roots.push(root);
  const wds = await Promise.all(Array.from({ length: 10 }, (_, i) => prepareWorkdir(root, `s-${i}`)));
  // Each run holds 3 processes at once under maxProcesses 4: with a shared uid 50 runs would need 150.
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, n) => run(['sh', '-c', `sleep 1 & sleep 1 & wait; echo run-${n}`], wds[n % 10]!.hostPath, { limits: { maxProcesses: 4, wallMs: 60_000 } })),
  );
  results.forEach((r, n) => {
    assert.equal(r.outcome.status, 'succeeded', `run ${n}: ${r.outcome.reason} ${r.stderr}`);
    assert.equal(r.stdout, `run-${n}\n`);
  });
  const uids = results.map((r) => r.outcome.isolation.uid);
  assert.equal(new Set(uids).size, 50, 'every concurrent run had its own uid');
  assert.deepEqual(await processesInRange(RANGE.min, RANGE.max), []);
});
