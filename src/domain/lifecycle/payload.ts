import { LoreError, notFound } from '../../contract/errors';
import { coldKey } from '../../store/lifecycle/cold-store';
import type { StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import { UUID_PATTERN } from '../../model/ids';
import type { LifecycleCtx } from './context';
import { payloadRefs } from './decide-now';
import { beyondSummary, codePoints, headCodePoints, lineDiff, type LineDiff } from './payload-text';
import { payloadRelocated, readRelocation, type RehydrationMode } from './slots';
import type { DiffBase, PayloadSource } from '../../model/lifecycle/vocabulary';

/**
 * anchor/payload/rehydrate (docs/forgetting.md, "Rehydration modes"): read only as much of a
 * node's payload as a task needs, from the node or — when archived — from the cold store,
 * without restoring the node (archive/rehydrate does that):
 *   summary       the summary alone; the payload is not read.
 *   partial       the first max_chars characters (code points) of the payload.
 *   full          the whole payload, byte for byte.
 *   differential  for anchored workflow memory: what the payload adds relative to what the caller
 *                 has — with base_revision, the line difference from that revision's text to the
 *                 current payload; without, the payload lines the current summary does not
 *                 already contain. payload.text is the added lines, one per line.
 * Each call counts toward rehydration_mode_counts.
 */

export interface PayloadRequest {
  anchor_id?: string;
  node_id?: string;
  client_id?: string;
  mode: RehydrationMode;
  max_chars: number;
  base_revision?: number;
}

async function resolve(c: LifecycleCtx, ref: ScopeRef, r: PayloadRequest): Promise<StoredNode> {
  const nodes = c.memory.nodes(ref);
  // The payload and the node fields returned never include access statistics: not read.
  const read = { access: false };
  if (r.node_id !== undefined) {
    const n = UUID_PATTERN.test(r.node_id) ? await nodes.get(r.node_id, read) : null;
    if (!n) throw notFound('node', r.node_id, ref.scope, { node_id: r.node_id });
    return n;
  }
  if (r.client_id !== undefined) {
    const n = await nodes.getByClientId(r.client_id, read);
    if (!n) throw notFound('node with client_id', r.client_id, ref.scope, { client_id: r.client_id });
    return n;
  }
  // An anchor is named by its node id or its client_id.
  const a = r.anchor_id!;
  const n = (UUID_PATTERN.test(a) ? await nodes.get(a, read) : null) ?? (await nodes.getByClientId(a, read));
  if (!n) throw notFound('anchor', a, ref.scope, { anchor_id: a });
  return n;
}

/** The current payload and where it came from. */
async function loadPayload(c: LifecycleCtx, ref: ScopeRef, n: StoredNode): Promise<{ text: string; source: 'node' | 'cold_store' }> {
  if (!payloadRelocated(n)) return { text: n.text, source: 'node' };
  const key = readRelocation(n.slots)!.cold_key!;
  const text = await c.cold.getText(ref, key);
  if (text === null) {
    // E.g. a node imported from a pack without its cold-store payload.
    throw new LoreError('not_found', `the archived payload of node '${n.id}' is not in this scope's cold store`, { id: n.id, cold_key: key });
  }
  return { text, source: 'cold_store' };
}

/**
 * For a differential read of an anchor: the payload nodes it names (anchor_v1.payload_refs,
 * source.node_id) that the caller does not have at hand yet — every one of this scope not in the
 * hot tier — with a line of why for each, selected or not.
 */
async function payloadSelection(c: LifecycleCtx, ref: ScopeRef, anchor: StoredNode) {
  const refs = payloadRefs(anchor);
  const found = new Map((await c.memory.nodes(ref).getMany(refs, { access: false })).map((p) => [p.id, p]));
  const selected: string[] = [];
  const rationale: string[] = [];
  for (const id of refs) {
    const p = found.get(id);
    if (!p) rationale.push(`${id}: named by the anchor, not a node of this scope`);
    else if (p.tier === 'hot') rationale.push(`${id}: payload of the anchor, already hot: not selected`);
    else {
      selected.push(id);
      rationale.push(`${id}: payload of the anchor, ${p.tier}${p.title ? ` ("${p.title}")` : ''}: selected`);
    }
  }
  return { differential_selected_node_ids: selected, differential_rationale: rationale };
}

export async function rehydratePayload(c: LifecycleCtx, ref: ScopeRef, r: PayloadRequest) {
  const n = await resolve(c, ref, r);
  const rel = readRelocation(n.slots);
  let payload: { text: string; chars: number; total_chars: number; truncated: boolean };
  let source: PayloadSource;
  let differential: (LineDiff & { base: DiffBase; base_revision: number | null; revision: number }) | null = null;

  if (r.mode === 'summary') {
    const total = rel?.relocation_state === 'cold_archive' && rel.payload_chars !== null ? rel.payload_chars : codePoints(n.text);
    payload = { text: n.summary, chars: codePoints(n.summary), total_chars: total, truncated: total > 0 };
    source = 'summary';
  } else {
    const loaded = await loadPayload(c, ref, n);
    source = loaded.source;
    const total = codePoints(loaded.text);
    if (r.mode === 'full') {
      payload = { text: loaded.text, chars: total, total_chars: total, truncated: false };
    } else if (r.mode === 'partial') {
      const head = headCodePoints(loaded.text, r.max_chars);
      const chars = Math.min(total, r.max_chars);
      payload = { text: head, chars, total_chars: total, truncated: chars < total };
    } else {
      let diff: LineDiff;
      if (r.base_revision !== undefined) {
        let baseText: string;
        if (r.base_revision === n.revision) {
          baseText = loaded.text;
        } else {
          const old = (await c.memory.nodes(ref).revisionsOf(n.id)).find((v) => v.revision === r.base_revision);
          if (!old) {
            throw new LoreError('not_found', `node '${n.id}' has no revision ${r.base_revision} (current revision ${n.revision})`, {
              id: n.id,
              base_revision: r.base_revision,
              revision: n.revision,
            });
          }
          // A revision saved while its node was archived has no text: its payload is in the cold store.
          baseText = old.text === '' ? ((await c.cold.getText(ref, coldKey(n.id, old.revision))) ?? '') : old.text;
        }
        diff = lineDiff(baseText, loaded.text);
        differential = { base: 'revision', base_revision: r.base_revision, revision: n.revision, ...diff };
      } else {
        diff = beyondSummary(n.summary, loaded.text);
        differential = { base: 'summary', base_revision: null, revision: n.revision, ...diff };
      }
      const text = diff.added_lines.join('\n');
      const chars = codePoints(text);
      payload = { text, chars, total_chars: total, truncated: chars < total };
    }
  }
  await c.states.increment(ref, { [`rehydration_mode_counts.${r.mode}`]: 1 }, c.clock.now().toISOString());
  return {
    // The payload nodes a differential read selects (anchor_v1.payload_refs), where existing clients read them.
    rehydrated: { summary: r.mode === 'differential' ? await payloadSelection(c, ref, n) : { differential_selected_node_ids: [], differential_rationale: [] } },
    node: {
      id: n.id,
      client_id: n.client_id,
      type: n.type,
      kind: n.kind,
      tier: n.tier,
      archived: n.tier === 'archive',
      title: n.title,
      summary: n.summary,
      revision: n.revision,
    },
    mode: r.mode,
    payload_source: source,
    payload,
    differential,
    node_restored: false,
  };
}
