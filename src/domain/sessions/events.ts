import type { sessionsRoutes } from '../../contract/families/sessions';
import type { RouteInput } from '../../contract/route';
import type { StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { uuidv7 } from '../../model/ids';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import type { MemoryServices } from '../memory/context';
import type { ExecutionInput } from '../memory/extract';
import { executionState } from '../memory/packet';
import type { WriteItem } from '../memory/write';
import { writeResultView } from '../memory/views';
import { renderExecution } from '../memory/write-request';
import { EVENT_SLOT, SESSION_STATS_SLOT, eventKey } from './keys';
import { loadSession } from './sessions';
import { eventView, sessionView } from './views';

type In<K extends keyof typeof sessionsRoutes> = RouteInput<(typeof sessionsRoutes)[K]>;

/**
 * Appends an event to a session and bumps its stats once per new event. The session must exist
 * (sessions/create): an append to an id nobody created is not_found, so a mistyped or another
 * scope's session id is an error, not a new session that silently takes the events.
 */
export async function appendEvent(m: MemoryServices, clock: Clock, ref: ScopeRef, input: In<'sessions.appendEvent'>, actor: string) {
  const nodes = m.nodes(ref);
  // The session's id and counters are what an append needs, not its access statistics.
  let session = await loadSession(m, ref, input.session_id, { access: false });
  const eventId = input.event_id ?? uuidv7(clock.now().getTime());
  const key = eventKey(input.session_id, eventId);
  const text = input.input_text ?? input.text ?? input.event_text ?? '';
  const item: WriteItem = {
    client_id: key,
    type: 'event',
    kind: 'session_event',
    title: input.title ?? null,
    text,
    summary: input.text_summary ?? null,
    tags: input.tags,
    importance: input.importance,
    slots: {
      ...(input.slots ?? {}),
      ...executionState(input),
      [EVENT_SLOT]: { session_id: input.session_id, event_id: eventId, event_type: input.event_type, ...(input.metadata ? { metadata: input.metadata } : {}) },
    },
    execution: (input.execution ?? null) as ExecutionInput | null,
  };
  if (!text && item.execution) item.text = renderExecution(item.execution);
  const r = await m.write(ref, actor, [item], [{ src: key, dst: session.id, type: 'part_of' }], { source: 'sessions' });
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
  return { session: sessionView(session, ref), session_created: false, event: eventView(event.node, ref), ...writeResultView(r, ref) };
}

export async function listEvents(m: MemoryServices, ref: ScopeRef, input: In<'sessions.listEvents'>) {
  const session = await loadSession(m, ref, input.session_id);
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
}
