import type { lifecycleRoutes } from '../../contract/families/lifecycle';
import type { Handlers } from '../../contract/handlers';
import { scopeRef } from '../../store/scope';
import { activateNodes, pinNodes } from './activate';
import type { LifecycleCtx } from './context';
import type { HistoryRecorder } from './history';
import { rehydratePayload } from './payload';
import { rehydrateArchived } from './rehydrate';
import { listScopes, listTenants } from './registry';
import { emptyRunResultFields, runLifecycle } from './run';
import type { LifecycleServices } from './services';

/** HTTP handlers of the lifecycle family (docs/forgetting.md). */
export function createLifecycleHandlers(c: LifecycleCtx, services: LifecycleServices, history: HistoryRecorder): Handlers<typeof lifecycleRoutes> {
  return {
    'memory.lifecycle.run': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const r = await runLifecycle(c, ref, { dry_run: input.dry_run, max_nodes: input.max_nodes, wait_ms: input.wait_ms });
      const forgetting_summary = await services.forgettingSummary(ref);
      if (r.status === 'running') {
        return { status: 'running', run_id: r.run_id, workflow_id: r.workflow_id, dry_run: r.dry_run, ...emptyRunResultFields(), forgetting_summary };
      }
      const x = r.result;
      return {
        status: 'completed',
        run_id: x.run_id,
        workflow_id: r.workflow_id,
        dry_run: x.dry_run,
        decided_at: x.decided_at,
        examined: x.examined,
        complete: x.complete,
        cursor: x.cursor,
        counts: x.counts,
        decisions: x.decisions,
        decisions_truncated: x.decisions_truncated,
        forgetting_summary,
      };
    },

    'memory.lifecycle.summary': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const [forgetting_summary, review_candidates] = await Promise.all([services.forgettingSummary(ref), services.reviewCandidates(ref, { limit: input.review_limit })]);
      return { forgetting_summary, review_candidates };
    },

    'memory.archiveRehydrate': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const r = await rehydrateArchived(c, ref, input, ctx.requestId);
      const rehydrated = { moved_nodes: r.nodes.filter((x) => x.from_tier !== x.to_tier).length, restored_payloads: r.nodes.filter((x) => x.payload_restored).length };
      return { target_tier: input.target_tier, ...r, rehydrated, forgetting_summary: await services.forgettingSummary(ref) };
    },

    'memory.nodesActivate': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const r = await activateNodes(c, ref, input);
      return { outcome: input.outcome ?? null, activated: input.activate, ...r };
    },

    'memory.nodesPin': async (input, ctx) => pinNodes(c, scopeRef(ctx.tenant_id, ctx.scope), input),

    'memory.rehydratePayload': async (input, ctx) => rehydratePayload(c, scopeRef(ctx.tenant_id, ctx.scope), input),

    'memory.scopes.list': async (input, ctx) => listScopes(c.states, ctx.tenant_id, input),

    'memory.tenants.list': async (input, ctx) => listTenants(c.states, ctx.keyTenant ?? null, input),

    'memory.lifecycle.history': async (input, ctx) => {
      const r = await history.read(scopeRef(ctx.tenant_id, ctx.scope), { since: input.since ? new Date(input.since).toISOString() : undefined, limit: input.limit });
      return { bucket: 'hour' as const, ...r };
    },
  };
}
