import { Context } from '@temporalio/activity';
import { processNodes, processPage } from '../src/domain/lifecycle/operator';
import type { BeginResult, NodesInput, NodesResult, PageInput, PageResult, ScopeRunInput } from '../src/domain/lifecycle/run-types';
import { ColdStore } from '../src/store/lifecycle/cold-store';
import { ScopeStates, type LastRun } from '../src/store/lifecycle/scope-state';
import { NodeStore } from '../src/store/memory/nodes';
import { refOf } from '../src/store/scope';
import type { ActivityDeps } from './deps';

export interface FinishRunInput {
  tenant_id: string;
  scope: string;
  cursor: string | null;
  last_run: LastRun;
}

export interface ListScopesInput {
  after: string | null;
  limit: number;
}

/** Heartbeat every this many nodes (a page is 250 nodes; a node is one or two store writes). */
const HEARTBEAT_EVERY = 25;

/**
 * Activities of the lifecycle family: the operator's MongoDB work (docs/forgetting.md). Each is
 * idempotent — begin and list only read (begin registers the scope, which is an insert-once),
 * a page repeated with the same input makes the same decisions and skips what it already wrote,
 * and finish overwrites the scope's cursor with the same value.
 */
export function createLifecycleActivities(deps: ActivityDeps) {
  const nodes = new NodeStore(deps.db);
  const cold = new ColdStore(deps.db);
  const states = new ScopeStates(deps.db);
  return {
    /** Fixes the run's clock (deps.clock: tests share it with the API) and where it starts. */
    async lifecycleBeginRun(input: ScopeRunInput): Promise<BeginResult> {
      const ref = refOf(input);
      const now = deps.clock.now().toISOString();
      if (!input.dry_run) await states.ensure(ref, now);
      const state = await states.get(ref);
      return { decided_at: now, start_after: state?.cursor ?? null };
    },

    async lifecycleProcessPage(input: PageInput): Promise<PageResult> {
      let done = 0;
      const progress = () => {
        done += 1;
        if (done % HEARTBEAT_EVERY === 0) Context.current().heartbeat({ done });
      };
      return processPage({ nodes, cold, states, progress }, input);
    },

    /**
     * An on-demand run over named nodes (feedback). Its clock is fixed once by the workflow's
     * first activity; a retry with the same input skips the nodes this run already decided.
     */
    async lifecycleDecideNodes(input: NodesInput): Promise<NodesResult> {
      let done = 0;
      const progress = () => {
        done += 1;
        if (done % HEARTBEAT_EVERY === 0) Context.current().heartbeat({ done });
      };
      return processNodes({ nodes, cold, progress }, input);
    },

    /** The clock of a run over named nodes (deps.clock: tests share it with the API). */
    async lifecycleNow(): Promise<string> {
      return deps.clock.now().toISOString();
    },

    async lifecycleFinishRun(input: FinishRunInput): Promise<void> {
      await states.recordRun(refOf(input), input.cursor, input.last_run, deps.clock.now().toISOString());
    },

    /** A page of the scope registry, for the scheduled sweep. */
    async lifecycleListScopes(input: ListScopesInput): Promise<{ scopes: { id: string; tenant_id: string; scope: string }[] }> {
      const page = await states.list(input.after, input.limit);
      return { scopes: page.map((s) => ({ id: s.id, tenant_id: s.ref.tenant_id, scope: s.ref.scope })) };
    },
  };
}

export type LifecycleActivities = ReturnType<typeof createLifecycleActivities>;
