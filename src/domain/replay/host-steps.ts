import { LoreError, invalidState } from '../../contract/errors';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { loadReplayRun, nowIso, replayStores, type ReplayCtx } from './context';
import type { HostReportDoc, HostReportStatus, Json, RunDoc, StepDoc } from '../../model/replay/types';
import { pendingStepOf, runView, stepView } from './views';
import { HOST_STEP_SIGNAL, playbookRunWorkflowId, type HostStepReport } from './workflow-types';

/**
 * playbooks/runs/steps/complete: the host reports the host step a guided run waits for
 * (docs/replay.md, "Host steps"). The report is stored on the step once (a compare-and-set, so
 * of two racing reports one wins and the other is invalid_state), then sent to the run's workflow
 * as a signal; the workflow judges it against the expected signature and goes on. The answer
 * waits (up to wait_ms) until the run needs the host again or ends.
 */

export interface HostStepInput {
  run_id: string;
  step_index: number;
  status: HostReportStatus;
  output_signature?: Json | undefined;
  error?: string | undefined;
  wait_ms: number;
}

/** A report whose signal was not confirmed for this long is sent again by the next read (see resignalLostReport). */
const RESIGNAL_AFTER_MS = 10_000;
const POLL_MS = 200;

const workflowOf = (run: RunDoc) => run.playbook?.workflow_id || playbookRunWorkflowId(run._id);

function refuse(run: RunDoc, stepIndex: number, steps: StepDoc[]): LoreError {
  const pending = pendingStepOf(run, steps);
  const step = steps.find((s) => s.step_index === stepIndex);
  const state = !step ? 'no_such_step' : step.status === 'pending' && step.host_report ? 'reported' : step.status;
  const details = { run_id: run.run_id, step_index: stepIndex, pending_step_index: pending?.step_index ?? null };
  if (state === 'reported' || (step?.host_report && pending?.step_index !== stepIndex)) {
    return invalidState(`step ${stepIndex} of playbook run '${run.run_id}' was reported already${state === 'reported' ? '' : ` (it is ${state})`}`, state, details);
  }
  if (pending === null) {
    return invalidState(`playbook run '${run.run_id}' is not waiting for the host${step ? ` (step ${stepIndex} is ${step.status})` : ''}`, state, details);
  }
  return invalidState(`playbook run '${run.run_id}' waits for step ${pending.step_index}, not step ${stepIndex}${step ? ` (which is ${step.status})` : ''}`, state, details);
}

export async function reportHostStep(c: ReplayCtx, ref: ScopeRef, input: HostStepInput, actor: string) {
  const { runs, steps } = replayStores(c.db, ref);
  const run = await loadReplayRun(runs, input.run_id);
  if (run.source !== 'playbook' || !run.playbook) {
    throw invalidState(
      `replay run '${run.run_id}' is ${run.source === 'recorded' ? 'a recorded run' : 'a shadow validation'}; only guided playbook runs wait for host steps`,
      run.source,
      { run_id: run.run_id },
    );
  }
  if (run.state === 'ended')
    throw invalidState(`playbook run '${run.run_id}' has ended (${run.status}); it waits for nothing`, 'ended', { run_id: run.run_id, status: run.status });
  const all = await steps.list(run._id);
  const pending = pendingStepOf(run, all);
  if (!pending || pending.step_index !== input.step_index || pending.reported) throw refuse(run, input.step_index, all);

  const report: HostStepReport = {
    step_index: input.step_index,
    status: input.status,
    output_signature: input.output_signature ?? null,
    error: input.error ?? null,
    actor,
    at: nowIso(c),
    report_id: uuidv7(c.clock.now().getTime()),
  };
  // Wall time, not the injected clock: re-signalling waits real time for the workflow to see the report (signalled_wall_ms).
  const doc: HostReportDoc = {
    status: report.status,
    output_signature: report.output_signature,
    error: report.error,
    actor,
    at: report.at,
    report_id: report.report_id,
    signalled_wall_ms: Date.now(),
  };
  if (!(await steps.claimHostReport(run._id, input.step_index, doc))) throw refuse(run, input.step_index, await steps.list(run._id));
  try {
    await c.engine.signal(workflowOf(run), HOST_STEP_SIGNAL, report);
  } catch (err) {
    await steps.releaseHostReport(run._id, input.step_index, report.report_id).catch(() => undefined);
    if (err instanceof LoreError && err.code === 'not_found') {
      throw invalidState(`playbook run '${run.run_id}' has no running workflow to take the report`, 'ended', { run_id: run.run_id, workflow_id: workflowOf(run) });
    }
    throw err;
  }
  return answer(c, ref, run, input.step_index, input.wait_ms);
}

/** Waits until the reported step is judged and the run waits for another host step or ends (or wait_ms passes). */
async function answer(c: ReplayCtx, ref: ScopeRef, first: RunDoc, stepIndex: number, waitMs: number) {
  const { runs, steps } = replayStores(c.db, ref);
  // Wall time, not the injected clock: a real wait for the step to settle.
  const deadline = Date.now() + waitMs;
  for (;;) {
    const run = (await runs.getByKey(first._id)) ?? first;
    const all = await steps.list(run._id);
    const step = all.find((s) => s.step_index === stepIndex)!;
    const next = pendingStepOf(run, all);
    const settled = run.state === 'ended' || (step.status !== 'pending' && next !== null && next.step_index !== stepIndex);
    if (settled || Date.now() >= deadline) {
      return {
        run_id: run.run_id,
        step_index: stepIndex,
        accepted: true as const,
        step: stepView(step),
        completed: run.state === 'ended',
        pending_step: next,
        ...(settled
          ? {}
          : {
              message:
                step.status === 'pending' ? 'the report was accepted and is being judged; poll replay/runs/get' : 'the step was judged and the run goes on; poll replay/runs/get',
            }),
        run: runView(run, all),
      };
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * A report stored but never confirmed to its workflow (the API stopped between storing it and
 * signalling) would leave the run waiting until its timeout: a read of the open run sends it
 * again. The workflow keeps the first report of a step, so a second signal is harmless.
 */
export async function resignalLostReport(c: ReplayCtx, ref: ScopeRef, run: RunDoc, steps: StepDoc[]): Promise<void> {
  const s = steps.find((x) => x.status === 'pending' && x.host_report);
  const r = s?.host_report;
  if (!s || !r || Date.now() - (r.signalled_wall_ms ?? 0) < RESIGNAL_AFTER_MS) return;
  const report: HostStepReport = {
    step_index: s.step_index,
    status: r.status,
    output_signature: r.output_signature,
    error: r.error,
    actor: r.actor,
    at: r.at,
    report_id: r.report_id,
  };
  try {
    await c.engine.signal(workflowOf(run), HOST_STEP_SIGNAL, report);
    await replayStores(c.db, ref).steps.noteSignalled(run._id, s.step_index, r.report_id, Date.now());
  } catch {
    /* the engine is unreachable or the workflow is gone: reconcile settles a gone workflow */
  }
}
