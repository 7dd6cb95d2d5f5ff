import type { Log } from '../../log';
import type { Database } from '../../store/database';
import { LearningOutbox } from '../../store/replay/index';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import type { LearningServices } from '../learning/module';
import { replayStores } from './context';
import type { RunLearning } from '../../model/replay/types';

/** A recorded run's task kind, when its metadata names one (`task_kind`, or `kind`). */
function taskKindOf(metadata: Record<string, unknown> | null): string | null {
  const k = metadata?.task_kind ?? metadata?.kind;
  return typeof k === 'string' && k.trim() !== '' ? k.trim() : null;
}

/** Entries tried this many times without success are given up (recorded `failed` on the run). */
const MAX_ATTEMPTS = 10;
const DRAIN_EVERY_MS = 2000;

/**
 * Feeds successful runs of active playbooks, and recorded runs that ended success, failure or
 * partial, to workflow learning as replay_learning_episode observations (contract.md §3, §6),
 * through LearningServices.recordReplayEpisode (idempotent per run_id). Recorded runs are fed
 * before run/end answers (record-run.ts). The worker ends playbook runs and queues them (runner.ts
 * finishRun → the learning outbox); learning lives in the API process, so the API drains the
 * queue: at once after playbooks/run, when runs/get reads a run whose feed is pending, and every
 * 2 s in the background for the rest (dispatch, automation).
 */
export class LearningFeed {
  private readonly outbox: LearningOutbox;
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private readonly inFlight = new Map<string, Promise<RunLearning | null>>();

  constructor(private readonly deps: { db: Database; clock: Clock; log: Log; learning: LearningServices }) {
    this.outbox = new LearningOutbox(deps.db);
  }

  start(): void {
    this.timer ??= setInterval(() => void this.drain(), DRAIN_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.draining;
  }

  drain(): Promise<void> {
    this.draining ??= (async () => {
      try {
        for (const e of await this.outbox.peek(50)) await this.feedRun(e.ref, e.runKey, e.attempts);
      } catch (err) {
        this.deps.log.warn(`replay learning feed: ${(err as Error).message}`);
      } finally {
        this.draining = null;
      }
    })();
    return this.draining;
  }

  /** Feeds one run now if its feed is pending; returns its learning record. */
  feedRun(ref: ScopeRef, runKey: string, attempts = 0): Promise<RunLearning | null> {
    let p = this.inFlight.get(runKey);
    if (!p) {
      p = this.feed(ref, runKey, attempts).finally(() => this.inFlight.delete(runKey));
      this.inFlight.set(runKey, p);
    }
    return p;
  }

  private async feed(ref: ScopeRef, runKey: string, attempts: number): Promise<RunLearning | null> {
    const { runs, steps } = replayStores(this.deps.db, ref);
    const run = await runs.getByKey(runKey);
    if (!run || run.learning?.state !== 'pending') {
      await this.outbox.done(runKey);
      return run?.learning ?? null;
    }
    const at = this.deps.clock.now().toISOString();
    try {
      const all = await steps.list(runKey);
      const r = await this.deps.learning.recordReplayEpisode(
        ref,
        {
          run_id: run.run_id,
          playbook_id: run.playbook?.playbook_id ?? null,
          goal: run.goal,
          task_kind: taskKindOf(run.metadata),
          // Playbook runs are queued only on success; a recorded run with its own ending.
          status: run.source === 'recorded' ? run.status : 'success',
          steps: all.filter((s) => s.status === 'success').map((s) => ({ tool_name: s.tool_name, tool_input: s.tool_input })),
          at: run.ended_at ?? at,
        },
        run.actor,
      );
      const learning: RunLearning = { state: 'fed', workflows_updated: r.workflows_updated, reason: null, at };
      await runs.setLearning(runKey, learning, at);
      await this.outbox.done(runKey);
      return learning;
    } catch (err) {
      this.deps.log.warn(`replay run '${run.run_id}' could not be fed to learning: ${(err as Error).message}`);
      if (attempts + 1 >= MAX_ATTEMPTS) {
        const learning: RunLearning = { state: 'failed', workflows_updated: [], reason: (err as Error).message, at };
        await runs.setLearning(runKey, learning, at);
        await this.outbox.done(runKey);
        return learning;
      }
      await this.outbox.failed(runKey);
      return run.learning;
    }
  }
}
