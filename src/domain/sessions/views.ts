import type { StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import { nodeUri } from '../memory/uri';
import { EVENT_SLOT, SESSION_SLOT, SESSION_STATS_SLOT } from './keys';
import { asObject } from '../values';

export function sessionView(n: StoredNode, ref: ScopeRef) {
  const s = asObject(n.slots[SESSION_SLOT]);
  const stats = asObject(n.slots[SESSION_STATS_SLOT]);
  return {
    session_id: String(s.session_id ?? ''),
    node_id: n.id,
    uri: nodeUri(ref, n.id),
    title: n.title,
    summary: n.summary,
    text: n.text,
    tags: n.tags,
    metadata: asObject(s.metadata),
    event_count: typeof stats.event_count === 'number' ? stats.event_count : 0,
    last_event_at: typeof stats.last_event_at === 'string' ? stats.last_event_at : null,
    revision: n.revision,
    actor: n.actor,
    created_at: n.created_at,
    updated_at: n.updated_at,
  };
}

export function eventView(n: StoredNode, ref: ScopeRef) {
  const e = asObject(n.slots[EVENT_SLOT]);
  return {
    event_id: String(e.event_id ?? ''),
    node_id: n.id,
    uri: nodeUri(ref, n.id),
    session_id: String(e.session_id ?? ''),
    event_type: String(e.event_type ?? 'note'),
    title: n.title,
    text: n.text,
    summary: n.summary,
    tags: n.tags,
    slots: n.slots,
    actor: n.actor,
    created_at: n.created_at,
  };
}
