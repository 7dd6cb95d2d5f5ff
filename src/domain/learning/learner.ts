import type { Log } from '../../log';
import type { Database } from '../../store/database';
import { RuleRegistry } from '../../store/learning';
import type { StoredNode } from '../../store/memory/nodes';
import { refOf, scopeKey, type ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import type { MemoryEdge } from '../../model/memory/node';
import type { WriteEvent } from '../memory/write';
import { within, yieldToIo } from '../turn';
import { distill, type DistillDeps } from './distill';
import { observationOf } from './observe';
import { LEARNING_SOURCE } from './persist';
import type { RemoteFollower } from './remote';
import { RULE_SLOT } from './rule-model';
import type { ScopeLearning } from './scope-state';
import type { ScopeRegistry } from './scopes';
import type { WorkflowWriter } from './workflow-writer';
import type { Attempt } from './types';

/**
 * Learning from what is written: on memory's write path in this process (onWrite), and from the
 * nodes other processes wrote as the follower finds them (onRemote). Each execution is learned
 * from once per revision; rules register themselves; the rest updates the scope's learned state.
 */

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

export interface LearnerDeps {
  db: Database;
  clock: Clock;
  log: Log;
  scopes: ScopeRegistry;
  writer: WorkflowWriter;
  distillDeps: DistillDeps;
  /** LORE_BUILD_WAIT: how long a write waits for its scope's learned state to load. */
  buildWaitMs: number;
  /** The follower of other processes' writes once started (local writes let its watermark pass them). */
  follower: () => RemoteFollower | null;
}

export function createLearner(deps: LearnerDeps) {
  const { db, clock, log, scopes, writer, distillDeps } = deps;
  const seen = new SeenSources();

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
    for (const w of ev.nodes) deps.follower()?.local(w.node.seq, w.node.id);
    if (ev.source === LEARNING_SOURCE) return;
    const fresh = ev.nodes.filter((w) => w.outcome !== 'deduplicated').map((w) => w.node);
    if (fresh.length === 0) return;
    const ready = scopes.peek(ev.ref);
    if (ready) return { workflows_updated: await learn(ev.ref, ready, fresh, ev.edges, ev.actor) };
    // The scope's learned state is loading (its first use after a start): the write is stored and
    // indexed already; it waits for its learning until LORE_BUILD_WAIT after the load began
    // (scopes.waitLeft), after that not at all, and its learning follows once the scope has loaded.
    let answered = false;
    const left = scopes.waitLeft(ev.ref, deps.buildWaitMs);
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
      const ref = refOf(list[0]!);
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

  return { onWrite, onRemote };
}
