import type { delegationRoutes } from '../../contract/families/delegation';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import type { DelegationCtx } from './context';
import { findRecords, writeRecord } from './records';

/** One handler per delegation route; each is a thin call into the operation's module. */
export function createDelegationHandlers(c: DelegationCtx): Handlers<typeof delegationRoutes> {
  return {
    'delegation.write': (input, ctx) => writeRecord(c.store, c.clock, refOf(ctx), input, ctx.actor),
    'delegation.find': (input, ctx) => findRecords(c.store, refOf(ctx), input),
  };
}
