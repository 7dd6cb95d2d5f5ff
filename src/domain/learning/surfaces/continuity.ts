import { notFound } from '../../../contract/errors';
import type { StoredNode } from '../../../store/memory/nodes';
import type { ScopeRef } from '../../../store/scope';
import { executionOf } from '../observe';
import type { LearningCtx } from '../runtime';

/**
 * continuity/review-pack (interface spec, "Review packs"): can the task behind an anchor resume
 * safely? Built from the anchor's handoff (the handoff family stores one node per anchor, with
 * its structured fields in slots.handoff_v1), the session it names, and the most recent terminal
 * execution recorded for its run or anchor. An anchor with no handoff is not_found.
 */

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function handoffFields(n: StoredNode) {
  const h = obj(n.slots.handoff_v1);
  return {
    handoff_id: n.id,
    anchor: str(h.anchor),
    title: n.title,
    summary: n.summary,
    handoff_text: str(h.handoff_text) ?? n.text,
    target_files: strs(h.target_files),
    next_action: str(h.next_action),
    acceptance_checks: strs(h.acceptance_checks),
    rollback_notes: strs(h.rollback_notes),
    session_id: str(h.session_id),
    run_id: str(h.run_id),
    revision: n.revision,
    tier: n.tier,
    actor: n.actor,
    updated_at: n.updated_at,
  };
}

const MAX_EVENTS = 1000;

async function sessionEvents(ctx: LearningCtx, ref: ScopeRef, sessionId: string): Promise<StoredNode[]> {
  const nodes = ctx.memory.nodes(ref);
  const session = await nodes.getByClientId(`~session:${sessionId}`);
  if (!session) return [];
  const ids: string[] = [];
  let after: string | undefined;
  while (ids.length < MAX_EVENTS) {
    const edges = await nodes.edgesInto(session.id, 'part_of', { limit: 200, after });
    ids.push(...edges.map((e) => e.src));
    if (edges.length < 200) break;
    after = edges[edges.length - 1]!.id;
  }
  return nodes.getMany(ids.slice(-100), { access: false });
}

function eventType(n: StoredNode): string {
  const e = obj(n.slots.session_event_v1);
  return typeof e.event_type === 'string' ? e.event_type : 'note';
}

const terminal = (n: StoredNode) => {
  const o = executionOf(n)?.outcome;
  return o === 'success' || o === 'failure' || o === 'partial';
};

export async function continuityReviewPack(ctx: LearningCtx, ref: ScopeRef, anchor: string) {
  const state = await ctx.scope(ref);
  const nodes = ctx.memory.nodes(ref);
  const carrier = state.handoffsOf(anchor).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))[0];
  const handoff = (carrier ? await nodes.get(carrier.id) : null) ?? (await nodes.getByClientId(`~handoff:${anchor}`));
  if (!handoff || handoff.kind !== 'handoff') throw notFound('handoff for anchor', anchor, ref.scope, { anchor });
  const h = handoffFields(handoff);
  const revisions = await nodes.revisionsOf(handoff.id);
  const previous = revisions.at(-1);

  const events = h.session_id ? await sessionEvents(ctx, ref, h.session_id) : [];
  const newestFirst = [...events].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
  const resume = newestFirst.find((e) => /resum/i.test(eventType(e))) ?? null;
  // Terminal evidence: the session's latest event with an outcome, else recall for the run or anchor.
  let run: StoredNode | null = newestFirst.find(terminal) ?? null;
  if (!run) {
    const text = [h.run_id, anchor, h.summary].filter(Boolean).join(' ');
    const hits = ctx.memory.index.search(ref.tenant_id, ref.scope, { text, vector: null, limit: 10, filter: {} });
    const found = (await nodes.getMany(hits.map((x) => x.docId), { access: false })).filter((n) => n.id !== handoff.id && terminal(n));
    run = found.find((n) => h.run_id && executionOf(n)?.run_id === h.run_id) ?? found.sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0] ?? null;
  }
  const runEx = run ? executionOf(run) : null;
  const blockers: string[] = [];
  if (h.target_files.length === 0) blockers.push('the handoff names no target files');
  if (!h.next_action) blockers.push('the handoff has no next action');
  if (h.acceptance_checks.length === 0) blockers.push('no acceptance checks: success cannot be verified');
  if (runEx?.outcome === 'failure') blockers.push(`the latest run failed${runEx.error_signatures[0] ? `: ${runEx.error_signatures[0]}` : ''}`);
  if (handoff.tier === 'archive') blockers.push('the handoff is archived: rehydrate it first');

  return {
    continuity_review_pack: {
      anchor,
      review_contract: {
        target_files: h.target_files,
        next_action: h.next_action,
        acceptance_checks: h.acceptance_checks,
        rollback_expectations: h.rollback_notes.length > 0 ? h.rollback_notes : ['no rollback notes recorded: revert the target files to their state at the handoff'],
        resume_ready: blockers.length === 0,
        blockers,
        evidence_ids: [handoff.id, ...(resume ? [resume.id] : []), ...(run ? [run.id] : [])],
      },
      latest_handoff: { handoff_id: handoff.id, anchor: h.anchor, title: handoff.title, summary: handoff.summary, revision: handoff.revision, previous_revision: previous ? { revision: previous.revision, summary: previous.summary, superseded_at: previous.superseded_at } : null, updated_at: handoff.updated_at },
      latest_resume: resume ? { event_id: resume.id, event_type: eventType(resume), title: resume.title, summary: resume.summary, created_at: resume.created_at } : null,
      latest_terminal_run: run
        ? { node_id: run.id, run_id: runEx?.run_id ?? null, outcome: runEx?.outcome ?? null, title: run.title, summary: run.summary, error_signatures: runEx?.error_signatures ?? [], created_at: run.created_at }
        : null,
      recovered_handoff: h,
    },
  };
}
