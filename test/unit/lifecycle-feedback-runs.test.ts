import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoreError } from '../../src/contract/errors';
import { ManualClock } from '../../src/model/clock';
import { FeedbackRuns } from '../../src/domain/lifecycle/feedback-runs';
import type { NodesRunInput } from '../../src/domain/lifecycle/run-types';
import type { Engine, StartRequest, WorkflowDescription } from '../../src/engine/engine';
import { silentLog } from '../../src/log';
import { pollFor } from '../helpers/wait';

/**
 * The coalescing of feedback re-decisions (feedback-runs.ts) against a fake engine: bursts go
 * into one run, a run is never started while the scope's previous one is going, large bursts are
 * split into bounded runs, every id is run, and stop() returns while a run is still going.
 */

class FakeEngine {
  starts: NodesRunInput[] = [];
  /** Runs "in the worker": a run ends when the test calls finish(). */
  running = new Map<string, boolean>();
  failNextStarts = 0;

  async start(req: StartRequest) {
    if (this.failNextStarts > 0) {
      this.failNextStarts -= 1;
      throw new Error('temporal unavailable');
    }
    if (this.running.get(req.workflowId)) throw new LoreError('conflict', 'running', { workflow_id: req.workflowId });
    this.running.set(req.workflowId, true);
    this.starts.push(req.args[0] as NodesRunInput);
    return { workflowId: req.workflowId, runId: String(this.starts.length) };
  }

  async describe(workflowId: string): Promise<WorkflowDescription | null> {
    if (!this.running.has(workflowId)) return null;
    return { workflowId, runId: 'r', type: 'lifecycleNodesWorkflow', state: this.running.get(workflowId) ? 'running' : 'completed', startedAt: '', closedAt: null };
  }

  finish(workflowId: string) {
    this.running.set(workflowId, false);
  }
}

const setup = () => {
  const engine = new FakeEngine();
  const runs = new FeedbackRuns({ engine: engine as unknown as Engine, clock: new ManualClock(), log: silentLog, coalesceMs: 20 });
  return { engine, runs };
};
const ref = { tenant_id: 'acme', scope: 's1' };
const wid = 'lifecycle-nodes/acme/s1';
const allIds = (e: FakeEngine) => e.starts.flatMap((s) => s.node_ids);

describe('feedback re-decision runs', () => {
  it('coalesces a burst into one run, and waits for it before the next', async () => {
    const { engine, runs } = setup();
    for (let i = 0; i < 10; i += 1) runs.request(ref, [`n${i}`, `n${(i + 1) % 10}`]);
    await pollFor('the first run', async () => engine.starts.length === 1, 10_000, 5);
    assert.deepEqual([...engine.starts[0]!.node_ids].sort(), Array.from({ length: 10 }, (_, i) => `n${i}`).sort(), 'each id once, in one run');
    assert.equal(engine.starts[0]!.trigger, 'feedback');

    // Feedback while the run is going waits for it: no second start yet.
    runs.request(ref, ['n3', 'late']);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(engine.starts.length, 1, 'no run starts while the scope’s run is going');
    engine.finish(wid);
    await pollFor('the second run', async () => engine.starts.length === 2, 10_000, 5);
    assert.deepEqual([...engine.starts[1]!.node_ids].sort(), ['late', 'n3']);
    engine.finish(wid);
    await runs.stop();
  });

  it('splits a large burst into bounded runs and runs every id; other scopes are separate', async () => {
    const { engine, runs } = setup();
    const ids = Array.from({ length: 1200 }, (_, i) => `id-${i}`);
    runs.request(ref, ids);
    runs.request({ tenant_id: 'acme', scope: 's2' }, ['other']);
    await pollFor(
      'every id to be started',
      async () => {
        for (const [w, going] of engine.running) if (going) engine.finish(w);
        return allIds(engine).length === 1201;
      },
      10_000,
      5,
    );
    const mine = engine.starts.filter((s) => s.scope === 's1');
    assert.ok(
      mine.every((s) => s.node_ids.length <= 500),
      'at most 500 nodes per run',
    );
    assert.equal(mine.length, 3);
    assert.deepEqual(new Set(mine.flatMap((s) => s.node_ids)), new Set(ids));
    assert.deepEqual(engine.starts.find((s) => s.scope === 's2')!.node_ids, ['other']);
    await runs.stop();
  });

  it('retries a start the engine refused, and stop() returns while a run is going', async () => {
    const { engine, runs } = setup();
    engine.failNextStarts = 2;
    runs.request(ref, ['a']);
    await pollFor('the run after two failed starts', async () => engine.starts.length === 1, 20_000, 10);
    runs.request(ref, ['b']); // waits for the run, which never ends here
    await runs.stop();
    runs.request(ref, ['c']);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(allIds(engine), ['a'], 'nothing starts after stop');
  });
});
