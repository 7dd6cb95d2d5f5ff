import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AccessRecorder } from '../../src/domain/memory/access-recorder';
import { scopeRef } from '../../src/store/scope';

const quiet = { info() {}, warn() {}, error() {}, debug() {}, child() { return quiet; } } as never;

describe('access recorder', () => {
  it('flushes one touch per scope and use count, with every id recorded in between', async () => {
    const calls: { scope: string; ids: string[]; times: number }[] = [];
    const at = new Date('2026-01-01T00:00:00.000Z');
    const rec = new AccessRecorder(async (ref, ids, times) => void calls.push({ scope: ref.scope, ids: [...ids].sort(), times }), () => at, quiet, 60_000);
    const a = scopeRef('t', 'a');
    const many = Array.from({ length: 5000 }, (_, i) => `n${i}`);
    rec.record(a, many);
    rec.record(a, ['n1', 'n2']);
    rec.record(a, ['n2']);
    rec.record(scopeRef('t', 'b'), ['n1']);
    await rec.flush();
    const byKey = new Map(calls.map((c) => [`${c.scope}:${c.times}`, c.ids]));
    assert.equal(calls.length, 4);
    assert.equal(byKey.get('a:1')?.length, 4998);
    assert.deepEqual(byKey.get('a:2'), ['n1']);
    assert.deepEqual(byKey.get('a:3'), ['n2']);
    assert.deepEqual(byKey.get('b:1'), ['n1']);
    calls.length = 0;
    await rec.flush();
    assert.equal(calls.length, 0, 'nothing is flushed twice');
  });
});
