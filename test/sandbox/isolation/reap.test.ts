/**
 * What a run leaves behind on its home uid (ids.ts, untilReaped), on real runs: a bubblewrap run's
 * pid-1 reaper, a killed tree. They are recorded by pid; the next run on the uid allows for a few
 * (its process limit is raised by their number) and waits while there are more, reading one /proc
 * entry per pid, never scanning /proc.
 */
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import { after, before, test } from 'node:test';
import { awaitsReap, readProcess, readProcesses, REAP_ALLOWANCE, setProcessSourceForTests } from '../../../src/sandbox/isolation/ids';
import { isRoot, makeWorkdir, run, useIdRange } from './helpers';

useIdRange(7);

let root = '';
let workdir = '';
let scans = 0;
before(async () => {
  ({ root, workdir } = await makeWorkdir('reap'));
  setProcessSourceForTests({
    list: () => {
      scans += 1;
      return readProcesses();
    },
    get: readProcess,
  });
});
after(async () => {
  setProcessSourceForTests(null);
  if (root) await fsp.rm(root, { recursive: true, force: true });
});

/** Processes of `uid` at this moment. */
const ofUid = (uid: number) => readProcesses().filter((p) => p.uids.includes(uid));
/** Dead processes of `uid` at this moment (what would still count toward its process limit). */
const zombiesOf = (uid: number) =>
  ofUid(uid)
    .filter((p) => p.zombie)
    .map((p) => p.pid);

/**
 * Which of the processes of `uid` that existed before the next run was asked for are still there
 * when it starts: the leftovers it started beside. The next run's own children are left out: its
 * command may already have forked (and some children exited) while the /proc scan ran.
 */
const leftoversAmong = (uid: number, before: Set<number>) => zombiesOf(uid).filter((pid) => before.has(pid));
const processesOf = (uid: number) => new Set(ofUid(uid).map((p) => p.pid));

test('consecutive bubblewrap runs on a home uid start at once, with their whole process limit, and never scan /proc', {
  skip: !isRoot && 'needs root (per-run uid)',
}, async (t) => {
  const first = await run(['true'], workdir); // the first use of the range also looks for strays
  assert.equal(first.outcome.status, 'succeeded', first.outcome.reason);
  const home = first.outcome.isolation.uid!;
  assert.equal(home, first.outcome.isolation.gid, 'ran as the workdir’s home uid');
  assert.equal(awaitsReap(home), true, 'bwrap’s pid-1 reaper outlives the run: recorded');
  scans = 0;
  let startedBesideLeftovers = 0;
  for (let i = 0; i < 3; i++) {
    let leftovers: number[] = [];
    const before = processesOf(home);
    // sh and three children: exactly maxProcesses. A leftover of the previous run that init has not
    // reaped yet counts toward the uid's RLIMIT_NPROC too, so without the allowance the last fork fails.
    const r = await run(['sh', '-c', 'sleep 0.3 & sleep 0.3 & sleep 0.3 & wait; echo forked'], workdir, {
      limits: { maxProcesses: 4 },
      onStart: () => (leftovers = leftoversAmong(home, before)),
    });
    assert.equal(r.outcome.status, 'succeeded', `${r.outcome.reason} ${r.stderr}`);
    assert.equal(r.stdout, 'forked\n', r.stderr);
    assert.doesNotMatch(r.stderr, /fork|Resource temporarily unavailable/i);
    assert.equal(r.outcome.isolation.uid, home);
    assert.ok(leftovers.length <= REAP_ALLOWANCE, `started beside ${leftovers.length} leftovers`);
    if (leftovers.length > 0) startedBesideLeftovers += 1;
  }
  assert.equal(scans, 0, 'no /proc scan on the path of a run that was not killed');
  t.diagnostic(`${startedBesideLeftovers} of 3 runs started beside the previous run’s unreaped reaper (the allowance at work; 0 when this host’s init reaps at once)`);
});

for (const isolation of ['bubblewrap', 'none'] as const) {
  test(`a killed tree (${isolation}) is waited for by the next run on its home uid`, { skip: !isRoot && 'needs root (per-run uid)' }, async () => {
    const killed = await run(['sh', '-c', 'sleep 30 & sleep 30 & sleep 30'], workdir, { isolation, limits: { wallMs: 300 } });
    assert.equal(killed.outcome.status, 'timed_out', killed.outcome.reason);
    const home = killed.outcome.isolation.uid!;
    assert.equal(home, killed.outcome.isolation.gid);
    assert.equal(awaitsReap(home), true, 'the killed run left processes behind');

    // The next run starts once at most REAP_ALLOWANCE of them are left, or once its 3 s bound has
    // passed (init reaps at its own pace: on a loaded host it can take longer), and forks normally
    // either way, what is left being allowed for.
    let leftovers: number[] = [];
    let waitedMs = 0;
    const before = processesOf(home);
    const asked = performance.now();
    const next = await run(['sh', '-c', 'for i in 1 2 3 4 5 6 7 8; do true & done; wait; echo forked'], workdir, {
      isolation,
      limits: { maxProcesses: 12 },
      onStart: () => {
        leftovers = leftoversAmong(home, before);
        waitedMs = performance.now() - asked;
      },
    });
    assert.ok(
      leftovers.length <= REAP_ALLOWANCE || waitedMs >= 2900,
      `the next run started beside ${leftovers.length} leftovers of the killed one after ${Math.round(waitedMs)} ms (waits while there are more, at most 3 s)`,
    );
    assert.equal(next.outcome.status, 'succeeded', `${next.outcome.reason} ${next.stderr}`);
    assert.equal(next.stdout, 'forked\n');
    assert.equal(next.outcome.isolation.uid, home);
  });
}
