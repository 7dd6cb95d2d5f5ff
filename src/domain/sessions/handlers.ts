import type { sessionsRoutes } from '../../contract/families/sessions';
import type { Handlers } from '../../contract/handlers';
import { scopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import type { MemoryServices } from '../memory/context';
import { appendEvent, listEvents } from './events';
import { createSession, getSession, listSessions } from './sessions';

const refOf = (ctx: { tenant_id: string; scope: string }) => scopeRef(ctx.tenant_id, ctx.scope);

/** One handler per sessions route; each is a thin call into the operation's module. */
export function createSessionsHandlers(m: MemoryServices, clock: Clock): Handlers<typeof sessionsRoutes> {
  return {
    'sessions.create': (input, ctx) => createSession(m, clock, refOf(ctx), input, ctx.actor),
    'sessions.appendEvent': (input, ctx) => appendEvent(m, clock, refOf(ctx), input, ctx.actor),
    'sessions.get': (input, ctx) => getSession(m, refOf(ctx), input),
    'sessions.list': (input, ctx) => listSessions(m, refOf(ctx), input),
    'sessions.listEvents': (input, ctx) => listEvents(m, refOf(ctx), input),
  };
}
