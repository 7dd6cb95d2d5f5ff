/**
 * An upgrade of Lore under running automations, with real processes: `lore start --role all` from
 * this tree starts two runs, one paused at an approval and one in the middle of a playbook node (a
 * sandbox command running). Lore is stopped (SIGTERM, as an operator would) and started again from
 * a copy of the tree whose automation workflow has changed behind patched() (a new first step, a
 * timer, and a different final reason): "the next version". The paused run is resumed; both old
 * runs finish correctly on the old path (their histories replay without the patch), and a run
 * started after the upgrade takes the new path (its history carries the patch marker).
 *
 * The next version also runs with tracing on (the old one ran without): the old runs' histories
 * replay with tracing's workflow interceptors in the bundle, which must not change the commands
 * they issue (src/telemetry/workflow-interceptors.ts: the ids of the playbook children).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAutomation, getRun, makePlaybook, nodeOf, waitFor, waitForPausedAt, waitForStatus } from '../automation/helpers';
import { startTestApi, uniqueName, type TestApi } from '../helpers/app';
import { LoreProcesses, type LoreChild } from '../helpers/lore-processes';
import { variantTree, type VariantTree } from '../helpers/variant-tree';
import { processesRunning } from '../sandbox/helpers';

const VARIANT_PATCH = 'lore-test-upgrade-variant';
const NEW_PATH = '[taken by the upgraded code]';
const SLEEP = ['sleep', '4.321'];

/** The next version of the automation workflow: a new step and a new result, behind a patch. */
const NEXT_VERSION = [
  {
    file: 'workflows/automation.ts',
    find: "import { newRun } from './automation/run';\n",
    replace: "import { newRun } from './automation/run';\nimport { sleep as variantSleep } from '@temporalio/workflow';\nimport { patched } from '@temporalio/workflow';\n",
  },
  {
    file: 'workflows/automation.ts',
    find: '  const run = newRun(input);\n',
    replace: `  const run = newRun(input);\n  const upgraded = patched('${VARIANT_PATCH}');\n`,
  },
  {
    file: 'workflows/automation.ts',
    find: '    st.touch(); // the first write marks the run running\n',
    replace: '    if (upgraded) await variantSleep(10);\n    st.touch(); // the first write marks the run running\n',
  },
  {
    file: 'workflows/automation.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a line of workflows/automation.ts, as written there
    find: '    if (run.recordProblem) st.reason = `${st.reason} (${run.recordProblem})`;\n',
    replace: `    if (run.recordProblem) st.reason = \`\${st.reason} (\${run.recordProblem})\`;\n    if (upgraded) st.reason = \`\${st.reason} ${NEW_PATH}\`;\n`,
  },
];

let api: TestApi;
let scratch = '';
let procs: LoreProcesses;
let next: VariantTree;
/** Where the upgraded Lore sends its spans: they are counted and dropped. */
let spans: { url: string; posts: number; close(): Promise<void> };

function startSpanSink(): Promise<typeof spans> {
  return new Promise((resolve) => {
    const sink = { url: '', posts: 0, close: () => new Promise<void>((r) => server.close(() => r())) };
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        sink.posts += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    server.listen(0, '127.0.0.1', () => {
      sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
      resolve(sink);
    });
  });
}

before(async () => {
  spans = await startSpanSink();
  api = await startTestApi({ worker: false });
  scratch = mkdtempSync(join(tmpdir(), 'lore-upgrade-'));
  // This file's Lore processes run one after another; 570000–579999 is its uid block (docs/sandbox.md).
  procs = new LoreProcesses({ api, dataDir: scratch, ids: { min: 570000, max: 579999 } });
  next = variantTree('upgrade', NEXT_VERSION);
});
after(async () => {
  procs?.killAll();
  await api?.close();
  next?.remove();
  await spans?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function call(lore: LoreChild, path: string, body: unknown) {
  const res = await fetch(`${lore.url!}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function patchMarkers(workflowId: string): Promise<string[]> {
  const history = await api.engine.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch')
    .map((e) => {
      const data = (e.markerRecordedEventAttributes!.details as Record<string, { payloads?: { data?: Uint8Array | null }[] }>)['patch-data']?.payloads?.[0]?.data;
      return (JSON.parse(data ? Buffer.from(data).toString('utf8') : '{}') as { id?: string }).id ?? '';
    });
}

describe('upgrade', () => {
  it('a paused run and a run mid-playbook finish on the old path after an upgrade; new runs take the new path', { timeout: 900_000 }, async () => {
    await makePlaybook(api, 'echo-color', ['echo green'], { color: 'green' });
    await makePlaybook(api, 'slow', [`${SLEEP.join(' ')} && echo slept`], {}, {}, { max_attempts: 2 });
    await createAutomation(api, 'gated', {
      nodes: [
        { node_id: 'first', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: 'one' } },
        { node_id: 'gate', kind: 'approval', approval_key: 'go' },
        { node_id: 'last', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: '$nodes.gate.reason' } },
      ],
      edges: [
        { from: 'first', to: 'gate' },
        { from: 'gate', to: 'last' },
      ],
    });
    await createAutomation(api, 'busy', {
      nodes: [
        { node_id: 'slow', kind: 'playbook', playbook_id: 'slow', version: 1 },
        { node_id: 'last', kind: 'playbook', playbook_id: 'echo-color', version: 1, inputs: { color: 'three' } },
      ],
      edges: [{ from: 'slow', to: 'last' }],
    });

    // Run ids name the workflows (automation/<tenant>/<scope>/<run_id>) on the Temporal server the
    // test files share: unique ones, so no other file's runs collide with these.
    const pausedId = uniqueName('paused-run');
    const busyId = uniqueName('busy-run');
    const newId = uniqueName('new-run');
    const old = await procs.start('all');
    assert.equal((await call(old, '/v1/automations/run', { automation_id: 'gated', run_id: pausedId })).status, 200);
    assert.equal((await call(old, '/v1/automations/run', { automation_id: 'busy', run_id: busyId })).status, 200);
    const pausedBefore = await waitForPausedAt(api, pausedId, ['gate'], {}, 180_000);
    await waitFor('the slow command to run', async () => (await processesRunning(SLEEP)).length > 0, 180_000, 50);
    assert.equal(nodeOf(await getRun(api, busyId), 'slow').state, 'running');

    // The upgrade: stop this Lore, start the next version on the same store and Temporal, traced.
    assert.equal(await procs.stop(old), 0, `lore stopped cleanly:\n${old.output().slice(-3000)}`);
    const upgraded = await procs.start('all', { LORE_TRACING: 'on', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: spans.url }, 300_000, next.loreBin);

    // The run that was mid-playbook finishes (its command completed during the graceful stop, or
    // its second attempt ran), on the old path.
    const busy = await waitForStatus(api, busyId, ['succeeded', 'failed', 'cancelled'], 300_000);
    assert.equal(busy.status, 'succeeded', JSON.stringify(busy));
    assert.equal(nodeOf(busy, 'last').output.outputs['0'], 'three');
    assert.ok(!busy.reason.includes(NEW_PATH), `old run, old path: ${busy.reason}`);

    // The paused run is still paused, resumes, and finishes on the old path.
    const still = await getRun(api, pausedId);
    assert.equal(still.status, 'paused');
    assert.equal(nodeOf(still, 'first').child_workflow_id, nodeOf(pausedBefore, 'first').child_workflow_id);
    const resumed = await call(upgraded, '/v1/automations/runs/resume', { run_id: pausedId, reason: 'after-upgrade', actor: 'ops' });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    const paused = await waitForStatus(api, pausedId, ['succeeded', 'failed', 'cancelled'], 180_000);
    assert.equal(paused.status, 'succeeded', JSON.stringify(paused));
    assert.equal(nodeOf(paused, 'last').output.outputs['0'], 'after-upgrade');
    assert.equal(nodeOf(paused, 'gate').approval.decided_by, 'ops');
    assert.ok(!paused.reason.includes(NEW_PATH), `old run, old path: ${paused.reason}`);
    for (const r of [busy, paused]) assert.ok(!(await patchMarkers(r.workflow_id)).includes(VARIANT_PATCH), `${r.run_id} never took the new path`);

    // A run started after the upgrade takes the new path.
    assert.equal((await call(upgraded, '/v1/automations/run', { automation_id: 'busy', run_id: newId })).status, 200);
    const fresh = await waitForStatus(api, newId, ['succeeded', 'failed', 'cancelled'], 300_000);
    assert.equal(fresh.status, 'succeeded', JSON.stringify(fresh));
    assert.ok(fresh.reason.endsWith(NEW_PATH), `new run, new path: ${fresh.reason}`);
    assert.ok((await patchMarkers(fresh.workflow_id)).includes(VARIANT_PATCH));
    assert.equal(await procs.stop(upgraded), 0);
    assert.ok(spans.posts > 0, 'the upgraded Lore ran traced (its spans were exported at the latest when it stopped)');
  });
});
