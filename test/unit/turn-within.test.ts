import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { within } from '../../src/domain/turn';

/**
 * within() (src/domain/turn.ts): how a request waits a bounded time for a start-up build
 * (LORE_BUILD_WAIT) and then answers without it, while the build goes on.
 */

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('within: a bounded wait for a build', () => {
  it('gives the value of what settles in time', async () => {
    assert.deepEqual(await within(later(5, 'built'), 10_000), { value: 'built' });
  });

  it('gives null for what does not settle in time; it goes on', async () => {
    let done = false;
    const build = later(200, 'built').then((v) => {
      done = true;
      return v;
    });
    assert.equal(await within(build, 10), null);
    assert.equal(done, false, 'answered before the build ended');
    assert.equal(await build, 'built');
  });

  it('throws what fails in time', async () => {
    await assert.rejects(within(Promise.reject(new Error('store away')), 10_000), /store away/);
  });

  it('never waits with 0, and a later failure is not an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failing = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('load failed')), 5));
      assert.equal(await within(failing, 0), null);
      await later(30, null);
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
