import { LoreError, invalidState } from '../../contract/errors';
import { LearningOutbox } from '../../store/replay/index';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { loadReplayRun, nowIso, replayStores, type ReplayStoreCtx } from './context';
import type { LearningFeed } from './learning-feed';
import type { Json, RunDoc, RunEndStatus, RunLearning } from '../../model/replay/types';
import { runView } from './views';

/** run/start and run/end of a recorded run (contract.md §6: open → ended). */

export async function startRecordedRun(
  c: ReplayStoreCtx,
  ref: ScopeRef,
  input: { run_id?: string | undefined; goal: string; metadata?: Json | undefined; learn?: boolean | undefined },
  actor: string,
) {
  const { runs } = replayStores(c.db, ref);
  const at = nowIso(c);
  const key = uuidv7(c.clock.now().getTime());
  const doc: RunDoc = {
    _id: key,
    run_id: input.run_id ?? key,
    goal: input.goal,
    state: 'open',
    status: 'open',
    summary: null,
    source: 'recorded',
    playbook: null,
    metadata: input.metadata ?? null,
    actor,
    created_at: at,
    updated_at: at,
    ended_at: null,
    learning: null,
    ...(input.learn === false ? { learn: false as const } : {}),
    // Wall time, not the injected clock: the reconcile grace period is measured against the engine's real start (created_wall_ms).
    created_wall_ms: Date.now(),
  };
  const inserted = await runs.insert(doc);
  if (inserted) return { run_id: inserted.run_id, created: true, run: runView(inserted, []) };
  // The same run_id again: the same run when the goal agrees (a retried start), else conflict.
  const existing = await loadReplayRun(runs, doc.run_id);
  if (existing.source !== 'recorded' || existing.goal !== input.goal) {
    throw new LoreError('conflict', `replay run '${doc.run_id}' exists with a different goal or origin`, { run_id: doc.run_id, goal: existing.goal, source: existing.source });
  }
  return { run_id: existing.run_id, created: false, run: runView(existing, null, await replayStores(c.db, ref).steps.count(existing._id)) };
}

/** Steps and ends of playbook runs are written by their workflow, never through these routes. */
export function assertRecorded(run: RunDoc): void {
  if (run.source !== 'recorded') {
    throw invalidState(
      `replay run '${run.run_id}' is a ${run.source === 'playbook' ? 'playbook run' : 'shadow validation'}; its steps and end are recorded by its workflow`,
      run.status,
      {
        run_id: run.run_id,
        source: run.source,
      },
    );
  }
}

export function assertOpen(run: RunDoc): void {
  if (run.state !== 'open') {
    throw invalidState(`replay run '${run.run_id}' has ended (${run.status}); steps and ends are only recorded on an open run`, 'ended', {
      run_id: run.run_id,
      status: run.status,
    });
  }
}

/**
 * What an ended recorded run gives learning: a success, failure or partial is a learning episode
 * (its goal, its successful steps' tools in order and the files in their tool_input; docs/learning.md);
 * a cancelled run is not an attempt, and a run started with `learn: false` is a record only.
 */
function recordedLearning(run: RunDoc, status: RunEndStatus, at: string): RunLearning {
  if (run.learn === false) return { state: 'not_eligible', workflows_updated: [], reason: 'started with learn: false (a record only)', at };
  return status === 'cancelled'
    ? { state: 'not_eligible', workflows_updated: [], reason: 'cancelled runs are not learned from', at }
    : { state: 'pending', workflows_updated: [], reason: null, at };
}

export async function endRun(
  c: ReplayStoreCtx,
  ref: ScopeRef,
  input: { run_id: string; status: RunEndStatus; summary?: string | undefined },
  _actor: string,
  feed?: LearningFeed,
): Promise<{ run_id: string; run: ReturnType<typeof runView> }> {
  const { runs, steps } = replayStores(c.db, ref);
  const run = await loadReplayRun(runs, input.run_id);
  assertRecorded(run);
  const summary = input.summary ?? null;
  if (run.state === 'ended') {
    // A retried end with the same outcome is answered again; a different one is a state error.
    if (run.status === input.status && run.summary === summary) return { run_id: run.run_id, run: runView(run, await steps.list(run._id)) };
    assertOpen(run);
  }
  const at = nowIso(c);
  const learning = recordedLearning(run, input.status, at);
  // Queued before the end, as the runner does: a crash between the two leaves an entry whose run
  // is still open (the feed drops it) rather than an ended run nobody feeds.
  if (learning.state === 'pending') await new LearningOutbox(c.db).enqueue(ref, run._id, run.run_id, at);
  const ended = await runs.end(run._id, { status: input.status, summary, ended_at: at, updated_at: at, learning });
  if (!ended) return endRun(c, ref, input, _actor, feed); // ended concurrently: answer as a repeat or a state error
  // Fed at once, so the answer says what was learned (the background drain is the fallback).
  const fed = learning.state === 'pending' && feed ? await feed.feedRun(ref, ended._id) : null;
  return { run_id: ended.run_id, run: runView(fed ? { ...ended, learning: fed } : ended, await steps.list(ended._id)) };
}
