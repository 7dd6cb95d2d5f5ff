import { notFound } from '../../contract/errors';
import type { handoffRoutes } from '../../contract/families/handoff';
import type { Handlers } from '../../contract/handlers';
import type { StoredNode } from '../../store/memory/nodes';
import { scopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/services';
import { nodeUri } from '../memory/uri';
import { writeResultView } from '../memory/views';
import type { NodeRevision } from '../../model/memory/node';

/**
 * Handoffs as nodes of kind `handoff`, one per anchor (runtime key ~handoff:<anchor>). The node's
 * text is the handoff rendered as readable text (so recall finds it); the structured fields live
 * in slots.handoff_v1, which the views read back.
 */

export const HANDOFF_SLOT = 'handoff_v1';
export const handoffKey = (anchor: string) => `~handoff:${anchor}`;

interface HandoffFields {
  anchor: string;
  title?: string;
  summary?: string;
  handoff_text?: string;
  target_files?: string[];
  next_action?: string;
  acceptance_checks?: string[];
  rollback_notes?: string | string[];
  handoff_kind?: string;
  session_id?: string;
  run_id?: string;
}

function render(f: HandoffFields, notes: string[]): string {
  const lines = [`Handoff ${f.anchor}`];
  if (f.summary) lines.push(`Summary: ${f.summary}`);
  if (f.handoff_text) lines.push(f.handoff_text);
  if (f.target_files?.length) lines.push(`Target files: ${f.target_files.join(', ')}`);
  if (f.next_action) lines.push(`Next action: ${f.next_action}`);
  if (f.acceptance_checks?.length) lines.push(`Acceptance checks: ${f.acceptance_checks.join('; ')}`);
  if (notes.length) lines.push(`Rollback notes: ${notes.join('; ')}`);
  return lines.join('\n');
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function fieldsOf(slots: Record<string, unknown>) {
  const h = obj(slots[HANDOFF_SLOT]);
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

function handoffView(n: StoredNode) {
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

function historyView(r: NodeRevision) {
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

export function createHandoffHandlers(m: MemoryServices): Handlers<typeof handoffRoutes> {
  return {
    'handoff.store': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const notes = input.rollback_notes === undefined ? [] : Array.isArray(input.rollback_notes) ? input.rollback_notes : [input.rollback_notes];
      const r = await m.write(
        ref,
        ctx.actor,
        [
          {
            client_id: handoffKey(input.anchor),
            type: 'event',
            kind: 'handoff',
            title: input.title ?? `Handoff: ${input.anchor}`,
            text: render(input, notes),
            summary: input.summary ?? null,
            tags: input.tags,
            slots: {
              [HANDOFF_SLOT]: {
                anchor: input.anchor,
                handoff_text: input.handoff_text ?? '',
                target_files: input.target_files ?? [],
                next_action: input.next_action ?? null,
                acceptance_checks: input.acceptance_checks ?? [],
                rollback_notes: notes,
                handoff_kind: input.handoff_kind ?? null,
                session_id: input.session_id ?? null,
                run_id: input.run_id ?? null,
              },
            },
            execution: {
              target_files: input.target_files,
              next_action: input.next_action ?? null,
              acceptance_checks: input.acceptance_checks,
              run_id: input.run_id ?? null,
            },
          },
        ],
        [],
        { source: 'handoff' },
      );
      return { handoff: handoffView({ ...r.nodes[0]!.node, tenant_id: ref.tenant_id, scope: ref.scope }), ...writeResultView(r, ref) };
    },

    'handoff.recover': async (input, ctx) => {
      const ref = scopeRef(ctx.tenant_id, ctx.scope);
      const nodes = m.nodes(ref);
      const n = input.anchor !== undefined ? await nodes.getByClientId(handoffKey(input.anchor)) : await nodes.get(input.handoff_id!);
      if (!n || n.kind !== 'handoff') {
        const what = input.anchor !== undefined ? { anchor: input.anchor } : { handoff_id: input.handoff_id };
        throw notFound(input.anchor !== undefined ? 'handoff for anchor' : 'handoff', (input.anchor ?? input.handoff_id)!, ref.scope, what);
      }
      const history = input.include_history ? (await nodes.revisionsOf(n.id)).reverse().map(historyView) : [];
      return { handoff: handoffView(n), history };
    },
  };
}
