import type { delegationRoutes } from '../../contract/families/delegation';
import type { Handlers } from '../../contract/handlers';
import type { DelegationStore } from '../../store/delegation/records';
import { scopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { findRecords, writeRecord } from './records';

const refOf = (ctx: { tenant_id: string; scope: string }) => scopeRef(ctx.tenant_id, ctx.scope);

/** One handler per delegation route; each is a thin call into the operation's module. */
export function createDelegationHandlers(store: DelegationStore, clock: Clock): Handlers<typeof delegationRoutes> {
  return {
    'delegation.write': (input, ctx) => writeRecord(store, clock, refOf(ctx), input, ctx.actor),
    'delegation.find': (input, ctx) => findRecords(store, refOf(ctx), input),
  };
}
