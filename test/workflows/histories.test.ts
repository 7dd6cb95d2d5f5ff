/**
 * The committed histories (test/workflows/histories/<set>/<scenario>.json, recorded from real runs
 * by scripts/record-histories.ts) replay against the current workflow code. A run paused at an
 * approval for days must survive an upgrade of Lore: any change to workflow code that would make
 * one of these histories take another path than it recorded fails here (docs/design.md, "Changing
 * a workflow"). The last test shows that it does: an incompatible edit, in a copy of the tree,
 * fails the replay with a determinism error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { silentLog } from '../../src/log';
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

/** Replays each history; the failures, each named by its file and workflow. */
async function replayAll(workflowBundle: Parameters<typeof Worker.runReplayHistories>[0]['workflowBundle'], histories: LoadedHistory[]) {
  const byId = new Map(histories.map((h) => [h.workflowId, h]));
  const failures: { file: string; workflowId: string; type: string; error: Error }[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle }, histories.map((h) => ({ workflowId: h.workflowId, history: h.history })))) {
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
    for (const t of ['automationRunWorkflow', 'playbookRunWorkflow', 'sandboxRunWorkflow', 'packImportWorkflow', 'lifecycleSweepWorkflow', 'lifecycleScopeWorkflow']) {
      assert.ok(types.has(t), `a recorded history of ${t}`);
    }
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
      assert.deepEqual(
        failures.map((f) => f.workflowId).sort(),
        automationRuns.map((h) => h.workflowId).sort(),
        'every automation history fails against the edited code',
      );
      for (const f of failures) assert.equal(f.error.name, 'DeterminismViolationError', `${f.file}: ${f.error.message}`);
      // The other workflow types are untouched by the edit and still replay with the same bundle.
      const others = histories.filter((h) => h.workflowType === 'sandboxRunWorkflow').slice(0, 3);
      assert.deepEqual((await replayAll(bundle, others)).failures, []);
    });
  });
});
