import type { Database } from '../../store/database';
import { RuleRegistry } from '../../store/learning';
import type { StoredNode } from '../../store/memory/nodes';
import { scopeKey, type ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/module';
import type { NodeKind } from '../../model/memory/node';
import { ScopeLearning } from './scope-state';

/**
 * The learning state of every scope this process has touched. A scope is loaded on first use
 * with indexed queries (the node store's (tenant, scope, kind) index; the rule registry), never a
 * scan of the scope's evidence, so loading cost follows how much was learned, not how much was
 * written. Concurrent first uses share one load.
 */

const PAGE = 500;
const LOADED_KINDS: NodeKind[] = ['workflow', 'pattern', 'policy_memory', 'handoff', 'session'];

export class ScopeRegistry {
  private readonly scopes = new Map<string, Promise<ScopeLearning>>();
  private readonly ready = new Map<string, ScopeLearning>();

  constructor(
    private readonly memory: MemoryServices,
    private readonly db: Database,
  ) {}

  get(ref: ScopeRef): Promise<ScopeLearning> {
    const key = scopeKey(ref);
    let p = this.scopes.get(key);
    if (!p) {
      p = this.load(ref).then((s) => {
        this.ready.set(key, s);
        return s;
      });
      p.catch(() => this.scopes.delete(key));
      this.scopes.set(key, p);
    }
    return p;
  }

  /** The state of a scope only if it is loaded already (catch-up ignores unloaded scopes). */
  peek(ref: ScopeRef): ScopeLearning | undefined {
    return this.ready.get(scopeKey(ref));
  }

  get loadedCount(): number {
    return this.ready.size;
  }

  private async load(ref: ScopeRef): Promise<ScopeLearning> {
    const state = new ScopeLearning();
    state.loadedSeq = await this.memory.store.currentSeq();
    const nodes = this.memory.nodes(ref);
    for (const kind of LOADED_KINDS) {
      let after: string | undefined;
      for (;;) {
        const page: StoredNode[] = await nodes.find({ kinds: [kind] }, { limit: PAGE, after });
        for (const n of page) state.apply(n);
        if (page.length < PAGE) break;
        after = page[page.length - 1]!.id;
      }
    }
    state.sessionEventCount = await nodes.count({ kinds: ['session_event'] });
    const rules = await new RuleRegistry(this.db, ref).all();
    for (const n of await nodes.getMany(
      rules.map((r) => r._id),
      { access: false },
    ))
      state.apply(n);
    return state;
  }
}
