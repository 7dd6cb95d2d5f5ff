import type { ScopeRef } from '../../store/scope';
import type { Persist } from './persist';
import { renderWorkflow } from './render';
import type { ScopeLearning } from './scope-state';
import { workflowConfidence, WORKFLOW_SLOT, type WorkflowSlot } from './workflow-model';

/**
 * Persists workflow changes write-through, coalescing bursts: the first change of a workflow in a
 * window is written at once (before the write that caused it is answered); further changes inside
 * the window update the in-process state at once and reach the store in one write at the window's
 * end. A family observed by many concurrent writes (a busy task) then costs one store write per
 * window instead of one per execution, while a quiet one is always written through. stop()
 * flushes what is pending.
 *
 * A write of many nodes at once is learned as one batch (`batch()`): its observations change the
 * in-process state as they come, and each workflow they changed is stored once, with its latest
 * state, before the write is answered. Without it a batch whose observations fall into a few
 * families rewrites each family's workflow once per observation (the window is shorter than the
 * time a large batch takes to learn).
 */

/** Where distillation saves a workflow change (the writer itself, or one batch of it). */
export interface WorkflowSaver {
  /** Returns the workflow id once the change is applied in memory (and, unless held, stored). */
  save(ref: ScopeRef, state: ScopeLearning, id: string, slot: WorkflowSlot): Promise<string | null>;
}

/** The workflow changes of one batch, held in memory until `end()` stores each once. */
export interface WorkflowBatch extends WorkflowSaver {
  /** Stores every workflow the batch changed, with its state at that moment. */
  end(): Promise<void>;
}

const WINDOW_MS = 250;

interface Pending {
  ref: ScopeRef;
  state: ScopeLearning;
  slot: WorkflowSlot;
}

export class WorkflowWriter implements WorkflowSaver {
  private readonly lastWrite = new Map<string, number>();
  private readonly pending = new Map<string, Pending>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly persist: Persist,
    private readonly onError: (err: Error) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Returns the workflow id once the change is applied in memory (and, outside a burst, stored). */
  async save(ref: ScopeRef, state: ScopeLearning, id: string, slot: WorkflowSlot): Promise<string | null> {
    const queued = this.pending.get(id);
    if (queued) {
      queued.slot = slot;
      state.setWorkflowSlot(id, slot);
      return id;
    }
    const t = this.now();
    const last = this.lastWrite.get(id);
    if (last === undefined || t - last >= WINDOW_MS) {
      this.lastWrite.set(id, t);
      return this.write(ref, state, id, slot);
    }
    state.setWorkflowSlot(id, slot);
    this.pending.set(id, { ref, state, slot });
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        void this.flushOne(id);
      },
      WINDOW_MS - (t - last),
    );
    this.timers.add(timer);
    return id;
  }

  private async write(ref: ScopeRef, state: ScopeLearning, id: string, slot: WorkflowSlot): Promise<string | null> {
    const archived = state.workflows.get(id)?.node.tier === 'archive';
    const node = await this.persist.update(ref, id, WORKFLOW_SLOT, slot, renderWorkflow(slot), workflowConfidence(slot), archived);
    if (!node) return null;
    // A change queued while this write was in flight wins in memory; its own write follows.
    const newer = this.pending.get(id);
    state.apply(node);
    if (newer) state.setWorkflowSlot(id, newer.slot);
    return node.id;
  }

  /**
   * Stores a workflow's latest in-memory state (`fallback` when the state no longer holds it),
   * serial with the scope's other learning changes like any mutation. A change waiting for its
   * window is part of that state, so it is no longer pending.
   */
  private async storeLatest(ref: ScopeRef, state: ScopeLearning, id: string, fallback?: WorkflowSlot): Promise<void> {
    this.pending.delete(id);
    this.lastWrite.set(id, this.now());
    await state.serial(async () => {
      // The whole slot: the state keeps it while the change is not stored.
      const slot = state.fullWorkflow(id) ?? fallback;
      if (slot) await this.write(ref, state, id, slot);
    });
  }

  private async flushOne(id: string): Promise<void> {
    const p = this.pending.get(id);
    if (!p) return;
    try {
      await this.storeLatest(p.ref, p.state, id, p.slot);
    } catch (err) {
      this.onError(err as Error);
    }
  }

  /** A batch of changes (see the class comment). */
  batch(): WorkflowBatch {
    const held = new Map<string, { ref: ScopeRef; state: ScopeLearning }>();
    return {
      save: async (ref, state, id, slot) => {
        if (!state.workflows.get(id)) return null;
        state.setWorkflowSlot(id, slot);
        held.set(id, { ref, state });
        return id;
      },
      end: async () => {
        for (const [id, { ref, state }] of held) await this.storeLatest(ref, state, id);
      },
    };
  }

  async flush(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all([...this.pending.keys()].map((id) => this.flushOne(id)));
  }
}
