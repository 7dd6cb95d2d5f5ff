import { nodeUri } from '../memory/uri';
import type { StoredNode } from '../../store/memory/nodes';
import type { NodeRevision } from '../../model/memory/node';
import { asObject } from '../values';

/**
 * Handoffs as nodes of kind `handoff`, one per anchor (runtime key ~handoff:<anchor>). The node's
 * text is the handoff rendered as readable text (so recall finds it); the structured fields live
 * in slots.handoff_v1, which the views read back.
 */

export const HANDOFF_SLOT = 'handoff_v1';
export const handoffKey = (anchor: string) => `~handoff:${anchor}`;

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function fieldsOf(slots: Record<string, unknown>) {
  const h = asObject(slots[HANDOFF_SLOT]);
  return {
    anchor: String(h.anchor ?? ''),
    handoff_text: String(h.handoff_text ?? ''),
    target_files: strs(h.target_files),
    next_action: strOrNull(h.next_action),
    acceptance_checks: strs(h.acceptance_checks),
    rollback_notes: strs(h.rollback_notes),
    handoff_kind: strOrNull(h.handoff_kind),
    session_id: strOrNull(h.session_id),
    run_id: strOrNull(h.run_id),
  };
}

export function handoffView(n: StoredNode) {
  return {
    handoff_id: n.id,
    uri: nodeUri({ tenant_id: n.tenant_id, scope: n.scope }, n.id),
    title: n.title,
    summary: n.summary,
    ...fieldsOf(n.slots),
    tags: n.tags,
    revision: n.revision,
    actor: n.actor,
    created_at: n.created_at,
    updated_at: n.updated_at,
  };
}

export function historyView(r: NodeRevision) {
  return {
    title: r.title,
    summary: r.summary,
    ...fieldsOf(r.slots),
    tags: r.tags,
    revision: r.revision,
    actor: r.actor,
    created_at: r.created_at,
    updated_at: r.superseded_at,
  };
}
