import { LoreError, invalidState } from '../../contract/errors';
import { stepId } from '../../store/replay/index';
import type { ScopeRef } from '../../store/scope';
import { loadReplayRun, nowIso, replayStores, type ReplayStoreCtx } from './context';
import { sameJson } from './json';
import { assertOpen, assertRecorded } from './record-run';
import type { Json, StepAfterStatus, StepDoc } from '../../model/replay/types';
import { stepView } from './views';

/**
 * step/before and step/after of a recorded run: the intended action, then the actual result.
 * (run_id, step_index) is unique: a repeat with the same content is answered again (retries are
 * safe), different content is a conflict. step/after needs its step/before.
 */

export interface StepBeforeInput {
  run_id: string;
  step_index: number;
  tool_name: string;
  tool_input: Json;
  expected_output_signature?: Json | undefined;
  metadata?: Json | undefined;
}

export async function stepBefore(c: ReplayStoreCtx, ref: ScopeRef, input: StepBeforeInput, actor: string) {
  const { runs, steps } = replayStores(c.db, ref);
  const run = await loadReplayRun(runs, input.run_id);
  assertRecorded(run);
  assertOpen(run);
  const at = nowIso(c);
  const doc: StepDoc = {
    _id: stepId(run._id, input.step_index),
    run_key: run._id,
    run_id: run.run_id,
    step_index: input.step_index,
    tool_name: input.tool_name,
    tool_input: input.tool_input,
    expected_output_signature: input.expected_output_signature ?? null,
    status: 'started',
    output_signature: null,
    error: null,
    kind: null,
    sandbox_run_id: null,
    attempts: [],
    match: null,
    metadata: input.metadata ?? null,
    actor,
    started_at: at,
    ended_at: null,
    updated_at: at,
  };
  const inserted = await steps.insert(doc);
  if (inserted) return { run_id: run.run_id, step_index: input.step_index, created: true, step: stepView(inserted) };
  const existing = (await steps.get(run._id, input.step_index))!;
  const same = existing.tool_name === doc.tool_name && sameJson(existing.tool_input, doc.tool_input) && sameJson(existing.expected_output_signature, doc.expected_output_signature);
  if (!same) {
    throw new LoreError('conflict', `step ${input.step_index} of replay run '${run.run_id}' was recorded with a different tool or input`, {
      run_id: run.run_id,
      step_index: input.step_index,
      tool_name: existing.tool_name,
    });
  }
  return { run_id: run.run_id, step_index: input.step_index, created: false, step: stepView(existing) };
}

export interface StepAfterInput {
  run_id: string;
  step_index: number;
  status: StepAfterStatus;
  output_signature?: Json | undefined;
  error?: string | undefined;
  metadata?: Json | undefined;
}

export async function stepAfter(c: ReplayStoreCtx, ref: ScopeRef, input: StepAfterInput, _actor: string) {
  const { runs, steps } = replayStores(c.db, ref);
  const run = await loadReplayRun(runs, input.run_id);
  assertRecorded(run);
  assertOpen(run);
  const existing = await steps.get(run._id, input.step_index);
  if (!existing) {
    throw invalidState(`step ${input.step_index} of replay run '${run.run_id}' has no step/before; record the intended action first`, 'not_started', {
      run_id: run.run_id,
      step_index: input.step_index,
    });
  }
  const at = nowIso(c);
  const patch = {
    status: input.status,
    output_signature: input.output_signature ?? null,
    error: input.error ?? null,
    ended_at: at,
    updated_at: at,
    ...(input.metadata ? { metadata: { ...(existing.metadata ?? {}), ...input.metadata } } : {}),
  };
  const done = existing.status === 'started' ? await steps.transition(run._id, input.step_index, ['started'], patch) : null;
  if (done) return { run_id: run.run_id, step_index: input.step_index, created: true, step: stepView(done) };
  // Already has its result (a retry, or a race with another step/after): same result → answer again.
  const current = (await steps.get(run._id, input.step_index))!;
  if (current.status === input.status && sameJson(current.output_signature, patch.output_signature) && (current.error ?? null) === patch.error) {
    return { run_id: run.run_id, step_index: input.step_index, created: false, step: stepView(current) };
  }
  throw new LoreError('conflict', `step ${input.step_index} of replay run '${run.run_id}' already has a different result (${current.status})`, {
    run_id: run.run_id,
    step_index: input.step_index,
    status: current.status,
  });
}
