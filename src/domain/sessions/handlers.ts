import { notFound } from '../../contract/errors';
import type { sessionsRoutes } from '../../contract/families/sessions';
import type { Handlers } from '../../contract/handlers';
import type { StoredNode } from '../../store/memory/nodes';
import { scopeRef, type ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { uuidv7 } from '../../model/ids';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import type { MemoryServices } from '../memory/services';
import type { ExecutionInput } from '../memory/extract';
import type { WriteItem } from '../memory/write';
import { writeResultView } from '../memory/views';
import { renderExecution } from '../memory/write-request';
import { EVENT_SLOT, SESSION_SLOT, SESSION_STATS_SLOT, eventKey, sessionKey } from './keys';
import { eventView, sessionView } from './views';

/**
 * Sessions as nodes: a session is a `session` node keyed by ~session:<id>; each event is a
 * `session_event` node keyed by its session and event id, with a part_of edge to the session.
 * The session node carries its event count and last event time (slot session_stats_v1), which a
 * re-create keeps.
 */

interface SessionFields {
  title?: string;
  summary?: string;
  text_summary?: string;
  input_text?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
}

function sessionItem(sessionId: string, f: SessionFields): WriteItem {
  const summary = f.summary ?? f.text_summary;
  return {
    client_id: sessionKey(sessionId),
    type: 'event',
    kind: 'session',
    title: f.title ?? null,
    text: f.input_text ?? summary ?? f.title ?? `Session ${sessionId}`,
    summary: summary ?? null,
    tags: f.tags,
    slots: { [SESSION_SLOT]: { session_id: sessionId, metadata: f.metadata ?? {} } },
    keepSlots: [SESSION_STATS_SLOT],
    extract: false,
  };
}

export function createSessionsHandlers(m: MemoryServices, clock: Clock): Handlers<typeof sessionsRoutes> {
  const getSession = async (ref: ScopeRef, sessionId: string): Promise<StoredNode> => {
    const n = await m.nodes(ref).getByClientId(sessionKey(sessionId));
    if (!n || n.kind !== 'session') throw notFound('session', sessionId, ref.scope, { session_id: sessionId });
    return n;
  };

  return {
    'sessions.create': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const sessionId = input.session_id ?? uuidv7(clock.now().getTime());
      const r = await m.write(ref, ctx.actor, [sessionItem(sessionId, input)], [], { source: 'sessions' });
      const w = r.nodes[0]!;
      return { session: sessionView(w.node, ref), outcome: w.outcome };
    },

    'sessions.appendEvent': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const nodes = m.nodes(ref);
      let session = await nodes.getByClientId(sessionKey(input.session_id));
      let created = false;
      if (!session) {
        const s = await m.write(ref, ctx.actor, [sessionItem(input.session_id, {})], [], { source: 'sessions' });
        session = s.nodes[0]!.node;
        created = s.nodes[0]!.outcome === 'created';
      }
      if (session.kind !== 'session') throw notFound('session', input.session_id, ref.scope, { session_id: input.session_id });
      const eventId = input.event_id ?? uuidv7(clock.now().getTime());
      const key = eventKey(input.session_id, eventId);
      const text = input.input_text ?? input.text ?? input.event_text ?? '';
      const item: WriteItem = {
        client_id: key,
        type: 'event',
        kind: 'session_event',
        title: input.title ?? null,
        text,
        tags: input.tags,
        importance: input.importance,
        slots: {
          ...(input.slots ?? {}),
          [EVENT_SLOT]: { session_id: input.session_id, event_id: eventId, event_type: input.event_type, ...(input.metadata ? { metadata: input.metadata } : {}) },
        },
        execution: (input.execution ?? null) as ExecutionInput | null,
      };
      if (!text && item.execution) item.text = renderExecution(item.execution);
      const r = await m.write(ref, ctx.actor, [item], [{ src: key, dst: session.id, type: 'part_of' }], { source: 'sessions' });
      const event = r.nodes[0]!;
      if (event.outcome === 'created') {
        const at = clock.now();
        const updated = await nodes.update(
          session.id,
          { inc: { [`slots.${SESSION_STATS_SLOT}.event_count`]: 1 }, set: { [`slots.${SESSION_STATS_SLOT}.last_event_at`]: at.toISOString() } },
          at,
        );
        if (updated) {
          m.indexed([updated]);
          session = updated;
        }
      }
      return { session: sessionView(session, ref), session_created: created, event: eventView(event.node, ref), ...writeResultView(r, ref) };
    },

    'sessions.get': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      return { session: sessionView(await getSession(ref, input.session_id), ref) };
    },

    'sessions.list': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'sessions.list') : undefined;
      const page = await m.nodes(ref).find({ kinds: ['session'] }, { limit: input.limit + 1, after });
      const more = page.length > input.limit;
      const shown = more ? page.slice(0, input.limit) : page;
      return { sessions: shown.map((n) => sessionView(n, ref)), next_cursor: more ? encodeCursor('sessions.list', shown[shown.length - 1]!.id) : null };
    },

    'sessions.listEvents': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const session = await getSession(ref, input.session_id);
      const nodes = m.nodes(ref);
      const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'sessions.listEvents') : undefined;
      const edges = await nodes.edgesInto(session.id, 'part_of', { limit: input.limit + 1, after });
      const more = edges.length > input.limit;
      const shown = more ? edges.slice(0, input.limit) : edges;
      const byId = new Map((await nodes.getMany(shown.map((e) => e.src))).map((n) => [n.id, n]));
      const events = shown.map((e) => byId.get(e.src)).filter((n): n is StoredNode => !!n && n.kind === 'session_event');
      return {
        session_id: input.session_id,
        events: events.map((n) => eventView(n, ref)),
        next_cursor: more ? encodeCursor('sessions.listEvents', shown[shown.length - 1]!.id) : null,
      };
    },
  };
}
