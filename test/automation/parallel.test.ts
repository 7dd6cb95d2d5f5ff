/**
 * Proof 4a: 100 runs of one 5-node graph in parallel (two playbook nodes whose commands run in the
 * sandbox, an artifact gate, a condition and an approval) all finish correctly: each run's gate
 * finds the file its own playbook wrote, every approval takes its own resume, every run succeeds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { createAutomation, getRun, makePlaybook, nodeOf, resume, waitFor } from './helpers';

const RUNS = 100;

/**
 * Every playbook run gets a sandbox session of its own, and each session takes one id of the worker's
 * uid range: 200 sessions need more than the 256 ids a test process gets by default. 540000–549999
 * is reserved for this file (see test/sandbox/restart.test.ts for the other reserved blocks).
 */
const IDS = { LORE_SANDBOX_ID_MIN: '540000', LORE_SANDBOX_ID_MAX: '549999' };

let api: TestApi;
before(async () => {
  api = await startTestApi({ worker: true, env: IDS });
  await makePlaybook(api, 'write-file', ['mkdir -p artifacts && echo data > artifacts/report.txt && echo wrote'], { file: 'report.txt' });
  await makePlaybook(api, 'echo-color', ['echo green'], { color: 'green' });
});
after(async () => api?.close());

const graph = {
  nodes: [
    { node_id: 'write', kind: 'playbook', playbook_id: 'write-file', version: 1, inputs: { file: 'report.txt' } },
    { node_id: 'gate', kind: 'artifact_gate', artifacts: [{ path: 'report.txt' }] },
    { node_id: 'probe', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: '$nodes.gate.artifacts.0.sandbox_run_id' } },
    { node_id: 'check', kind: 'condition', condition: { left: '$nodes.probe.outputs.0', op: 'eq', right: '$nodes.write.sandbox_run_ids.0' } },
    { node_id: 'approve', kind: 'approval', approval_key: 'ok', inputs: { probe: '$nodes.probe.outputs.0' } },
  ],
  edges: [
    { from: 'write', to: 'gate' },
    { from: 'gate', to: 'probe' },
    { from: 'probe', to: 'check' },
    { from: 'check', to: 'approve' },
  ],
};

/** Runs fn over items with at most n in flight (the HTTP calls, not the runs: those are all in flight). */
async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

describe('parallel runs', () => {
  it(`${RUNS} runs of a 5-node graph all finish correctly`, { timeout: 900_000 }, async () => {
    const id = uniqueName('fan');
    await createAutomation(api, id, graph);
    const t0 = Date.now();
    const ids = Array.from({ length: RUNS }, (_, i) => `par-${i}`);
    const started = await Promise.all(ids.map((run_id) => api.post('/v1/automations/run', { automation_id: id, run_id })));
    for (const r of started) assert.equal(r.status, 200, JSON.stringify(r.body));
    console.log(`# ${RUNS} runs started in ${Date.now() - t0} ms`);

    // Every run reaches its approval, then each gets its own resume.
    const pending = new Set(ids);
    await waitFor(
      `all ${RUNS} runs to pause at the approval`,
      async () => {
        const page = await api.post('/v1/automations/runs/list', { automation_id: id, status: ['paused', 'failed', 'cancelled'], limit: 100 });
        const bad = page.body.runs.filter((r: { status: string }) => r.status !== 'paused');
        if (bad.length > 0) {
          const why = await getRun(api, bad[0].run_id);
          const failed = why.nodes.find((n: { state: string }) => n.state === 'failed');
          const sb = failed?.output?.sandbox_run_ids?.[0] ? (await api.post('/v1/memory/sandbox/runs/get', { run_id: failed.output.sandbox_run_ids[0] })).body.run : null;
          assert.fail(`${bad.length} runs ended early, e.g. ${bad[0].run_id}: ${JSON.stringify(failed)}\nsandbox run: ${JSON.stringify(sb)}`);
        }
        return page.body.runs.length === RUNS;
      },
      600_000,
      1000,
    );
    console.log(`# all paused after ${Date.now() - t0} ms`);
    await pool(ids, 20, async (run_id) => {
      const r = await resume(api, run_id, `approve ${run_id}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      pending.delete(run_id);
    });
    await waitFor(
      `all ${RUNS} runs to succeed`,
      async () => {
        const page = await api.post('/v1/automations/runs/list', { automation_id: id, status: 'succeeded', limit: 100 });
        return page.body.runs.length === RUNS;
      },
      600_000,
      1000,
    );
    console.log(`# all succeeded after ${Date.now() - t0} ms`);

    const runs = await pool(ids, 10, (run_id) => getRun(api, run_id));
    const sandboxRuns = new Set<string>();
    for (const run of runs) {
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.deepEqual(run.node_counts, { pending: 0, running: 0, succeeded: 5, failed: 0, skipped: 0, paused: 0, cancelled: 0 });
      const written = nodeOf(run, 'write').output.sandbox_run_ids[0];
      // The gate found the file this run's own playbook wrote, and the probe echoed that id back.
      assert.equal(nodeOf(run, 'gate').output.artifacts[0].sandbox_run_id, written);
      assert.equal(nodeOf(run, 'probe').output.outputs['0'], written);
      assert.equal(nodeOf(run, 'check').output.result, true);
      assert.equal(nodeOf(run, 'approve').approval.reason, `approve ${run.run_id}`);
      sandboxRuns.add(written);
    }
    assert.equal(sandboxRuns.size, RUNS, 'every run used its own sandbox runs');
  });
});
