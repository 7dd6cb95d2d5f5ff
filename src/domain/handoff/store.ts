import type { handoffRoutes } from '../../contract/families/handoff';
import type { RouteInput } from '../../contract/route';
import type { ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/context';
import { executionState } from '../memory/packet';
import { writeResultView } from '../memory/views';
import { HANDOFF_SLOT, handoffKey, handoffView } from './views';

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

/** Stores (or revises) the handoff of an anchor. */
export async function storeHandoff(m: MemoryServices, ref: ScopeRef, input: RouteInput<(typeof handoffRoutes)['handoff.store']>, actor: string) {
  const notes = input.rollback_notes === undefined ? [] : Array.isArray(input.rollback_notes) ? input.rollback_notes : [input.rollback_notes];
  const r = await m.write(
    ref,
    actor,
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
          ...executionState(input),
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
}
