/** Unit tests of the output collector: ordering, seq, UTF-8 across chunks, truncation, tails. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completeUtf8Length, OutputCollector, TAIL_BYTES } from '../../../src/sandbox/isolation/output';

function collector(max: number) {
  const got: [string, string, number][] = [];
  let limits = 0;
  const c = new OutputCollector(
    max,
    (s, chunk, seq) => got.push([s, chunk, seq]),
    () => limits++,
  );
  return { c, got, limits: () => limits };
}

test('UTF-8 split at every byte boundary decodes whole; seq increases across streams', () => {
  const text = 'aé€🐢z';
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i++) {
    for (let j = i; j < bytes.length; j++) {
      const { c, got } = collector(1000);
      c.push('stdout', bytes.subarray(0, i));
      c.push('stderr', Buffer.from('E'));
      c.push('stdout', bytes.subarray(i, j));
      c.push('stdout', bytes.subarray(j));
      c.finish();
      assert.equal(
        got
          .filter((g) => g[0] === 'stdout')
          .map((g) => g[1])
          .join(''),
        text,
      );
      got.forEach((g, k) => assert.equal(g[2], k));
    }
  }
});

test('invalid UTF-8 becomes U+FFFD rather than throwing', () => {
  const { c, got } = collector(1000);
  c.push('stdout', Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x82]));
  c.finish();
  assert.equal(got.map((g) => g[1]).join(''), 'a\ufffdb\ufffd');
});

test('truncation delivers exactly max bytes, calls onLimit once, counts dropped bytes', () => {
  const { c, got, limits } = collector(10);
  c.push('stdout', Buffer.from('12345678'));
  c.push('stderr', Buffer.from('abcdef'));
  c.push('stdout', Buffer.from('more'));
  const tails = c.finish();
  assert.equal(got.map((g) => g[1]).join(''), '12345678ab');
  assert.equal(c.outputBytes, 10);
  assert.equal(c.droppedBytes, 8);
  assert.equal(c.truncated, true);
  assert.equal(limits(), 1);
  assert.equal(tails.stdout_tail, '12345678');
  assert.equal(tails.stderr_tail, 'ab');
});

test('truncation inside a multi-byte character drops the partial character', () => {
  const { c, got } = collector(5);
  c.push('stdout', Buffer.from('abcd🐢')); // the cut falls inside the emoji
  const tails = c.finish();
  assert.equal(got.map((g) => g[1]).join(''), 'abcd');
  assert.equal(tails.stdout_tail, 'abcd');
});

test('tails keep the last 4 KiB and never start inside a character', () => {
  const { c } = collector(10_000_000);
  const line = 'żółw🐢\n';
  for (let i = 0; i < 2000; i++) c.push('stdout', Buffer.from(line));
  const { stdout_tail } = c.finish();
  assert.ok(Buffer.byteLength(stdout_tail) <= TAIL_BYTES);
  assert.ok(Buffer.byteLength(stdout_tail) > TAIL_BYTES - 4);
  assert.ok(!stdout_tail.includes('\ufffd'));
  assert.ok(stdout_tail.endsWith(line));
});

test('completeUtf8Length', () => {
  assert.equal(completeUtf8Length(Buffer.from('abc')), 3);
  const e = Buffer.from('a🐢');
  for (let k = 2; k < e.length; k++) assert.equal(completeUtf8Length(e.subarray(0, k)), 1);
  assert.equal(completeUtf8Length(e), e.length);
});
