import type { Database } from '../../store/database';
import { refOf } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { endRun, startRecordedRun } from '../replay/record-run';
import { stepAfter, stepBefore } from '../replay/record-step';
import type { ReplayRecordFinish, ReplayRecordStart } from './replay-record';

/**
 * Writes an automation run as a replay run through the replay family's recorded-run operations
 * (the same code as its run/start, step/before, step/after and run/end routes). Each is
 * idempotent for the same content, so activity retries are safe.
 */
export async function recordReplayStart(store: { db: Database; clock: Clock }, input: ReplayRecordStart): Promise<string> {
  const r = await startRecordedRun(store, refOf(input), { run_id: input.replay_run_id, goal: input.goal, metadata: input.metadata }, input.actor);
  return r.run_id;
}

export async function recordReplayFinish(store: { db: Database; clock: Clock }, input: ReplayRecordFinish): Promise<void> {
  const ref = refOf(input);
  for (const s of input.steps) {
    await stepBefore(store, ref, { run_id: input.replay_run_id, step_index: s.step_index, tool_name: s.tool_name, tool_input: s.tool_input }, input.actor);
    await stepAfter(
      store,
      ref,
      { run_id: input.replay_run_id, step_index: s.step_index, status: s.status, output_signature: s.output_signature, ...(s.error ? { error: s.error } : {}) },
      input.actor,
    );
  }
  await endRun(store, ref, { run_id: input.replay_run_id, status: input.status, summary: input.summary }, input.actor);
}
