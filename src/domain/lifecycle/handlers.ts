import type { lifecycleRoutes } from '../../contract/families/lifecycle';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import { activateNodes, pinNodes } from './activate';
import type { LifecycleCtx } from './context';
import type { HistoryRecorder } from './history';
import { rehydratePayload } from './payload';
import { rehydrateArchived } from './rehydrate';
import { listScopes, listTenants } from './registry';
import { runLifecycle } from './run';
import type { LifecycleServices } from './services';
import { toRunWire } from './views';

/** HTTP handlers of the lifecycle family (docs/forgetting.md). */
export function createLifecycleHandlers(c: LifecycleCtx, services: LifecycleServices, history: HistoryRecorder): Handlers<typeof lifecycleRoutes> {
  return {
    'memory.lifecycle.run': async (input, ctx) => {
      const ref = refOf(ctx);
      const r = await runLifecycle(c, ref, { dry_run: input.dry_run, max_nodes: input.max_nodes, wait_ms: input.wait_ms });
      return toRunWire(r, await services.forgettingSummary(ref));
    },

    'memory.lifecycle.summary': async (input, ctx) => {
      const ref = refOf(ctx);
      const [forgetting_summary, review_candidates] = await Promise.all([services.forgettingSummary(ref), services.reviewCandidates(ref, { limit: input.review_limit })]);
      return { forgetting_summary, review_candidates };
    },

    'memory.archiveRehydrate': async (input, ctx) => {
      const ref = refOf(ctx);
      const r = await rehydrateArchived(c, ref, input, ctx.requestId);
      const rehydrated = { moved_nodes: r.nodes.filter((x) => x.from_tier !== x.to_tier).length, restored_payloads: r.nodes.filter((x) => x.payload_restored).length };
      return { target_tier: input.target_tier, ...r, rehydrated, forgetting_summary: await services.forgettingSummary(ref) };
    },

    'memory.nodesActivate': async (input, ctx) => {
      const ref = refOf(ctx);
      const r = await activateNodes(c, ref, input);
      return { outcome: input.outcome ?? null, activated: input.activate, ...r };
    },

    'memory.nodesPin': async (input, ctx) => pinNodes(c, refOf(ctx), input),

    'memory.rehydratePayload': async (input, ctx) => rehydratePayload(c, refOf(ctx), input),

    'memory.scopes.list': async (input, ctx) => listScopes(c.states, ctx.tenant_id, input),

    'memory.tenants.list': async (input, ctx) => listTenants(c.states, ctx.keyTenant ?? null, input),

    'memory.lifecycle.history': async (input, ctx) => {
      const r = await history.read(refOf(ctx), { since: input.since ? new Date(input.since).toISOString() : undefined, limit: input.limit });
      return { bucket: 'hour' as const, ...r };
    },
  };
}
