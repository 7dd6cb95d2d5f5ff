/**
 * The long-poll waiter behind runs/get wait_ms (src/domain/runs/wait.ts), against an in-memory
 * source: waiters of one source share batched reads, a condition that holds answers, a deadline or
 * an abort ends the wait, a failing read is retried, and nothing is polled once nobody waits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLog } from '../../src/log';
import { RunWaiter, parseUntil, versionOf, type WaitSource } from '../../src/domain/runs/wait';
import { sleep } from '../helpers/wait';

function memorySource(key: string) {
  const docs = new Map<string, { status: string }>();
  const calls: string[][] = [];
  let failNext = 0;
  const source: WaitSource<{ status: string }> = {
    key,
    async read(ids) {
      calls.push(ids);
      if (failNext > 0) {
        failNext -= 1;
        throw new Error('store hiccup');
      }
      return new Map(ids.filter((id) => docs.has(id)).map((id) => [id, { ...docs.get(id)! }]));
    },
  };
  return { source, docs, calls, failReads: (n: number) => (failNext = n) };
}

const isDone = (d: { status: string } | undefined) => d?.status === 'done';

describe('RunWaiter', () => {
  it('answers true once the condition holds; 50 waiters on 50 records share each read', async () => {
    const waiter = new RunWaiter(silentLog);
    const m = memorySource('s1');
    for (let i = 0; i < 50; i++) m.docs.set(`r${i}`, { status: 'running' });
    const waits = Array.from({ length: 50 }, (_, i) => waiter.until(m.source, `r${i}`, isDone, 20_000));
    await sleep(300);
    assert.equal(waiter.waiting, 50);
    for (let i = 0; i < 50; i++) m.docs.set(`r${i}`, { status: 'done' });
    assert.deepEqual(await Promise.all(waits), Array(50).fill(true));
    assert.equal(waiter.waiting, 0);
    // Every read asked for many records at once: far fewer reads than waiter checks.
    assert.ok(m.calls.length <= 12, `${m.calls.length} reads for 50 waiters`);
    assert.ok(
      m.calls.some((ids) => ids.length === 50),
      'one read covered all 50 records',
    );
    const before = m.calls.length;
    await sleep(700);
    assert.equal(m.calls.length, before, 'nothing is read once nobody waits');
  });

  it('answers false at the deadline, and when the caller goes away', async () => {
    const waiter = new RunWaiter(silentLog);
    const m = memorySource('s2');
    m.docs.set('a', { status: 'running' });
    assert.equal(await waiter.until(m.source, 'a', isDone, 300), false);
    const abort = new AbortController();
    const pending = waiter.until(m.source, 'a', isDone, 20_000, abort.signal);
    await sleep(100);
    abort.abort();
    assert.equal(await pending, false);
    assert.equal(waiter.waiting, 0);
    assert.equal(await waiter.until(m.source, 'a', isDone, 0), false, 'no wait asked: no wait');
  });

  it('keeps waiting through a failing read', async () => {
    const waiter = new RunWaiter(silentLog);
    const m = memorySource('s3');
    m.docs.set('a', { status: 'done' });
    m.failReads(2);
    assert.equal(await waiter.until(m.source, 'a', isDone, 20_000), true);
    assert.ok(m.calls.length >= 3);
  });

  it('until: a condition name, else a version; versions change with the content', () => {
    assert.deepEqual(parseUntil('paused_or_done'), { condition: 'paused_or_done' });
    assert.deepEqual(parseUntil('0123456789abcdef'), { changedFrom: '0123456789abcdef' });
    assert.match(versionOf({ a: 1 }), /^[0-9a-f]{16}$/);
    assert.equal(versionOf({ a: 1 }), versionOf({ a: 1 }));
    assert.notEqual(versionOf({ a: 1 }), versionOf({ a: 2 }));
  });
});
