import type { sessionsRoutes } from '../../contract/families/sessions';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import type { SessionsCtx } from './context';
import { appendEvent, listEvents } from './events';
import { createSession, getSession, listSessions } from './sessions';

/** One handler per sessions route; each is a thin call into the operation's module. */
export function createSessionsHandlers(c: SessionsCtx): Handlers<typeof sessionsRoutes> {
  const m = c.memory;
  return {
    'sessions.create': (input, ctx) => createSession(m, c.clock, refOf(ctx), input, ctx.actor),
    'sessions.appendEvent': (input, ctx) => appendEvent(m, c.clock, refOf(ctx), input, ctx.actor),
    'sessions.get': (input, ctx) => getSession(m, refOf(ctx), input),
    'sessions.list': (input, ctx) => listSessions(m, refOf(ctx), input),
    'sessions.listEvents': (input, ctx) => listEvents(m, refOf(ctx), input),
  };
}
