/**
 * The committed histories (test/workflows/histories/<set>/<scenario>.json, recorded from real runs
 * by scripts/record-histories.ts) replay against the current workflow code. A run paused at an
 * approval for days must survive an upgrade of Lore: any change to workflow code that would make
 * one of these histories take another path than it recorded fails here (docs/design.md, "Changing
 * a workflow"). The last test shows that it does: an incompatible edit, in a copy of the tree,
 * fails the replay with a determinism error.
 *
 * Every history also replays with tracing's workflow interceptors bundled in (src/telemetry), and
 * the sets recorded with tracing on (`--traced`) replay without them: turning tracing on or off
 * across a restart must not break an open run.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { silentLog } from '../../src/log';
import { TRACING_WORKFLOW_INTERCEPTORS } from '../../src/telemetry/index';
import { currentWorkflowBundle } from '../../src/worker';
import { variantTree, type VariantTree } from '../helpers/variant-tree';
import { loadHistories, readRecordings, type LoadedHistory } from './histories/recordings';
import { SCENARIOS } from './histories/scenarios';
import { PATCHES } from '../../workflows/patches';

/** The patch id a core_patch marker carries (its details['patch-data'] payload: {id, deprecated}). */
function patchIdOf(details: unknown): string {
  const payload = (details as Record<string, { payloads?: { data?: Uint8Array | null }[] }>)?.['patch-data']?.payloads?.[0];
  const data = payload?.data ? Buffer.from(payload.data).toString('utf8') : '{}';
  return (JSON.parse(data) as { id?: string }).id ?? '';
}

/** The workflow types the worker runs: every exported workflow function of the modules workflows/index.ts re-exports. */
function workflowTypes(): string[] {
  const dir = new URL('../../workflows/', import.meta.url);
  const index = fs.readFileSync(new URL('index.ts', dir), 'utf8');
  const modules = [...index.matchAll(/export \* from '\.\/([\w-]+)'/g)].map((m) => m[1]!);
  assert.ok(modules.length >= 6, `workflows/index.ts re-exports its modules: ${index}`);
  return modules.flatMap((m) => [...fs.readFileSync(new URL(`${m}.ts`, dir), 'utf8').matchAll(/^export async function (\w+)\(/gm)].map((x) => x[1]!));
}

type Bundle = Parameters<typeof Worker.runReplayHistories>[0]['workflowBundle'];

/** Replays each history; the failures, each named by its file and workflow. */
async function replayAll(workflowBundle: Bundle, histories: LoadedHistory[], traced = false) {
  const byId = new Map(histories.map((h) => [h.workflowId, h]));
  const failures: { file: string; workflowId: string; type: string; error: Error }[] = [];
  let replayed = 0;
  // Tracing's interceptors send workflow spans to a sink; a replay exports nothing, but the sink must exist.
  const sinks = traced ? { sinks: { exporter: { export: { fn: () => {}, callDuringReplay: false } } } } : {};
  for await (const r of Worker.runReplayHistories(
    { workflowBundle, ...sinks },
    histories.map((h) => ({ workflowId: h.workflowId, history: h.history })),
  )) {
    replayed += 1;
    if (r.error) {
      const h = byId.get(r.workflowId)!;
      failures.push({ file: h.file, workflowId: r.workflowId, type: h.workflowType, error: r.error });
    }
  }
  return { replayed, failures };
}

// Replay workers log every state change at INFO, and the incompatible edit below logs a warning per
// failed workflow task: errors are enough here.
Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });

describe('committed workflow histories', () => {
  const histories = loadHistories();

  it('every scenario of the table has been recorded, and every workflow type Lore runs is covered', () => {
    const recorded = new Set(readRecordings().map((r) => r.recording.scenario));
    const missing = SCENARIOS.filter((s) => !recorded.has(s.name)).map((s) => s.name);
    assert.deepEqual(missing, [], `record them: node --import tsx scripts/record-histories.ts --set <set> --only ${missing.join(',')}`);
    const types = new Set(histories.map((h) => h.workflowType));
    const all = workflowTypes();
    for (const t of ['automationRunWorkflow', 'playbookRunWorkflow', 'lifecycleNodesWorkflow', 'playbookShadowValidationWorkflow'])
      assert.ok(all.includes(t), `${t} is found in workflows/`);
    assert.deepEqual(
      all.filter((t) => !types.has(t)),
      [],
      'every workflow type in workflows/index.ts has a recorded history (add a scenario to test/workflows/histories/scenarios.ts)',
    );
    // The approval states the upgrade story is about: a run still waiting, and one that went on.
    const open = histories.filter((h) => h.scenario === 'automation-paused' && h.workflowType === 'automationRunWorkflow');
    assert.ok(open.length > 0, 'a paused automation run is recorded');
  });

  it('the sets recorded before a patch have none of its markers; the ones after carry them', () => {
    const markers = (h: LoadedHistory) =>
      new Set((h.history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').map((e) => patchIdOf(e.markerRecordedEventAttributes!.details)));
    const runs = (set: string, scenario: string) => histories.filter((h) => h.set === set && h.scenario === scenario && h.workflowType === 'automationRunWorkflow');
    for (const h of histories.filter((x) => x.set === 'v1-baseline')) assert.equal(markers(h).size, 0, `${h.file} was recorded before any patch`);
    const [rejected] = runs('v2-approval-decisions', 'automation-rejected');
    assert.ok(rejected, 'v2-approval-decisions/automation-rejected is recorded');
    assert.deepEqual([...markers(rejected)].sort(), [PATCHES.approvalDecisions, PATCHES.runMemo].sort());
    const [timeouts] = runs('v2-approval-decisions', 'automation-approval-timeouts');
    assert.ok(timeouts && markers(timeouts).has(PATCHES.approvalTimeout), 'v2-approval-decisions/automation-approval-timeouts waited on timers');
    // No playbook run recorded before the step backoff (issue 41) reached it; the v4 sets' runs waited on it.
    for (const h of histories.filter((x) => x.workflowType === 'playbookRunWorkflow' && !x.set.startsWith('v4-'))) {
      assert.ok(!markers(h).has(PATCHES.stepBackoff), `${h.file} has no step backoff`);
    }
    for (const set of ['v4-step-backoff', 'v4-step-backoff-traced']) {
      const h = histories.find((x) => x.set === set && x.scenario === 'playbook-step-backoff' && x.workflowType === 'playbookRunWorkflow');
      assert.ok(h && markers(h).has(PATCHES.stepBackoff), `${set}/playbook-step-backoff waited before its retry`);
      assert.equal((h.history.events ?? []).filter((e) => e.timerStartedEventAttributes).length, 1);
    }
  });

  it('the current sets have the guided host-step waits, the shadow validation and feedback runs, with their markers', () => {
    const markers = (h: LoadedHistory) =>
      new Set((h.history.events ?? []).filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').map((e) => patchIdOf(e.markerRecordedEventAttributes!.details)));
    const signals = (h: LoadedHistory) => (h.history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    const isClosed = (h: LoadedHistory) => readRecordings().some((r) => r.file === h.file && r.recording.workflows.some((w) => w.workflow_id === h.workflowId && w.closed));
    for (const set of ['v3-guided-and-feedback', 'v3-traced']) {
      const one = (scenario: string, type: string) => {
        const h = histories.find((x) => x.set === set && x.scenario === scenario && x.workflowType === type);
        assert.ok(h, `${set}/${scenario} has a ${type}`);
        return h;
      };
      // Patch ids of workflows/replay.ts (module constants there).
      const waiting = one('playbook-guided-host-waiting', 'playbookRunWorkflow');
      assert.ok(markers(waiting).has('lore-guided-host-steps-wait-for-the-host'), `${waiting.file} took the guided path`);
      assert.equal(isClosed(waiting), false, `${waiting.file} is the history of a run still waiting for the host`);
      assert.equal(signals(waiting), 0);
      const completed = one('playbook-guided-host-completed', 'playbookRunWorkflow');
      assert.ok(markers(completed).has('lore-guided-host-steps-wait-for-the-host'));
      assert.equal(signals(completed), 1, `${completed.file}: the host's report arrived as a signal`);
      assert.ok(isClosed(completed));
      one('playbook-guided-host-completed', 'sandboxRunWorkflow');
      assert.ok(markers(one('playbook-shadow-validation', 'playbookShadowValidationWorkflow')).has('lore-shadow-validation-host-steps-not-run'));
      one('lifecycle-nodes', 'lifecycleNodesWorkflow');
      one('round-trip', 'roundTripWorkflow');
    }
    // The traced set really ran traced: the trace context travels in the commands' headers.
    const tracedHeaders = (set: string) =>
      histories
        .filter((h) => h.set === set && h.workflowType === 'automationRunWorkflow')
        .flatMap((h) => h.history.events ?? [])
        .filter((e) => e.activityTaskScheduledEventAttributes?.header?.fields?.['_tracer-data']).length;
    assert.ok(
      readRecordings()
        .filter((r) => r.recording.set === 'v3-traced')
        .every((r) => r.recording.traced === true),
    );
    assert.ok(tracedHeaders('v3-traced') > 0, 'v3-traced carries trace context');
    assert.equal(tracedHeaders('v3-guided-and-feedback'), 0, 'v3-guided-and-feedback was recorded untraced');
  });

  it('every recorded history replays against the current workflow code', { timeout: 600_000 }, async () => {
    const { replayed, failures } = await replayAll(await currentWorkflowBundle(silentLog), histories);
    assert.equal(replayed, histories.length, 'every history was replayed');
    assert.deepEqual(
      failures.map((f) => `${f.file} ${f.type} ${f.workflowId}: ${f.error.name}: ${f.error.message}`),
      [],
      'a history that no longer replays means running workflows of that kind would break on upgrade (docs/design.md, "Changing a workflow")',
    );
  });

  describe('with tracing on', () => {
    it("every recorded history, traced or not, replays with the worker's tracing interceptors bundled in", { timeout: 600_000 }, async () => {
      const bundle = await currentWorkflowBundle(silentLog, [TRACING_WORKFLOW_INTERCEPTORS]);
      const { replayed, failures } = await replayAll(bundle, histories, true);
      assert.equal(replayed, histories.length);
      assert.deepEqual(
        failures.map((f) => `${f.file} ${f.type} ${f.workflowId}: ${f.error.name}: ${f.error.message}`),
        [],
        'turning tracing on across a restart would break these open runs (src/telemetry/workflow-interceptors.ts)',
      );
    });

    it("Temporal's interceptor module as it is fails every automation run that started a playbook (why Lore bundles its own)", { timeout: 600_000 }, async () => {
      // Its span ids come from the workflow's Math.random, so uuid4() names the playbook children differently.
      const stock = createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');
      const bundle = await currentWorkflowBundle(silentLog, [stock]);
      const startsChildren = (h: LoadedHistory) => (h.history.events ?? []).some((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
      const runs = histories.filter((h) => h.workflowType === 'automationRunWorkflow' && startsChildren(h));
      assert.ok(runs.length >= 5, 'recorded automation runs with playbook nodes');
      const { failures } = await replayAll(bundle, runs, true);
      assert.deepEqual(failures.map((f) => f.workflowId).sort(), runs.map((h) => h.workflowId).sort());
      for (const f of failures) assert.equal(f.error.name, 'DeterminismViolationError', `${f.file}: ${f.error.message}`);
    });
  });

  describe('an incompatible edit', () => {
    let tree: VariantTree;
    before(() => {
      // A timer before the run's first mirror write, not behind patched(): every recorded automation
      // run scheduled that write first, so replaying them meets a command the history does not have.
      tree = variantTree('incompatible', [
        {
          file: 'workflows/automation.ts',
          find: 'export async function automationRunWorkflow(input: AutomationRunInput): Promise<AutomationRunResult> {\n',
          replace: 'export async function automationRunWorkflow(input: AutomationRunInput): Promise<AutomationRunResult> {\n  await variantSleep(1);\n',
        },
        {
          file: 'workflows/automation.ts',
          find: "import { newRun } from './automation/run';\n",
          replace: "import { newRun } from './automation/run';\nimport { sleep as variantSleep } from '@temporalio/workflow';\n",
        },
      ]);
    });
    after(() => tree?.remove());

    it('fails the replay of every recorded automation run with a determinism error', { timeout: 600_000 }, async () => {
      const automationRuns = histories.filter((h) => h.workflowType === 'automationRunWorkflow');
      assert.ok(automationRuns.length >= 5, 'paused, resumed, cancelled, stop_on_failure and parallel runs are recorded');
      const bundle = await bundleWorkflowCode({ workflowsPath: tree.workflowsPath, logger: { trace() {}, debug() {}, info() {}, log() {}, warn() {}, error() {} } });
      const { replayed, failures } = await replayAll(bundle, automationRuns);
      assert.equal(replayed, automationRuns.length);
      assert.deepEqual(failures.map((f) => f.workflowId).sort(), automationRuns.map((h) => h.workflowId).sort(), 'every automation history fails against the edited code');
      for (const f of failures) assert.equal(f.error.name, 'DeterminismViolationError', `${f.file}: ${f.error.message}`);
      // The other workflow types are untouched by the edit and still replay with the same bundle.
      const others = histories.filter((h) => h.workflowType === 'sandboxRunWorkflow').slice(0, 3);
      assert.deepEqual((await replayAll(bundle, others)).failures, []);
    });
  });

  describe('a patch dropped', () => {
    let tree: VariantTree;
    before(() => {
      // Guided runs back to stopping at their first host step, as before the patch, for every run.
      tree = variantTree('guided-patch-dropped', [
        { file: 'workflows/replay.ts', find: 'if (patched(PATCH_GUIDED_HOST_STEPS)) {', replace: 'if ((false as boolean) && PATCH_GUIDED_HOST_STEPS) {' },
      ]);
    });
    after(() => tree?.remove());

    it('fails the replay of every recorded guided run that waited for the host, and of no other playbook run', { timeout: 600_000 }, async () => {
      const guided = (h: LoadedHistory) =>
        (h.history.events ?? []).some(
          (e) => e.markerRecordedEventAttributes?.markerName === 'core_patch' && patchIdOf(e.markerRecordedEventAttributes.details) === 'lore-guided-host-steps-wait-for-the-host',
        );
      const runs = histories.filter((h) => h.workflowType === 'playbookRunWorkflow');
      const waited = runs.filter(guided);
      assert.ok(waited.length >= 4, 'the guided runs of the v3 sets (waiting, completed; traced and not)');
      const bundle = await bundleWorkflowCode({ workflowsPath: tree.workflowsPath, logger: { trace() {}, debug() {}, info() {}, log() {}, warn() {}, error() {} } });
      const { replayed, failures } = await replayAll(bundle, runs);
      assert.equal(replayed, runs.length);
      assert.deepEqual(failures.map((f) => f.workflowId).sort(), waited.map((h) => h.workflowId).sort());
      for (const f of failures) assert.equal(f.error.name, 'DeterminismViolationError', `${f.file}: ${f.error.message}`);
    });
  });
});
