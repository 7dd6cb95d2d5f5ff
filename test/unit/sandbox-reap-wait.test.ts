import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prlimitArgs } from '../../src/sandbox/isolation/run';
import {
  awaitsReap,
  configureIdRange,
  idRanges,
  noteLeftBehind,
  REAP_ALLOWANCE,
  setProcessSourceForTests,
  sweepUid,
  untilReaped,
  type ProcInfo,
} from '../../src/sandbox/isolation/ids';

/**
 * untilReaped (src/sandbox/isolation/ids.ts): a run allows for the few processes the previous runs
 * on its home uid left behind (its process limit is raised by their number), waits when there are
 * more, and looks only at those (one read per recorded pid, never a scan of /proc); a uid whose
 * runs left nothing costs nothing.
 *
 * The process table is staged (setProcessSourceForTests), so this needs neither root nor real
 * processes. Every staged process is a zombie: nothing here ever signals a pid.
 */

// The runner tests' block (docs/sandbox.md); nothing here spawns or kills a real process in it.
configureIdRange({ min: 470000, max: 479999 });
const { session, run } = idRanges();

let scans = 0; // full /proc scans
let reads = 0; // single-pid reads
let table: ProcInfo[] = [];
const zombieOf = (uid: number, pid = 4_000_000 + uid): ProcInfo => ({ pid, uids: [uid, uid, uid], zombie: true });
const stage = (list: () => ProcInfo[]) =>
  setProcessSourceForTests({
    list: () => {
      scans += 1;
      return list();
    },
    get: (pid) => {
      reads += 1;
      return list().find((p) => p.pid === pid) ?? null;
    },
  });
const reset = () => {
  scans = 0;
  reads = 0;
};

before(() => stage(() => table));
after(() => setProcessSourceForTests(null));

describe('waiting for a home uid to be reaped', () => {
  it('strays found on first use are waited for by their uid’s next run', async () => {
    const stray = session.min + 1;
    table = [zombieOf(stray)];
    reset();
    await untilReaped(session.min); // the first use looks for strays once (and finds one of `stray`)
    assert.deepEqual({ scans, reads }, { scans: 1, reads: 0 }, 'one scan for strays, nothing for a uid that left nothing');
    assert.equal(awaitsReap(session.min), false);
    assert.equal(awaitsReap(stray), true, 'a stray of the range is waited for');
    table = [];
    reset();
    assert.equal(await untilReaped(stray), 0, 'reaped meanwhile: nothing to allow for');
    assert.deepEqual({ scans, reads }, { scans: 0, reads: 1 });
    assert.equal(awaitsReap(stray), false);
  });

  it('a uid whose runs left nothing behind costs the next run no read of /proc at all', async () => {
    const uid = session.min + 10;
    table = [];
    reset();
    for (let i = 0; i < 5; i++) await untilReaped(uid);
    assert.deepEqual({ scans, reads }, { scans: 0, reads: 0 });

    // The end-of-run sweep finds nothing (and processes of other uids are none of its business).
    table = [zombieOf(uid + 1)];
    assert.equal(await sweepUid(uid, uid, undefined), true);
    assert.equal(awaitsReap(uid), false);
    reset();
    for (let i = 0; i < 5; i++) await untilReaped(uid);
    assert.deepEqual({ scans, reads }, { scans: 0, reads: 0 }, 'nothing after a run that left nothing');
  });

  it('a few left behind (bubblewrap’s reaper): no wait, their number is allowed for, and they stay recorded', async () => {
    const uid = session.min + 15;
    const reaper = zombieOf(uid, 4_050_001);
    table = [reaper];
    noteLeftBehind(uid, [reaper.pid]);
    reset();
    let settled = false;
    const p = untilReaped(uid).then((n) => ((settled = true), n));
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(settled, true, 'no wait for up to REAP_ALLOWANCE processes');
    assert.equal(await p, 1);
    assert.deepEqual({ scans, reads }, { scans: 0, reads: 1 });
    assert.equal(awaitsReap(uid), true, 'still there: the next run allows for it too');
    table = [];
    assert.equal(await untilReaped(uid), 0);
    assert.equal(awaitsReap(uid), false, 'reaped: forgotten');

    // The run's RLIMIT_NPROC: its own limit, bwrap's two helpers, and the leftovers.
    const limits = { maxProcesses: 32 } as Parameters<typeof prlimitArgs>[0];
    assert.ok(prlimitArgs(limits, 'bubblewrap', uid, 1).includes('--nproc=35'));
    assert.ok(prlimitArgs(limits, 'bubblewrap', uid).includes('--nproc=34'));
    assert.ok(prlimitArgs(limits, 'none', uid, 2).includes('--nproc=34'));
  });

  it('after a run that left many processes, the next run waits until at most the allowance is left, in one shared poll', async () => {
    const uid = session.min + 20;
    const left = [4_100_001, 4_100_002, 4_100_003, 4_100_004].map((pid) => zombieOf(uid, pid));
    assert.ok(left.length > REAP_ALLOWANCE);
    // The sweep at the end of the run finds dead processes of the uid (not yet reaped by init).
    table = [...left, zombieOf(uid + 1)];
    assert.equal(await sweepUid(uid, uid, undefined), true, 'zombies do not make a uid unclean');
    assert.equal(awaitsReap(uid), true, 'the sweep recorded what the run left behind');

    // All four are there at the first look (one read each); init reaps three before the next.
    let looks = 0;
    stage(() => {
      looks += 1;
      return looks <= left.length ? left : [left[3]!];
    });
    try {
      reset();
      const a = untilReaped(uid);
      const b = untilReaped(uid); // a concurrent caller
      assert.equal(a, b, 'concurrent callers share one poll');
      let aDone = false;
      void a.then(() => (aDone = true));
      await Promise.resolve();
      assert.equal(aDone, false, 'the run waits while more than the allowance is there');
      assert.equal(await a, 1, 'resolves once at most REAP_ALLOWANCE are left, with their number');
      assert.equal(await b, 1);
      assert.equal(scans, 0, 'no scan of /proc: only the recorded pids are read');
      assert.equal(awaitsReap(uid), true, 'the one left is allowed for by the next run too');
    } finally {
      stage(() => table);
    }
    table = [];
    reset();
    assert.equal(await untilReaped(uid), 0);
    assert.deepEqual({ scans, reads }, { scans: 0, reads: 1 });
    assert.equal(awaitsReap(uid), false);
  });

  it('a recorded process already reaped costs one read and no wait; run-range uids are not recorded', async () => {
    const uid = session.min + 30;
    table = [];
    noteLeftBehind(uid, [4_200_000]); // e.g. a bubblewrap run's pid-1 reaper
    assert.equal(awaitsReap(uid), true);
    reset();
    assert.equal(await untilReaped(uid), 0);
    assert.deepEqual({ scans, reads }, { scans: 0, reads: 1 });
    assert.equal(awaitsReap(uid), false);

    // A pid reused by a process of another uid is not waited for.
    noteLeftBehind(uid, [4_200_001]);
    table = [{ pid: 4_200_001, uids: [0, 0, 0], zombie: false }];
    reset();
    assert.equal(await untilReaped(uid), 0, 'not counted either');
    assert.deepEqual({ scans, reads }, { scans: 0, reads: 1 });
    assert.equal(awaitsReap(uid), false);
    table = [];

    noteLeftBehind(run.min + 5, [4_200_002]);
    assert.equal(awaitsReap(run.min + 5), false, 'a fresh run uid waits for nothing, so nothing is kept for it');
  });

  it('waits at most 3 s; processes still there are looked for again by the run after', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
    const uid = session.min + 40;
    table = [4_300_001, 4_300_002, 4_300_003].map((pid) => zombieOf(uid, pid));
    noteLeftBehind(
      uid,
      table.map((p) => p.pid),
    );
    let done = false;
    let allowed = -1;
    const wait = untilReaped(uid).then((n) => ((done = true), (allowed = n)));
    let elapsed = 0;
    while (!done && elapsed < 10_000) {
      t.mock.timers.tick(20);
      elapsed += 20;
      await new Promise<void>((r) => setImmediate(r));
    }
    await wait;
    assert.ok(elapsed >= 3000 && elapsed <= 3100, `waited ${elapsed} ms (mocked clock)`);
    assert.equal(allowed, 3, 'what is still there after the bound is allowed for');
    assert.equal(awaitsReap(uid), true, 'still not reaped: the next run looks again');
    table = [];
    reset();
    assert.equal(await untilReaped(uid), 0);
    assert.deepEqual({ scans, reads }, { scans: 0, reads: 3 });
    assert.equal(awaitsReap(uid), false);
  });
});
