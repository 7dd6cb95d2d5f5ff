import type { Log } from '../../log';
import { LOCAL_EMBEDDINGS_MISSING } from '../../retrieval/embedders/resolve';
import type { Database } from '../../store/database';
import type { Readiness } from '../family-module';
import type { Clock } from '../../model/clock';
import type { LifecycleServices } from '../lifecycle/module';
import type { MemoryServices } from '../memory/module';
import type { LearningCtx, LearningSettings } from './context';
import type { DistillDeps } from './distill';
import { createLearner } from './learner';
import { Persist } from './persist';
import { RemoteFollower } from './remote';
import { ScopeRegistry, storeSource } from './scopes';
import { createLearningServices, type LearningServices } from './services';
import { GoalVectors } from './vectors';
import { Warmup } from './warm';
import { WorkflowWriter } from './workflow-writer';

export type { LearningServices } from './services';

/**
 * The learning family's runtime: per-scope learning state, the learner on memory's write path
 * (learner.ts), the follower of other processes' writes, optional goal embeddings, and the
 * services other families call (services.ts). It builds the family's context (context.ts).
 */

/** The error learning reports when LORE_EMBEDDINGS=local is set but the optional encoder is not installed. */
export { LOCAL_EMBEDDINGS_MISSING };

const BACKGROUND_FOLLOW_MS = 1000;

export interface LearningRuntime {
  ctx: LearningCtx;
  services: LearningServices;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The start-up warm-up of learned scopes (GET /health `indexes.learning`). */
  readiness(): Readiness;
}

export function createLearningRuntime(deps: {
  settings: LearningSettings;
  db: Database;
  clock: Clock;
  log: Log;
  memory: MemoryServices;
  lifecycle: LifecycleServices;
}): LearningRuntime {
  const { memory, db, clock } = deps;
  const log = deps.log.child('learning');
  const buildWaitMs = deps.settings.buildWaitMs;
  let vectors: GoalVectors | null = null;
  // Goal embeddings of a scope's workflows are queued once, when the scope has loaded.
  const scopes = new ScopeRegistry(storeSource(memory, db), (ref, s) => vectors?.enqueueAll(ref, s));
  let embeddingsProblem: string | null = null;
  // The follower and Persist reference each other through this closure (local seqs).
  let follower: RemoteFollower | null = null;
  const persist = new Persist(memory, clock, (seq) => follower?.local(seq));
  const writer = new WorkflowWriter(persist, (err) => log.warn(`learning: a workflow change could not be stored: ${err.message}`));
  const distillDeps: DistillDeps = {
    memory,
    persist,
    writer,
    onWorkflowChanged: (ref, w) => {
      const s = scopes.peek(ref);
      if (s && vectors) vectors.enqueue(ref, s, w);
    },
  };

  const learner = createLearner({ db, clock, log, scopes, writer, distillDeps, buildWaitMs, follower: () => follower });

  const ctx: LearningCtx = {
    memory,
    lifecycle: deps.lifecycle,
    db,
    clock,
    log,
    persist,
    get vectors() {
      return vectors;
    },
    distillDeps,
    async scope(ref) {
      await follower?.sync();
      return scopes.peek(ref) ?? (await scopes.get(ref));
    },
    async scopeForReading(ref) {
      await follower?.sync();
      return scopes.forReading(ref, buildWaitMs);
    },
  };

  const services = createLearningServices(ctx, {
    async idle() {
      await vectors?.idle();
    },
    similarity() {
      return { dense: vectors !== null, provider: deps.settings.embeddings.provider, problem: embeddingsProblem ?? vectors?.lastError ?? null };
    },
    stats() {
      return { scopes_loaded: scopes.loadedCount, follower: follower ? follower.statsOf() : null, goal_vectors: vectors ? vectors.stats() : null };
    },
  });

  let unsubscribe: (() => void) | null = null;
  let unwatch: (() => void) | null = null;
  let background: NodeJS.Timeout | null = null;
  const warmup = new Warmup({ memory, scopes, log });
  return {
    readiness: () => warmup.readiness(),
    ctx,
    services,
    async start() {
      const f = new RemoteFollower(memory.store, learner.onRemote, (err) => log.warn(`learning catch-up failed: ${err.message}`));
      follower = f;
      unwatch = memory.store.watchAbandonedSeqs((first, last) => f.abandoned(first, last));
      f.start(await memory.store.currentSeq());
      unsubscribe = memory.onWrite(learner.onWrite);
      // Other processes' writes are learned from in the background, a second's worth at a time, so
      // a read never finds a long backlog to catch up on first (docs/learning.md, "What is learned from").
      let busy = false;
      background = setInterval(() => {
        // Wall time, not the injected clock: how often the background follower really runs.
        if (busy || Date.now() - f.lastPass < BACKGROUND_FOLLOW_MS) return;
        busy = true;
        f.sync()
          .catch((err) => log.warn(`learning catch-up failed: ${(err as Error).message}`))
          .finally(() => (busy = false));
      }, BACKGROUND_FOLLOW_MS);
      background.unref();
      // The encoder memory decided on at its start (memory starts first): one per process.
      const encoder = memory.encoder();
      if (encoder.embedder) vectors = new GoalVectors(encoder.embedder, log, encoder.vectorCache);
      else if (encoder.status.status === 'unavailable') {
        // Configured but unusable: say so once, with the fix (memory's log says it too); learning stays lexical.
        embeddingsProblem = encoder.status.detail ?? 'embeddings unavailable';
        if (deps.settings.embeddings.explicit) log.error(`learning: ${embeddingsProblem}`);
      }
      // After the encoder: warmed scopes queue their workflows' goal embeddings.
      warmup.start();
    },
    async stop() {
      if (background) clearInterval(background);
      await warmup.stop();
      unwatch?.();
      unsubscribe?.();
      await writer.flush();
      vectors?.stop();
    },
  };
}
