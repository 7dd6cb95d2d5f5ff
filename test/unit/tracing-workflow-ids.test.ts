/**
 * The tracer of Lore's workflow interceptors makes span and trace ids without Math.random (in
 * workflow code, the run's seeded generator that uuid4() draws from; src/telemetry/workflow-interceptors.ts).
 * The replay of every committed history with the interceptors is in test/workflows/histories.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeededIdGenerator } from '../../src/telemetry/workflow-interceptors';

describe('the workflow tracer ids', () => {
  it('are valid OpenTelemetry ids, made without Math.random', () => {
    const random = Math.random;
    Math.random = () => {
      throw new Error('Math.random was called');
    };
    try {
      const ids = new SeededIdGenerator('automation/t/s/run-1\0run-id-1');
      const traces = Array.from({ length: 200 }, () => ids.generateTraceId());
      const spans = Array.from({ length: 200 }, () => ids.generateSpanId());
      for (const t of traces) assert.match(t, /^[0-9a-f]{32}$/);
      for (const s of spans) assert.match(s, /^[0-9a-f]{16}$/);
      assert.ok(![...traces, ...spans].some((x) => /^0+$/.test(x)));
      assert.equal(new Set(spans).size, spans.length, 'no span id repeats within a run');
    } finally {
      Math.random = random;
    }
  });

  it('differ between runs and repeat for the same run', () => {
    const a = new SeededIdGenerator('wf\0run-a');
    const b = new SeededIdGenerator('wf\0run-b');
    const a2 = new SeededIdGenerator('wf\0run-a');
    assert.notEqual(a.generateSpanId(), b.generateSpanId());
    const again = new SeededIdGenerator('wf\0run-a');
    assert.equal(a2.generateTraceId(), again.generateTraceId());
  });
});
