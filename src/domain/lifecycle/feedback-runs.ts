import { LoreError } from '../../contract/errors';
import type { Engine } from '../../engine/engine';
import type { Log } from '../../log';
import { scopeKey, type ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { uuidv7 } from '../../model/ids';
import { MAX_NODES_PER_NODES_RUN } from './policy';
import { NODES_WORKFLOW, nodesWorkflowId, type NodesRunInput } from './run-types';

/**
 * Feedback acts when it is given (docs/forgetting.md, "Feedback"): the nodes nodes/activate
 * touched are re-decided by an on-demand operator run (lifecycleNodesWorkflow, a Temporal
 * workflow) within seconds, instead of waiting for the next sweep.
 *
 * - Bursts coalesce: ids wait COALESCE_MS, then every id pending for the scope goes into one run
 *   (at most MAX_NODES_PER_NODES_RUN; the rest go into the next).
 * - One run per scope at a time (the workflow id is the scope's): ids that arrive while a run is
 *   going wait for it to end, then go into the next run. Another process's run on the same scope
 *   is waited for the same way.
 * - Bounded: at most MAX_PENDING_PER_SCOPE ids wait per scope; beyond that they are dropped with
 *   one warning, and the scheduled sweep decides those nodes as it decides every node.
 * - Idempotent: a node decided twice from the same inputs is not rewritten (operator.ts).
 *
 * Pending ids live in this process: if it stops before their run starts, the sweep decides them.
 * The end of a run is polled with short describe calls (not a long poll), so stop() returns
 * within one poll interval.
 */

const COALESCE_MS = 200;
const MAX_PENDING_PER_SCOPE = 10_000;
/** Polling for a run's end: from 100 ms, doubling to 2 s, for at most 10 minutes per wait. */
const POLL_FIRST_MS = 100;
const POLL_MAX_MS = 2_000;
const WAIT_MAX_MS = 10 * 60_000;
const START_ATTEMPTS = 6;
/** Waits for another run of the scope before these ids are left to the sweep. */
const MAX_CONFLICTS = 6;

interface Pending {
  ref: ScopeRef;
  ids: Set<string>;
  dropped: boolean;
}

export class FeedbackRuns {
  private readonly pending = new Map<string, Pending>();
  private readonly draining = new Map<string, Promise<void>>();
  private readonly sleepers = new Set<() => void>();
  private stopped = false;

  constructor(private readonly deps: { engine: Engine; clock: Clock; log: Log; coalesceMs?: number }) {}

  /** Queues nodes for re-decision; returns at once (the run happens in the background). */
  request(ref: ScopeRef, ids: string[]): void {
    if (this.stopped || ids.length === 0) return;
    const key = scopeKey(ref);
    let p = this.pending.get(key);
    if (!p) this.pending.set(key, (p = { ref, ids: new Set(), dropped: false }));
    for (const id of ids) {
      if (p.ids.size >= MAX_PENDING_PER_SCOPE) {
        if (!p.dropped)
          this.deps.log.warn(`lifecycle feedback: more than ${MAX_PENDING_PER_SCOPE} nodes of ${ref.tenant_id}/${ref.scope} wait for re-decision; the rest wait for the sweep`);
        p.dropped = true;
        break;
      }
      p.ids.add(id);
    }
    this.ensureDrain(key);
  }

  /** Stops queueing and waiting; runs already started go on in the worker. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pending.clear();
    for (const wake of this.sleepers) wake();
    await Promise.all([...this.draining.values()]);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.sleepers.add(done);
    });
  }

  private ensureDrain(key: string): void {
    if (this.draining.has(key) || this.stopped) return;
    const d = this.drain(key)
      .catch((err) => this.deps.log.warn(`lifecycle feedback run failed: ${(err as Error).message}`))
      .finally(() => {
        this.draining.delete(key);
        // Ids that arrived after the loop's last look start the next drain.
        if ((this.pending.get(key)?.ids.size ?? 0) > 0) this.ensureDrain(key);
      });
    this.draining.set(key, d);
  }

  private async drain(key: string): Promise<void> {
    await this.sleep(this.deps.coalesceMs ?? COALESCE_MS);
    for (;;) {
      const p = this.pending.get(key);
      if (this.stopped || !p || p.ids.size === 0) {
        this.pending.delete(key);
        return;
      }
      const ids = [...p.ids].slice(0, MAX_NODES_PER_NODES_RUN);
      for (const id of ids) p.ids.delete(id);
      p.dropped = false;
      await this.runOnce(p.ref, ids);
    }
  }

  /** Until the workflow is no longer running (or it cannot be asked, or the wait is too long). */
  private async waitForEnd(workflowId: string): Promise<void> {
    // Wall time, not the injected clock: a real polling deadline.
    const deadline = Date.now() + WAIT_MAX_MS;
    let delay = POLL_FIRST_MS;
    while (!this.stopped && Date.now() < deadline) {
      const d = await this.deps.engine.describe(workflowId).catch(() => null);
      if (!d || d.state !== 'running') return;
      await this.sleep(delay);
      delay = Math.min(delay * 2, POLL_MAX_MS);
    }
  }

  /** Starts one run and waits for it to end; waits for a run already going on the scope first. */
  private async runOnce(ref: ScopeRef, ids: string[]): Promise<void> {
    const workflowId = nodesWorkflowId(ref.tenant_id, ref.scope);
    const input: NodesRunInput = { tenant_id: ref.tenant_id, scope: ref.scope, run_id: uuidv7(this.deps.clock.now().getTime()), node_ids: ids, trigger: 'feedback' };
    let conflicts = 0;
    let failures = 0;
    while (!this.stopped) {
      try {
        await this.deps.engine.start({
          workflowType: NODES_WORKFLOW,
          workflowId,
          args: [input],
          labels: { tenant_id: ref.tenant_id, scope: ref.scope, kind: 'lifecycle' },
          summary: `lifecycle re-decision of ${ids.length} node(s) of ${ref.tenant_id}/${ref.scope} after feedback`,
        });
        await this.waitForEnd(workflowId);
        return;
      } catch (err) {
        const conflict = err instanceof LoreError && err.code === 'conflict';
        if (conflict ? ++conflicts > MAX_CONFLICTS : ++failures >= START_ATTEMPTS) {
          this.deps.log.warn(
            `lifecycle feedback: could not start a re-decision of ${ids.length} node(s) of ${ref.tenant_id}/${ref.scope} (${(err as Error).message}); the sweep will decide them`,
          );
          return;
        }
        // A run of this scope is going (ours or another process's): these ids go into the next one.
        if (conflict) {
          await this.waitForEnd(workflowId);
          await this.sleep(POLL_FIRST_MS);
        } else await this.sleep(500 * 2 ** (failures - 1));
      }
    }
  }
}
