import type { Log } from '../../log';
import { LOCAL_EMBEDDINGS_MISSING } from '../../retrieval/embedders/resolve';
import type { Database } from '../../store/database';
import { RuleRegistry } from '../../store/learning';
import type { StoredNode } from '../../store/memory/nodes';
import type { Readiness } from '../family-module';
import { scopeKey, scopeRef, type ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import type { LifecycleServices } from '../lifecycle/module';
import type { MemoryServices } from '../memory/module';
import type { MemoryEdge } from '../../model/memory/node';
import type { WriteEvent } from '../memory/write';
import { within, yieldToIo } from '../turn';
import { distill, promoteWorkflowsForPlaybook, type DistillDeps } from './distill';
import { observationOf } from './observe';
import { LEARNING_SOURCE, Persist } from './persist';
import { RemoteFollower } from './remote';
import { replayObservation, replaySourceId, type ReplayEpisode } from './replay';
import { RULE_SLOT } from './rule-model';
import type { ScopeLearning } from './scope-state';
import { ScopeRegistry, storeSource } from './scopes';
import { GoalVectors } from './vectors';
import { Warmup } from './warm';
import { WorkflowWriter } from './workflow-writer';
import type { Attempt } from './types';
import type { LearningCtx, LearningSettings } from './context';

/**
 * The learning family's runtime: per-scope learning state, the write listener that learns on
 * memory's write path, the follower of other processes' writes, optional goal embeddings, and the
 * services other families call (replay).
 */

/** What the learning family offers other families. */
export interface LearningServices {
  /**
   * Feeds one replay run into workflow learning as a `replay_learning_episode` observation
   * (contract.md §6: a successful run of a promoted playbook). Idempotent per run_id. Returns the
   * workflows created or changed.
   */
  recordReplayEpisode(ref: ScopeRef, episode: ReplayEpisode, actor: string): Promise<{ workflows_updated: string[] }>;
  /**
   * A playbook version changed status. On `active`, every workflow that observed a run of the
   * playbook, or whose provenance holds its source run (`source_run_id`, as fed through
   * recordReplayEpisode), becomes stable (stable_reason playbook_active); distillation_origin is
   * kept. Other statuses change nothing. Returns the workflows changed.
   */
  playbookStatusChanged(
    ref: ScopeRef,
    p: { playbook_id: string; status: string; source_run_id?: string | null; source_node_ids?: string[] },
  ): Promise<{ workflows_updated: string[] }>;
  /** Resolves when background work (goal embeddings) queued so far is done: for tests and benchmarks. */
  idle(): Promise<void>;
  /** How task similarity is computed: with dense goal vectors, or lexical only (and why, when embeddings were configured but are unusable). */
  similarity(): { dense: boolean; provider: string; problem: string | null };
  /** Diagnostics: scopes loaded, and the follower of other processes' writes (its watermark, holes, nodes it loaded). */
  stats(): {
    scopes_loaded: number;
    follower: ReturnType<RemoteFollower['statsOf']> | null;
    /** Goal embeddings: texts the encoder ran, vectors read back from the vector cache, workflows waiting (null without an encoder). */
    goal_vectors: ReturnType<GoalVectors['stats']> | null;
  };
}

/** The error learning reports when LORE_EMBEDDINGS=local is set but the optional encoder is not installed. */
export { LOCAL_EMBEDDINGS_MISSING };

const BACKGROUND_FOLLOW_MS = 1000;
/** Writes that came while their scope loaded, learned from at once after it has (see onWrite). */
const DEFERRED_AT_ONCE = 4;

/** At most `size` tasks at a time; the others wait their turn in arrival order. */
class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

export interface LearningRuntime {
  ctx: LearningCtx;
  services: LearningServices;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The start-up warm-up of learned scopes (GET /health `indexes.learning`). */
  readiness(): Readiness;
}

/** Keys of executions already looked at (id + revision), so a metadata update is not re-learned. */
class SeenSources {
  private readonly seen = new Set<string>();
  constructor(private readonly max = 100_000) {}
  /** True the first time a key is offered. */
  offer(key: string): boolean {
    if (this.seen.has(key)) return false;
    if (this.seen.size >= this.max) this.seen.delete(this.seen.values().next().value as string);
    this.seen.add(key);
    return true;
  }
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
  const seen = new SeenSources();
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

  const sessionGoal = (state: ScopeLearning, n: StoredNode, edges: MemoryEdge[]): string | null => {
    const e = edges.find((x) => x.src === n.id && x.type === 'part_of');
    const session = e ? state.carriers.get(e.dst) : state.sessionOf(n);
    return session ? (session.title ?? session.summary) : null;
  };

  /** Learns from nodes written in one scope (locally or by another process). */
  async function learn(ref: ScopeRef, state: ScopeLearning, nodes: StoredNode[], edges: MemoryEdge[], actor: string): Promise<string[]> {
    // Several nodes at once: each workflow they change is stored once, at the end (workflow-writer.ts).
    const batch = nodes.length > 1 ? writer.batch() : null;
    try {
      return await learnEach(ref, state, nodes, edges, actor, batch ? { ...distillDeps, writer: batch } : distillDeps);
    } finally {
      await batch?.end();
    }
  }

  async function learnEach(ref: ScopeRef, state: ScopeLearning, nodes: StoredNode[], edges: MemoryEdge[], actor: string, deps: DistillDeps): Promise<string[]> {
    const updated: string[] = [];
    for (const n of nodes) {
      state.apply(n);
      if (n.type === 'rule' && n.slots[RULE_SLOT]) {
        const slot = n.slots[RULE_SLOT] as { rule_id?: unknown };
        await new RuleRegistry(db, ref).register(n.id, typeof slot.rule_id === 'string' ? slot.rule_id : n.id, clock.now().toISOString());
        continue;
      }
      if (!seen.offer(`${n.id}:${n.revision}`)) continue;
      const obs = observationOf(n, { sessionGoal: n.kind === 'session_event' ? sessionGoal(state, n, edges) : null, tools: state.toolNames });
      if (!obs) continue;
      await yieldToIo();
      // A carrier written again under its key (a handoff's anchor, a session's id) is a new carrier
      // state: a session's revision gets its own source id, as a handoff's has (observe.ts), and
      // the previous revision's observation stays the one recall finds for the node while this
      // one is learned, so the two states can found a workflow together.
      const revised = n.revision > 1 && (n.kind === 'session' || n.kind === 'handoff');
      if (revised && n.kind === 'session') obs.source_id = `${n.id}#r${n.revision}`;
      if (!revised) state.rememberObservation(n.id, obs);
      state.noteTools(obs.steps.map((s) => s.tool));
      // Work with no stated outcome is practice: a workflow counts it as progress, like a
      // continuity carrier's (task start's vote still weighs it below a stated success).
      const attempt: Attempt = { ...obs, outcome: obs.outcome ?? 'success' };
      try {
        for (const id of await distill(deps, ref, state, attempt, actor)) if (!updated.includes(id)) updated.push(id);
      } catch (err) {
        log.warn(`learning from node ${n.id} failed: ${(err as Error).message}`);
        throw err;
      } finally {
        if (revised) state.rememberObservation(n.id, obs);
      }
    }
    return updated;
  }

  /**
   * Learning from writes that came while their scope was still loading runs once it has loaded, a
   * few at a time (DEFERRED_AT_ONCE), beside the writes that come after, which are learned from as
   * usual (concurrent writes are learned from concurrently either way; distillation's serial
   * section orders the changes). One queue per scope would be slower than the writes arriving and
   * never empty.
   */
  const deferredSlots = new Slots(DEFERRED_AT_ONCE);

  async function onWrite(ev: WriteEvent) {
    for (const w of ev.nodes) follower?.local(w.node.seq, w.node.id);
    if (ev.source === LEARNING_SOURCE) return;
    const fresh = ev.nodes.filter((w) => w.outcome !== 'deduplicated').map((w) => w.node);
    if (fresh.length === 0) return;
    const ready = scopes.peek(ev.ref);
    if (ready) return { workflows_updated: await learn(ev.ref, ready, fresh, ev.edges, ev.actor) };
    // The scope's learned state is loading (its first use after a start): the write is stored and
    // indexed already; it waits for its learning until LORE_BUILD_WAIT after the load began
    // (scopes.waitLeft), after that not at all, and its learning follows once the scope has loaded.
    let answered = false;
    const left = scopes.waitLeft(ev.ref, buildWaitMs);
    const job = scopes.get(ev.ref).then((state) => deferredSlots.run(() => learn(ev.ref, state, fresh, ev.edges, ev.actor)));
    job.catch((err: Error) => {
      if (answered) log.warn(`learning from commit ${ev.commit_id} (after the scope loaded) failed: ${err.message}`);
    });
    const done = await within(job, left);
    if (done) return { workflows_updated: done.value };
    answered = true;
    return {
      warnings: [
        {
          code: 'learning_deferred',
          message: `this scope's learned state is still loading after a start; learning from this write goes on in the background once it has loaded (GET /health indexes.learning)`,
        },
      ],
    };
  }

  /** Changes other processes made: refresh learned state; learn from new executions. */
  async function onRemote(nodes: StoredNode[]): Promise<void> {
    const byScope = new Map<string, StoredNode[]>();
    for (const n of nodes) {
      const k = scopeKey(n);
      const list = byScope.get(k);
      if (list) list.push(n);
      else byScope.set(k, [n]);
    }
    for (const list of byScope.values()) {
      const ref = scopeRef(list[0]!.tenant_id, list[0]!.scope);
      const loaded = scopes.peek(ref);
      // Learned state first, so an execution the other process already learned from is seen as counted.
      const learnedKinds = new Set(['workflow', 'pattern', 'policy_memory']);
      if (loaded) for (const n of list) if ((n.kind && learnedKinds.has(n.kind)) || n.type === 'rule') loaded.apply(n);
      const executions = list.filter((n) => !(n.kind && learnedKinds.has(n.kind)) && n.type !== 'rule');
      if (executions.length === 0) continue;
      const state = loaded ?? (await scopes.get(ref));
      await learn(ref, state, executions, [], executions[0]!.actor);
    }
  }

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

  const services: LearningServices = {
    async recordReplayEpisode(ref, episode, actor) {
      const obs = replayObservation(episode);
      if (!obs) return { workflows_updated: [] };
      const state = await ctx.scope(ref);
      state.noteTools(obs.steps.map((s) => s.tool));
      return { workflows_updated: await distill(distillDeps, ref, state, obs, actor) };
    },
    async playbookStatusChanged(ref, p) {
      if (p.status !== 'active') return { workflows_updated: [] };
      const state = await ctx.scope(ref);
      const sources = [...(p.source_run_id ? [replaySourceId(p.source_run_id)] : []), ...(p.source_node_ids ?? [])];
      return {
        workflows_updated: await promoteWorkflowsForPlaybook(distillDeps, ref, state, { playbook_id: p.playbook_id, source_ids: sources, at: clock.now().toISOString() }),
      };
    },
    async idle() {
      await vectors?.idle();
    },
    similarity() {
      return { dense: vectors !== null, provider: deps.settings.embeddings.provider, problem: embeddingsProblem ?? vectors?.lastError ?? null };
    },
    stats() {
      return { scopes_loaded: scopes.loadedCount, follower: follower ? follower.statsOf() : null, goal_vectors: vectors ? vectors.stats() : null };
    },
  };

  let unsubscribe: (() => void) | null = null;
  let unwatch: (() => void) | null = null;
  let background: NodeJS.Timeout | null = null;
  const warmup = new Warmup({ memory, scopes, log });
  return {
    readiness: () => warmup.readiness(),
    ctx,
    services,
    async start() {
      const f = new RemoteFollower(memory.store, onRemote, (err) => log.warn(`learning catch-up failed: ${err.message}`));
      follower = f;
      unwatch = memory.store.watchAbandonedSeqs((first, last) => f.abandoned(first, last));
      f.start(await memory.store.currentSeq());
      unsubscribe = memory.onWrite(onWrite);
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
