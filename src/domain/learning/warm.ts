import type { Readiness } from '../family-module';
import type { Log } from '../../log';
import { refOf, type ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/module';
import type { NodeKind } from '../../model/memory/node';
import { plan } from './planner';
import { taskRequest } from './request';
import type { ScopeLearning } from './scope-state';
import type { ScopeRegistry } from './scopes';

/**
 * The start-up warm-up of learning (docs/learning.md, "Learning index"): every scope that has
 * learned something (a workflow, pattern or policy memory) is loaded, one after another in the
 * background, so the first planning request of a scope after a restart does not read its learned
 * state first; in the first few, one task start is computed and thrown away so the planner's code
 * is compiled before a real request comes. GET /health reports the progress.
 */

const WARM_KINDS: NodeKind[] = ['workflow', 'pattern', 'policy_memory'];
/** Warmed scopes in which a task start is computed at start, and how many times. */
const PRIMED_SCOPES = 3;
const PRIME_ROUNDS = 4;

/**
 * Whether a scope has learned something: one query per kind, each answered from the (tenant,
 * scope, kind, _id) index in order; a query over the three kinds at once made the local server
 * read every learned node of the scope to sort them (seconds at 3 000 workflows).
 */
async function hasLearned(memory: MemoryServices, ref: ScopeRef): Promise<boolean> {
  for (const kind of WARM_KINDS) if ((await memory.nodes(ref).find({ kinds: [kind] }, { limit: 1, access: false })).length > 0) return true;
  return false;
}

export class Warmup {
  private state: Readiness = { status: 'building', detail: 'not started' };
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      memory: MemoryServices;
      scopes: ScopeRegistry;
      log: Log;
    },
  ) {}

  readiness(): Readiness {
    return this.state;
  }

  start(): void {
    this.running = this.run().catch((err) => {
      this.state = { status: 'failed', detail: (err as Error).message };
      this.deps.log.warn(`learning: warming up scopes failed (they load on first use): ${(err as Error).message}`);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async run(): Promise<void> {
    const { memory, scopes } = this.deps;
    const refs = memory.index.scopes();
    let loaded = 0;
    let checked = 0;
    // Wall time, not the injected clock: how long the warm start really took (for the log and /health).
    const t0 = Date.now();
    for (const r of refs) {
      if (this.stopped) return;
      this.state = { status: 'building', detail: `${checked} of ${refs.length} scopes checked, ${loaded} with learned state loaded` };
      const ref = refOf(r);
      checked += 1;
      if (scopes.peek(ref)) continue;
      if (!(await hasLearned(memory, ref))) continue;
      this.state = { status: 'building', detail: `loading the learned state of scope ${ref.scope} (${checked} of ${refs.length} scopes checked, ${loaded} loaded)` };
      const s = await scopes.get(ref);
      loaded += 1;
      if (loaded <= PRIMED_SCOPES) await this.prime(ref, s);
    }
    this.state = { status: 'ready', detail: `${loaded} of ${refs.length} scopes had learned state (loaded in ${Date.now() - t0} ms)` };
    if (loaded > 0) this.deps.log.info(`learning: ${this.state.detail}`);
  }

  /**
   * One task start computed and thrown away (a learned workflow's own goal and kind): the search,
   * the planner and the full-text lookup of single executions then run as compiled code when the
   * first real request comes (the first planning request after a restart at 100 000 nodes took
   * ~3× a warm one's CPU without it). No side effects: plan() reads without access statistics.
   */
  private async prime(ref: ScopeRef, s: ScopeLearning): Promise<void> {
    const w = s.workflows.values().next().value;
    if (!w) return;
    try {
      const r = taskRequest({ query_text: w.slot.goal, context: { goal: w.slot.goal, task_kind: w.slot.task_kind } });
      // Every other round offers no tool the workflow uses, so the full-text fallback runs too.
      for (let i = 0; i < PRIME_ROUNDS; i += 1) await plan(this.deps.memory, ref, s, { ...r, candidates: i % 2 === 0 ? [] : ['lore-prime'] });
    } catch (err) {
      this.deps.log.warn(`learning: priming a scope failed: ${(err as Error).message}`);
    }
  }
}
