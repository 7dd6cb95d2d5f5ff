/**
 * Workflows of the automation family (deterministic code only).
 *
 * One workflow per automation run (docs/automation.md). It schedules the graph's nodes as their
 * inputs become ready (independent branches run concurrently), resolves `$nodes.<id>.<path>`
 * references from upstream outputs, waits at approval nodes for the resume signal, evaluates
 * conditions itself, checks artifact gates and runs playbook nodes as child workflows through
 * activities and children. Every transition is mirrored into MongoDB by one serial,
 * non-cancellable writer (activity automationMirror), so the API answers from the store.
 * Restarts: Temporal replays this code from history; completed activities and children are not
 * repeated. Behaviour changes for running histories go behind patched().
 *
 * The parts live in workflows/automation/: the run's state as one object (run.ts), the scheduler,
 * one executor per node kind (nodes/), the mirror writer, what record_run records, and what the
 * Temporal UI shows (details.ts). The awaits of this function stay here, where they were: when two
 * coroutines wake in the same activation (this one and the mirror writer), the order of their
 * commands is the order in which their microtasks run, so a helper's extra await would reorder
 * commands that committed histories have recorded.
 */
import { CancellationScope, CancelledFailure, condition, defineQuery, defineSignal, isCancellation, setHandler } from '@temporalio/workflow';
import type { NodeState } from '../src/model/automation/graph';
import { RESUME_SIGNAL, STATE_QUERY, type AutomationRunInput, type AutomationRunResult, type ResumeSignal } from '../src/domain/automation/run-types';
import { recorder } from './automation/activities';
import { showEnd } from './automation/details';
import { causeOf } from './automation/failure';
import { receiveResume } from './automation/nodes/approval';
import { recordFinishOf, recordStartOf } from './automation/recording';
import { newRun } from './automation/run';
import { schedule } from './automation/scheduler';
import { startMirrorWriter } from './automation/writer';

export const automationResumeSignal = defineSignal<[ResumeSignal]>(RESUME_SIGNAL);
export const automationStateQuery = defineQuery<{ status: string; nodes: { node_id: string; state: NodeState }[]; waiting: string[] }>(STATE_QUERY);

export async function automationRunWorkflow(input: AutomationRunInput): Promise<AutomationRunResult> {
  const run = newRun(input);
  const { st } = run;
  setHandler(automationResumeSignal, (s) => receiveResume(run, s));
  setHandler(automationStateQuery, () => ({
    status: st.liveStatus(),
    nodes: [...st.slots.values()].map((s) => ({ node_id: s.node.node_id, state: s.state })),
    waiting: [...run.waiting],
  }));
  const writer = startMirrorWriter(run);

  let cancellation: unknown = null;
  try {
    st.touch(); // the first write marks the run running
    if (input.options.record_run) {
      try {
        st.replayRunId = await recorder.automationRecordStart(recordStartOf(run));
        st.touch();
      } catch (err) {
        if (isCancellation(err)) throw err;
        run.recordProblem = `record_run: the replay run could not be opened: ${causeOf(err).message}`;
      }
    }
    // Schedule pass after pass, waking on every state change, until no node is in flight.
    for (;;) {
      schedule(run);
      if (run.tasks.size === 0) break;
      const seen = st.version;
      await condition(() => st.version !== seen);
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    cancellation = err;
  }
  // A cancel that arrived with the start (the run was cancelled while queued) skips every node in
  // the first pass without an await that would throw: the run still ends cancelled.
  if (cancellation === null && run.root.consideredCancelled) cancellation = new CancelledFailure('the run was cancelled before it started');

  return CancellationScope.nonCancellable(async () => {
    // In-flight nodes settle first (a cancelled playbook only once its sandbox work has stopped).
    while (run.tasks.size > 0) await Promise.all([...run.tasks.values()]);
    schedule(run);
    const counts = st.counts();
    // Set on the state only once everything else is written: the store shows the end last.
    const final = cancellation ? 'cancelled' : counts.failed > 0 || st.error ? 'failed' : 'succeeded';
    if (st.replayRunId) {
      try {
        await recorder.automationRecordFinish(recordFinishOf(run, st.replayRunId, final, counts));
      } catch (err) {
        run.recordProblem = `record_run: the replay run could not be completed: ${causeOf(err).message}`;
      }
    }
    st.status = final;
    st.reason = cancellation
      ? 'cancelled'
      : st.error
        ? `node '${st.error.node_id}' failed: ${st.error.message}${run.stoppedBy ? ' (stop_on_failure: the rest of the run was stopped)' : ''}`
        : `all nodes settled: ${counts.succeeded} succeeded, ${counts.skipped} skipped`;
    if (run.recordProblem) st.reason = `${st.reason} (${run.recordProblem})`;
    showEnd(run, final);
    st.touch();
    await writer.close();
    if (cancellation) throw cancellation;
    return { run_id: input.run_id, status: st.status, node_counts: st.counts(), error: st.error };
  });
}
