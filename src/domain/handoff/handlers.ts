import type { handoffRoutes } from '../../contract/families/handoff';
import type { Handlers } from '../../contract/handlers';
import { scopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/context';
import { recoverHandoff } from './recover';
import { storeHandoff } from './store';

const refOf = (ctx: { tenant_id: string; scope: string }) => scopeRef(ctx.tenant_id, ctx.scope);

/** One handler per handoff route; each is a thin call into the operation's module. */
export function createHandoffHandlers(m: MemoryServices): Handlers<typeof handoffRoutes> {
  return {
    'handoff.store': (input, ctx) => storeHandoff(m, refOf(ctx), input, ctx.actor),
    'handoff.recover': (input, ctx) => recoverHandoff(m, refOf(ctx), input),
  };
}
