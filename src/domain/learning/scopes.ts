import type { Database } from '../../store/database';
import { RuleRegistry } from '../../store/learning';
import type { StoredNode } from '../../store/memory/nodes';
import { scopeKey, type ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/module';
import type { NodeKind } from '../../model/memory/node';
import { within, yieldToIo } from '../turn';
import { ScopeLearning } from './scope-state';
import { WORKFLOW_SLOT } from './workflow-model';

/**
 * The learning state of every scope this process has touched. A scope is loaded on first use
 * (or by the start-up warm-up, warm.ts) with indexed queries (the node store's (tenant, scope,
 * kind) index; the rule registry), never a scan of the scope's evidence, so loading cost follows
 * how much was learned, not how much was written. Concurrent first uses share one load.
 *
 * A scope with thousands of learned workflows takes seconds to load (the local server decodes
 * every stored workflow). Reads that must not wait that long take the state as far as it has
 * loaded (`forReading`): what guards a task (rules, policies) loads first, then patterns, then
 * workflows page by page, so a partial state is a prefix of the whole one and says how far it got.
 */

const PAGE = 500;
const APPLY_SLICE = 50;
const HEAD_OMITS = [`slots.${WORKFLOW_SLOT}.recent`, `slots.${WORKFLOW_SLOT}.sequences`, 'text'];
/** In load order: the few entries that can deny a tool first, the many workflows after. */
const LOADED_KINDS: NodeKind[] = ['policy_memory', 'pattern', 'workflow', 'handoff', 'session'];

/** Where a scope's learned state is read from (the store; a test can hold a load back). */
export interface LearnedStateSource {
  currentSeq(): Promise<number>;
  /** One page of a scope's nodes of one kind, in id order after `after`. */
  page(ref: ScopeRef, kind: NodeKind, after: string | undefined, limit: number): Promise<StoredNode[]>;
  countSessionEvents(ref: ScopeRef): Promise<number>;
  /** The scope's rule nodes (the rule registry names them). */
  rules(ref: ScopeRef): Promise<StoredNode[]>;
}

export function storeSource(memory: MemoryServices, db: Database): LearnedStateSource {
  return {
    currentSeq: () => memory.store.currentSeq(),
    // No access statistics (learned state does not show them); workflows without the lists only a
    // change reads (heads, workflow-model.ts), about a third of a workflow's bytes.
    page: (ref, kind, after, limit) => memory.nodes(ref).find({ kinds: [kind] }, { limit, after, access: false, omit: kind === 'workflow' ? HEAD_OMITS : [] }),
    countSessionEvents: (ref) => memory.nodes(ref).count({ kinds: ['session_event'] }),
    async rules(ref) {
      const rules = await new RuleRegistry(db, ref).all();
      return memory.nodes(ref).getMany(
        rules.map((r) => r._id),
        { access: false },
      );
    },
  };
}

/** How far a scope's load has got: entries applied so far, and the kind being read. */
export interface LoadProgress {
  applied: number;
  reading: NodeKind | 'rules' | 'session events';
}

/** A scope's state for a read: whole, or as far as its load has got (`loading` says how far). */
export interface ScopeView {
  state: ScopeLearning;
  loading: LoadProgress | null;
}

interface Loading {
  state: ScopeLearning;
  progress: LoadProgress;
}

export class ScopeRegistry {
  private readonly scopes = new Map<string, Promise<ScopeLearning>>();
  private readonly ready = new Map<string, ScopeLearning>();
  private readonly loading = new Map<string, Loading>();
  /** When each scope's load began (wall time): requests wait for a load until `waitMs` after that, not `waitMs` each. */
  private readonly loadStarted = new Map<string, number>();

  constructor(
    private readonly source: LearnedStateSource,
    /** Called once with each scope that has loaded. */
    private readonly loaded: (ref: ScopeRef, s: ScopeLearning) => void = () => {},
  ) {}

  /** The scope's whole state (loads it first when needed): for anything that changes learned state. */
  get(ref: ScopeRef): Promise<ScopeLearning> {
    const key = scopeKey(ref);
    let p = this.scopes.get(key);
    if (!p) {
      this.loadStarted.set(key, Date.now());
      p = this.load(ref, key).then((s) => {
        this.ready.set(key, s);
        this.loaded(ref, s);
        return s;
      });
      p.catch(() => this.scopes.delete(key));
      this.scopes.set(key, p);
    }
    return p;
  }

  /**
   * How long a request may still wait for the scope's load: what is left of `waitMs` since the load
   * began. A large scope's load then holds the requests of its first `waitMs` only; the ones after
   * are answered at once (a write's learning queues) instead of each waiting `waitMs` again.
   */
  waitLeft(ref: ScopeRef, waitMs: number): number {
    const started = this.loadStarted.get(scopeKey(ref));
    // Wall time, not the injected clock: how long requests have really been held.
    return started === undefined ? waitMs : Math.max(0, started + waitMs - Date.now());
  }

  /**
   * The scope's state for a read that must not wait seconds: whole when it is loaded or loads
   * within what is left of `waitMs` (waitLeft), else as far as the load has got (which goes on in
   * the background).
   */
  async forReading(ref: ScopeRef, waitMs: number): Promise<ScopeView> {
    const s = await this.within(ref, this.waitLeft(ref, waitMs));
    if (s) return { state: s, loading: null };
    const l = this.loading.get(scopeKey(ref));
    // The load finished between the wait and here.
    if (!l) return { state: await this.get(ref), loading: null };
    return { state: l.state, loading: { ...l.progress } };
  }

  /** The scope's whole state if it is loaded, or loads within `waitMs`; null otherwise (the load goes on). */
  async within(ref: ScopeRef, waitMs: number): Promise<ScopeLearning | null> {
    return this.peek(ref) ?? (await within(this.get(ref), waitMs))?.value ?? null;
  }

  /** The state of a scope only if it is loaded already (catch-up ignores unloaded scopes). */
  peek(ref: ScopeRef): ScopeLearning | undefined {
    return this.ready.get(scopeKey(ref));
  }

  get loadedCount(): number {
    return this.ready.size;
  }

  private async load(ref: ScopeRef, key: string): Promise<ScopeLearning> {
    const state = new ScopeLearning();
    const l: Loading = { state, progress: { applied: 0, reading: 'rules' } };
    this.loading.set(key, l);
    try {
      state.loadedSeq = await this.source.currentSeq();
      for (const n of await this.source.rules(ref)) if (state.apply(n)) l.progress.applied += 1;
      for (const kind of LOADED_KINDS) {
        l.progress.reading = kind;
        for (let after: string | undefined; ; ) {
          const page = await this.source.page(ref, kind, after, PAGE);
          for (const [i, n] of page.entries()) {
            // Requests that came in meanwhile run between slices of a page (indexing 500
            // workflows at once held the event loop ~200 ms after a start at 100 000 nodes).
            if (i > 0 && i % APPLY_SLICE === 0) await yieldToIo();
            if (state.apply(n, { keepWhole: false })) l.progress.applied += 1;
          }
          if (page.length < PAGE) break;
          after = page[page.length - 1]!.id;
        }
      }
      l.progress.reading = 'session events';
      state.sessionEventCount = await this.source.countSessionEvents(ref);
      return state;
    } finally {
      this.loading.delete(key);
    }
  }
}
