import type { handoffRoutes } from '../../contract/families/handoff';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import type { HandoffCtx } from './context';
import { recoverHandoff } from './recover';
import { storeHandoff } from './store';

/** One handler per handoff route; each is a thin call into the operation's module. */
export function createHandoffHandlers(c: HandoffCtx): Handlers<typeof handoffRoutes> {
  return {
    'handoff.store': (input, ctx) => storeHandoff(c.memory, refOf(ctx), input, ctx.actor),
    'handoff.recover': (input, ctx) => recoverHandoff(c.memory, refOf(ctx), input),
  };
}
