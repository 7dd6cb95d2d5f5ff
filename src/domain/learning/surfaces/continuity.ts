import { notFound } from '../../../contract/errors';
import type { StoredNode } from '../../../store/memory/nodes';
import type { ScopeRef } from '../../../store/scope';
import { anchorEvidence, latestHandoffEvidence, latestTerminal, type AnchorEvidence } from './continuity-evidence';
import type { LearningCtx } from '../context';
import { asObject } from '../../values';

/**
 * continuity/review-pack (interface spec, "Review packs"): can the task behind an anchor resume
 * safely? Built from the anchor's handoff when there is one (the handoff family stores one node
 * per anchor, with its structured fields in slots.handoff_v1) and the session it names, and from
 * whatever else names the anchor (continuity-evidence.ts): memory, session events, replay and
 * automation runs of the task. Without a handoff the contract is assembled from that evidence and
 * says resuming is not known to be safe. An anchor nothing names is not_found.
 */

const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function handoffFields(n: StoredNode) {
  const h = asObject(n.slots.handoff_v1);
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
    handoff_kind: str(h.handoff_kind),
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
  const e = asObject(n.slots.session_event_v1);
  return typeof e.event_type === 'string' ? e.event_type : 'note';
}

const unique = (xs: string[]) => [...new Set(xs.filter((x) => x !== ''))];

function latestRunView(e: AnchorEvidence | null) {
  if (!e) return null;
  return {
    node_id: e.node_id,
    run_id: e.run_id,
    outcome: e.outcome,
    title: e.title,
    summary: e.summary,
    error_signatures: e.error_signatures,
    created_at: e.created_at,
    source_kind: e.source_kind,
    ended_at: e.at,
  };
}

function evidenceView(e: AnchorEvidence) {
  return { id: e.id, source_kind: e.source_kind, node_id: e.node_id, run_id: e.run_id, title: e.title, summary: e.summary, outcome: e.outcome, files: e.files, at: e.at };
}

/**
 * The pack when the newest handoff is free text (memory that reads as a handoff, or a handoff
 * event): its files, next action, checks and rollback notes are read from its words and
 * extraction (continuity-evidence.ts), and resume_ready says whether they are complete.
 */
function fromFreeText(
  anchor: string,
  newest: AnchorEvidence,
  evidence: AnchorEvidence[],
  run: AnchorEvidence | null,
  resumeEvent: StoredNode | null,
  latest_terminal_run: ReturnType<typeof latestRunView>,
  anchor_evidence: ReturnType<typeof evidenceView>[],
) {
  const ho = newest.handoff!;
  const target_files = unique([...newest.files, ...evidence.filter((e) => e.id !== newest.id).flatMap((e) => e.files)]).slice(0, 20);
  const next_action = ho.next_action ?? evidence.find((e) => e.next_action)?.next_action ?? null;
  const acceptance_checks = unique([...newest.acceptance_checks, ...evidence.flatMap((e) => e.acceptance_checks)]).slice(0, 20);
  const blockers: string[] = [];
  if (target_files.length === 0) blockers.push('the handoff names no target files');
  if (!next_action) blockers.push('the handoff has no next action');
  if (acceptance_checks.length === 0) blockers.push('no acceptance checks: success cannot be verified');
  if (run?.outcome === 'failure') blockers.push(`the latest run failed${run.error_signatures[0] ? `: ${run.error_signatures[0]}` : ''}`);
  const evidence_ids = unique([newest.id, ...(resumeEvent ? [resumeEvent.id] : []), ...(run ? [run.id] : [])]);
  return {
    anchor,
    review_contract: {
      basis: 'handoff_text' as const,
      target_files,
      next_action,
      acceptance_checks,
      rollback_expectations: ho.rollback_notes.length > 0 ? ho.rollback_notes : ['no rollback notes recorded: revert the target files to their state at the handoff'],
      resume_ready: blockers.length === 0,
      blockers,
      evidence_ids,
    },
    latest_handoff: {
      handoff_id: newest.id,
      source_kind: newest.source_kind,
      anchor,
      title: newest.title,
      summary: newest.summary,
      next_action,
      revision: 1,
      previous_revision: null,
      updated_at: newest.at,
      evidence_ids,
    },
    latest_resume: resumeEvent
      ? { event_id: resumeEvent.id, event_type: eventType(resumeEvent), title: resumeEvent.title, summary: resumeEvent.summary, created_at: resumeEvent.created_at }
      : null,
    latest_terminal_run,
    recovered_handoff: null,
    anchor_evidence,
  };
}

export async function continuityReviewPack(ctx: LearningCtx, ref: ScopeRef, anchor: string) {
  const state = await ctx.scope(ref);
  const nodes = ctx.memory.nodes(ref);
  const carrier = state.handoffsOf(anchor).sort((a, b) => (a.updated_at < b.updated_at ? 1 : -1))[0];
  const found = (carrier ? await nodes.get(carrier.id) : null) ?? (await nodes.getByClientId(`~handoff:${anchor}`));
  const handoff = found && found.kind === 'handoff' ? found : null;
  const h = handoff ? handoffFields(handoff) : null;

  const events = h?.session_id ? await sessionEvents(ctx, ref, h.session_id) : [];
  const newestFirst = [...events].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
  const resume = newestFirst.find((e) => /resum/i.test(eventType(e))) ?? null;
  // Everything that names the anchor: memory, the handoff's session, runs of the task. The latest
  // terminal run is the newest of these that finished — never a run of another task.
  const evidence = await anchorEvidence(ctx, ref, anchor, { nodes: [...(handoff ? [handoff] : []), ...events], run_ids: h?.run_id ? [h.run_id] : [] });
  if (!handoff && evidence.length === 0) throw notFound('anything naming the anchor', anchor, ref.scope, { anchor });
  const run = latestTerminal(evidence.filter((e) => e.id !== handoff?.id));
  const latest_terminal_run = latestRunView(run);
  const anchor_evidence = evidence.map(evidenceView);
  // The newest handoff of any form; a free-text one (or a handoff event) newer than the store's
  // record, or without one, is what the pack is built from.
  const newest = latestHandoffEvidence(evidence);
  const resumeEvent = newestFirst.find((e) => /resum/i.test(eventType(e))) ?? null;
  if (newest && newest.id !== handoff?.id && (!handoff || newest.at > handoff.updated_at)) {
    return { continuity_review_pack: fromFreeText(anchor, newest, evidence, run, resumeEvent, latest_terminal_run, anchor_evidence) };
  }

  if (!handoff || !h) {
    // No structured handoff: the contract is assembled from the evidence, and says that resuming
    // is not known to be safe, and why.
    const target_files = unique(evidence.flatMap((e) => e.files)).slice(0, 20);
    const next_action = evidence.find((e) => e.next_action)?.next_action ?? null;
    const acceptance_checks = unique(evidence.flatMap((e) => e.acceptance_checks)).slice(0, 20);
    const blockers = [
      `no structured handoff for anchor '${anchor}': resuming is not known to be safe (this pack is assembled from ${evidence.length} piece(s) of evidence that name it)`,
    ];
    if (target_files.length === 0) blockers.push('the evidence names no target files');
    if (!next_action) blockers.push('the evidence records no next action');
    if (acceptance_checks.length === 0) blockers.push('no acceptance checks: success cannot be verified');
    if (run?.outcome === 'failure') blockers.push(`the latest run failed${run.error_signatures[0] ? `: ${run.error_signatures[0]}` : ''}`);
    return {
      continuity_review_pack: {
        anchor,
        review_contract: {
          basis: 'evidence' as const,
          target_files,
          next_action,
          acceptance_checks,
          rollback_expectations: ['no rollback notes recorded: revert the target files to their state before this task began'],
          resume_ready: false,
          blockers,
          evidence_ids: evidence.map((e) => e.id),
        },
        latest_handoff: null,
        latest_resume: null,
        latest_terminal_run,
        recovered_handoff: null,
        anchor_evidence,
      },
    };
  }

  const revisions = await nodes.revisionsOf(handoff.id);
  const previous = revisions.at(-1);
  const blockers: string[] = [];
  if (h.target_files.length === 0) blockers.push('the handoff names no target files');
  if (!h.next_action) blockers.push('the handoff has no next action');
  if (h.acceptance_checks.length === 0) blockers.push('no acceptance checks: success cannot be verified');
  if (run?.outcome === 'failure') blockers.push(`the latest run failed${run.error_signatures[0] ? `: ${run.error_signatures[0]}` : ''}`);
  if (handoff.tier === 'archive') blockers.push('the handoff is archived: rehydrate it first');

  return {
    continuity_review_pack: {
      anchor,
      review_contract: {
        basis: 'handoff' as const,
        target_files: h.target_files,
        next_action: h.next_action,
        acceptance_checks: h.acceptance_checks,
        rollback_expectations: h.rollback_notes.length > 0 ? h.rollback_notes : ['no rollback notes recorded: revert the target files to their state at the handoff'],
        resume_ready: blockers.length === 0,
        blockers,
        evidence_ids: unique([handoff.id, ...(resume ? [resume.id] : []), ...(run ? [run.id] : [])]),
      },
      latest_handoff: {
        handoff_id: handoff.id,
        source_kind: 'handoff' as const,
        anchor: h.anchor,
        title: handoff.title,
        summary: handoff.summary,
        next_action: h.next_action,
        revision: handoff.revision,
        previous_revision: previous ? { revision: previous.revision, summary: previous.summary, superseded_at: previous.superseded_at } : null,
        updated_at: handoff.updated_at,
        evidence_ids: unique([handoff.id, ...(resume ? [resume.id] : []), ...(run ? [run.id] : [])]),
      },
      latest_resume: resume ? { event_id: resume.id, event_type: eventType(resume), title: resume.title, summary: resume.summary, created_at: resume.created_at } : null,
      latest_terminal_run,
      recovered_handoff: h,
      anchor_evidence,
    },
  };
}
