/**
 * Runtime keys of session nodes (docs/memory.md, "Runtime keys"). They live in client_id, start
 * with "~" (which a caller's client_id can never contain), so they cannot collide with caller
 * ids, and they make create and append idempotent through the store's client_id index.
 * The session id's length is part of an event key, so "a:b" + "c" and "a" + "b:c" differ.
 */
export const sessionKey = (sessionId: string) => `~session:${sessionId}`;
export const eventKey = (sessionId: string, eventId: string) => `~event:${sessionId.length}:${sessionId}:${eventId}`;

export const SESSION_SLOT = 'session_v1';
export const SESSION_STATS_SLOT = 'session_stats_v1';
export const EVENT_SLOT = 'session_event_v1';
