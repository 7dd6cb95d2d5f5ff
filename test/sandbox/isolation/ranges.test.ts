/**
 * The uid range is set by the caller (config.ts → configureIdRange), and moving to a new range
 * reaps what a dead predecessor left there — but only there: processes outside the range are never
 * touched (another Lore process with its own range is safe).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import { after, test } from 'node:test';
import { configureIdRange } from '../../../src/sandbox/isolation/index';
import { isRoot, makeWorkdir, processesOfUid, run, useIdRange } from './helpers';

const roots: string[] = [];
after(async () => {
  for (const r of roots) await fsp.rm(r, { recursive: true, force: true });
});

test('a new range reaps strays inside it and leaves processes outside it alone', { skip: !isRoot && 'needs root (uid isolation)' }, async () => {
  useIdRange(5); // 450000–459999
  const w = await makeWorkdir('ranges');
  roots.push(w.root);
  assert.equal((await run(['true'], w.workdir)).outcome.status, 'succeeded'); // first use of slot 5
  const strayUid = 465_123; // inside slot 6, which this process moves to next
  const outsideUid = 475_123; // inside slot 7: "another process's range"
  const stray = spawn('sleep', ['60'], { uid: strayUid, gid: strayUid, stdio: 'ignore' });
  const outside = spawn('sleep', ['60'], { uid: outsideUid, gid: outsideUid, stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await processesOfUid(strayUid)).length, 1);
    configureIdRange({ min: 460000, max: 469999 });
    const w2 = await makeWorkdir('ranges2');
    roots.push(w2.root);
    assert.equal((await run(['true'], w2.workdir)).outcome.status, 'succeeded');
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await processesOfUid(strayUid), [], 'the stray in the new range was not reaped');
    assert.equal((await processesOfUid(outsideUid)).length, 1, 'a process outside the range was killed');
  } finally {
    stray.kill('SIGKILL');
    outside.kill('SIGKILL');
  }
});
