/**
 * record_run: the run recorded as a replay run, opened at the start and completed at the end. The
 * workflow awaits the two activities itself (an extra await would move its later commands behind
 * those of the mirror writer); this module builds what they receive.
 */
import type { RunStatus } from '../../src/model/automation/graph';
import { replayRunIdFor, replayStatusOf, replayStepOf } from '../../src/domain/automation/replay-record';
import type { AutomationRun } from './run';

/** What automationRecordStart receives. */
export function recordStartOf(run: AutomationRun) {
  const { input } = run;
  return {
    tenant_id: input.tenant_id,
    scope: input.scope,
    actor: input.actor,
    replay_run_id: replayRunIdFor(input.run_id, input.run_key),
    goal: `automation ${input.automation_id}`,
    metadata: { automation_id: input.automation_id, automation_run_id: input.run_id },
  };
}

/** What automationRecordFinish receives: one step per started node, in the order they started. */
export function recordFinishOf(run: AutomationRun, replayRunId: string, final: RunStatus, counts: ReturnType<AutomationRun['st']['counts']>) {
  const { input, st } = run;
  return {
    tenant_id: input.tenant_id,
    scope: input.scope,
    actor: input.actor,
    replay_run_id: replayRunId,
    steps: run.started.map((id, i) => {
      const e = run.nodeErrors.get(id);
      return replayStepOf(i, run.byId.get(id)!, st.stateOf(id), run.nodeInputs.get(id), st.stateOf(id) === 'succeeded' ? st.outputs[id] : e?.output, e?.message ?? null);
    }),
    status: replayStatusOf(final),
    summary: `automation ${input.automation_id} run ${input.run_id} ${final}: ${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.cancelled} cancelled`,
  };
}
