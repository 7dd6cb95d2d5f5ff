import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uuidv7, UUID_PATTERN } from '../../src/model/ids';

describe('uuidv7', () => {
  it('gives unique, increasing version-7 ids across many refills of its random pool', () => {
    // 20 000 ids use ~90 refills of the 4 KB pool (18 bytes per new millisecond, 16 otherwise).
    const seen = new Set<string>();
    let prev = '';
    for (let i = 0; i < 20_000; i++) {
      const id = uuidv7();
      assert.match(id, UUID_PATTERN);
      assert.equal(id[14], '7', 'version nibble');
      assert.ok('89ab'.includes(id[19]!), 'variant bits');
      assert.ok(id > prev, `${id} after ${prev}`);
      seen.add(id);
      prev = id;
    }
    assert.equal(seen.size, 20_000);
  });

  it('carries the given milliseconds in its first 48 bits and keeps ids of one millisecond in order', () => {
    const ms = Date.now() + 1000; // ahead of the ids above: a time not above the last one is not used as given
    const ids = Array.from({ length: 50 }, () => uuidv7(ms));
    for (const id of ids) assert.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), ms);
    assert.deepEqual([...ids].sort(), ids);
    // the random tails differ (not one byte range handed out twice)
    assert.equal(new Set(ids.map((id) => id.slice(19))).size, ids.length);
  });
});
