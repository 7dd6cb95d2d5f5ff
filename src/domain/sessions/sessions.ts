import { notFound } from '../../contract/errors';
import type { sessionsRoutes } from '../../contract/families/sessions';
import type { RouteInput } from '../../contract/route';
import type { ReadOpts, StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import { uuidv7 } from '../../model/ids';
import { decodeCursor, encodeCursor } from '../memory/cursor';
import type { MemoryServices } from '../memory/context';
import { executionState } from '../memory/packet';
import type { WriteItem } from '../memory/write';
import { SESSION_SLOT, SESSION_STATS_SLOT, sessionKey } from './keys';
import { sessionView } from './views';

/**
 * Sessions as nodes: a session is a `session` node keyed by ~session:<id>; each event is a
 * `session_event` node keyed by its session and event id, with a part_of edge to the session.
 * The session node carries its event count and last event time (slot session_stats_v1), which a
 * re-create keeps.
 */

type In<K extends keyof typeof sessionsRoutes> = RouteInput<(typeof sessionsRoutes)[K]>;

interface SessionFields {
  title?: string;
  summary?: string;
  text_summary?: string;
  input_text?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  execution_packet_v1?: Record<string, unknown>;
  execution_state_v1?: Record<string, unknown>;
}

export function sessionItem(sessionId: string, f: SessionFields): WriteItem {
  const summary = f.summary ?? f.text_summary;
  const state = executionState(f);
  return {
    client_id: sessionKey(sessionId),
    type: 'event',
    kind: 'session',
    title: f.title ?? null,
    text: f.input_text ?? summary ?? f.title ?? `Session ${sessionId}`,
    summary: summary ?? null,
    tags: f.tags,
    slots: { [SESSION_SLOT]: { session_id: sessionId, metadata: f.metadata ?? {} }, ...state },
    keepSlots: [SESSION_STATS_SLOT],
    // A session's state is its metadata, which learning reads itself; a session that carries an
    // execution packet is extracted like any execution evidence (docs/memory.md, "Execution packets").
    extract: Object.keys(state).length > 0,
  };
}

/** The session node, or not_found when there is none (or the key holds another kind). */
export async function loadSession(m: MemoryServices, ref: ScopeRef, sessionId: string, opts?: ReadOpts): Promise<StoredNode> {
  const n = await m.nodes(ref).getByClientId(sessionKey(sessionId), opts);
  if (!n || n.kind !== 'session') throw notFound('session', sessionId, ref.scope, { session_id: sessionId });
  return n;
}

export async function createSession(m: MemoryServices, clock: Clock, ref: ScopeRef, input: In<'sessions.create'>, actor: string) {
  const sessionId = input.session_id ?? uuidv7(clock.now().getTime());
  const r = await m.write(ref, actor, [sessionItem(sessionId, input)], [], { source: 'sessions' });
  const w = r.nodes[0]!;
  return { session: sessionView(w.node, ref), outcome: w.outcome };
}

export async function getSession(m: MemoryServices, ref: ScopeRef, input: In<'sessions.get'>) {
  return { session: sessionView(await loadSession(m, ref, input.session_id), ref) };
}

export async function listSessions(m: MemoryServices, ref: ScopeRef, input: In<'sessions.list'>) {
  const after = input.cursor !== undefined ? decodeCursor(input.cursor, 'sessions.list') : undefined;
  const page = await m.nodes(ref).find({ kinds: ['session'] }, { limit: input.limit + 1, after });
  const more = page.length > input.limit;
  const shown = more ? page.slice(0, input.limit) : page;
  return { sessions: shown.map((n) => sessionView(n, ref)), next_cursor: more ? encodeCursor('sessions.list', shown[shown.length - 1]!.id) : null };
}
