import type { RunStatus as AutomationRunStatus } from '../../../model/automation/graph';
import type { RunDoc as AutomationRunDoc } from '../../../model/automation/records';
import type { Json, RunDoc as ReplayRunDoc, StepDoc } from '../../../model/replay/types';
import { AutomationRuns } from '../../../store/automation/runs';
import type { StoredNode } from '../../../store/memory/nodes';
import { ReplayRuns, ReplaySteps } from '../../../store/replay';
import type { ScopeRef } from '../../../store/scope';
import { executionOf } from '../observe';
import type { LearningCtx } from '../context';
import { asObject } from '../../values';
import type { EvidenceKind } from '../../../model/learning/vocabulary';

/**
 * What exists about an anchor's task, for the continuity review pack (docs/learning.md,
 * "Continuity review pack"): memory that names the anchor (writes, session events, handoffs), the
 * events of a session the anchor or its handoff names, and the replay and automation runs of the
 * task. Every read is bounded and index-served: one BM25 lookup of the anchor's words, client_id
 * and run_id lookups, and the replay runs whose metadata.anchor is the anchor.
 *
 * "Names the anchor": the anchor occurs as a whole token (case-insensitive) in the node's title,
 * text, summary, tags or client_id, or is its execution's run_id, its session's id or its
 * handoff's anchor; an execution of a run the caller knows (the handoff's run_id) counts too. A run is of the task when its run_id is the anchor, its metadata.anchor is
 * the anchor, or memory naming the anchor cites its run_id; an automation run when its run_id or
 * automation_id is the anchor, or it ran one of those replay runs.
 */

export type { EvidenceKind } from '../../../model/learning/vocabulary';

export interface AnchorEvidence {
  id: string;
  source_kind: EvidenceKind;
  node_id: string | null;
  run_id: string | null;
  title: string | null;
  summary: string;
  /** success | failure | partial | cancelled when the evidence records a finished attempt; else null. */
  outcome: string | null;
  error_signatures: string[];
  files: string[];
  next_action: string | null;
  acceptance_checks: string[];
  created_at: string;
  /** When the attempt ended (runs), else the node's last update. */
  at: string;
  /**
   * Set when the evidence is a handoff: a handoff-store record, memory that reads as one (free
   * text: "handoff …", or slots.summary_kind "handoff"), or a session event of type handoff.
   */
  handoff: { next_action: string | null; rollback_notes: string[] } | null;
}

/** Words that make free text a handoff ("Handoff for anchor X: …", "handing off", "hand-over"). */
const HANDOFF_RE = /\bhand(?:ing)?[\s-]?(?:off|over)s?\b/i;

/**
 * The segments of a free-text handoff: "next action: …" / "next step: …" / "next: …" and
 * "rollback: …" / "to roll back: …", each up to the next `;`, sentence end or line end.
 */
export function handoffSegments(text: string): { next_action: string | null; rollback_notes: string[] } {
  const parts = text.split(/;|\n|\.(?=\s|$)/).map((p) => p.trim());
  const after = (re: RegExp) => parts.map((p) => re.exec(p)?.[1]?.trim()).filter((x): x is string => !!x && x.length >= 3);
  return {
    next_action: after(/^(?:.*?\b)?next(?:\s+(?:step|action))?\s*:\s*(.+)$/i)[0] ?? null,
    rollback_notes: after(/^(?:.*?\b)?(?:rollback|roll[\s-]back|to roll back)\s*:\s*(.+)$/i),
  };
}

/** Whether a node reads as a handoff (its kind, its caller's summary_kind, its event type or its words). */
function readsAsHandoff(n: StoredNode): boolean {
  if (n.kind === 'handoff') return true;
  if (str(n.slots.summary_kind) === 'handoff') return true;
  const event = str(asObject(n.slots.session_event_v1).event_type);
  if (event && /hand.?(?:off|over)/i.test(event)) return true;
  return [n.title, n.summary, n.text].some((t) => !!t && HANDOFF_RE.test(t));
}

const LEXICAL_CANDIDATES = 50;
const MAX_CITED_RUNS = 20;
const MAX_ANCHOR_RUNS = 20;
const MAX_EVIDENCE = 50;
/** What learning made of the evidence is not evidence of the task's state. */
const LEARNED_KINDS = new Set(['workflow', 'pattern', 'policy_memory']);
const FILE_KEYS = ['file_path', 'path', 'file', 'filename', 'target_file'];

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `text` contains `anchor` as a whole token (not inside a longer word). */
export function namesAnchor(text: string | null | undefined, anchor: string): boolean {
  if (!text) return false;
  return new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(anchor)}(?![\\p{L}\\p{N}_])`, 'iu').test(text);
}

function nodeNamesAnchor(n: StoredNode, anchor: string): boolean {
  const ex = executionOf(n);
  if (ex?.run_id === anchor) return true;
  if (str(asObject(n.slots.session_event_v1).session_id) === anchor) return true;
  if (str(asObject(n.slots.handoff_v1).anchor) === anchor) return true;
  return [n.title, n.text, n.summary, n.client_id, n.tags.join(' ')].some((t) => namesAnchor(t, anchor));
}

function nodeEvidence(n: StoredNode): AnchorEvidence {
  const ex = executionOf(n);
  const outcome = ex?.outcome ?? null;
  const kind: EvidenceKind = n.kind === 'handoff' || n.kind === 'session' || n.kind === 'session_event' ? n.kind : 'memory';
  return {
    id: n.id,
    source_kind: kind,
    node_id: n.id,
    run_id: ex?.run_id ?? null,
    title: n.title,
    summary: n.summary,
    outcome,
    error_signatures: ex?.error_signatures ?? [],
    files: [...new Set([...(ex?.target_files ?? []), ...(ex?.file_paths ?? [])])],
    next_action: ex?.next_action ?? null,
    acceptance_checks: ex?.acceptance_checks ?? [],
    created_at: n.created_at,
    at: n.updated_at,
    handoff: readsAsHandoff(n) ? handoffOfNode(n, ex?.next_action ?? null) : null,
  };
}

function handoffOfNode(n: StoredNode, extracted: string | null): { next_action: string | null; rollback_notes: string[] } {
  const h = asObject(n.slots.handoff_v1);
  if (n.kind === 'handoff') {
    const notes = Array.isArray(h.rollback_notes) ? h.rollback_notes.filter((x): x is string => typeof x === 'string') : [];
    return { next_action: str(h.next_action) ?? extracted, rollback_notes: notes };
  }
  const seg = handoffSegments([n.title, n.text || n.summary].filter(Boolean).join('\n'));
  return { next_action: seg.next_action ?? extracted, rollback_notes: seg.rollback_notes };
}

function fileOf(input: Json | null): string | null {
  const o = asObject(input);
  for (const k of FILE_KEYS) if (typeof o[k] === 'string' && (o[k] as string).trim() !== '') return (o[k] as string).trim();
  return null;
}

function replayEvidence(r: ReplayRunDoc, steps: StepDoc[]): AnchorEvidence {
  const ended = r.state === 'ended';
  const failed = steps.filter((s) => s.status === 'failed' && s.error).map((s) => s.error!.split('\n')[0]!.slice(0, 200));
  return {
    id: `replay_run:${r.run_id}`,
    source_kind: 'replay_run',
    node_id: null,
    run_id: r.run_id,
    title: r.goal,
    summary: r.summary ?? `${r.source} replay run "${r.goal}" (${r.status}, ${steps.length} steps)`,
    outcome: ended ? r.status : null,
    error_signatures: failed,
    files: [...new Set(steps.map((s) => fileOf(s.tool_input)).filter((f): f is string => !!f))],
    next_action: null,
    acceptance_checks: [],
    created_at: r.created_at,
    at: r.ended_at ?? r.updated_at,
    handoff: null,
  };
}

const AUTOMATION_OUTCOME: Partial<Record<AutomationRunStatus, string>> = { succeeded: 'success', failed: 'failure', cancelled: 'cancelled' };

function automationEvidence(r: AutomationRunDoc): AnchorEvidence {
  return {
    id: `automation_run:${r.run_id}`,
    source_kind: 'automation_run',
    node_id: null,
    run_id: r.run_id,
    title: r.automation_name,
    summary: `automation run of ${r.automation_id} (${r.status})${r.reason ? `: ${r.reason}` : ''}`,
    outcome: AUTOMATION_OUTCOME[r.status] ?? null,
    error_signatures: r.error?.message ? [r.error.message.split('\n')[0]!.slice(0, 200)] : [],
    files: [],
    next_action: null,
    acceptance_checks: [],
    created_at: r.created_at,
    at: r.finished_at ?? r.updated_at,
    handoff: null,
  };
}

/**
 * The evidence of an anchor's task, newest first (at most MAX_EVIDENCE). `known` are nodes the
 * caller already holds (the handoff and its session's events), counted as evidence as they are.
 */
export async function anchorEvidence(ctx: LearningCtx, ref: ScopeRef, anchor: string, known: { nodes: StoredNode[]; run_ids: string[] }): Promise<AnchorEvidence[]> {
  const nodes = ctx.memory.nodes(ref);
  const replayRuns = new ReplayRuns(ctx.db, ref);
  const replaySteps = new ReplaySteps(ctx.db, ref);
  const automationRuns = new AutomationRuns(ctx.db, ref);

  // Memory: the anchor's words through the recall index (BM25 only), kept when the node names it.
  await ctx.memory.catchUp();
  const search = (text: string) =>
    ctx.memory.index.search(ref.tenant_id, ref.scope, { text, vector: null, limit: LEXICAL_CANDIDATES, filter: { includeArchived: true }, plain: true });
  // The run ids the caller knows (a handoff's run) are looked up the same way: executions of that run.
  const hits = [...search(anchor), ...(known.run_ids.length > 0 ? search(known.run_ids.join(' ')) : [])];
  const runIds = new Set(known.run_ids);
  const [lexical, session] = await Promise.all([nodes.getMany([...new Set(hits.map((h) => h.docId))], { access: false }), nodes.getByClientId(`~session:${anchor}`)]);
  const sessionEvents = session
    ? await nodes.getMany(
        (await nodes.edgesInto(session.id, 'part_of', { limit: 200 })).map((e) => e.src),
        { access: false },
      )
    : [];
  const byId = new Map<string, StoredNode>();
  const ofTask = (n: StoredNode) => nodeNamesAnchor(n, anchor) || runIds.has(executionOf(n)?.run_id ?? '');
  for (const n of [...known.nodes, ...sessionEvents, ...lexical.filter(ofTask)]) {
    if (n.type === 'rule' || (n.kind && LEARNED_KINDS.has(n.kind))) continue;
    byId.set(n.id, n);
  }
  const memory = [...byId.values()].map(nodeEvidence);

  // Runs of the task: by its own id, by metadata.anchor, and the ones its memory cites.
  const cited = [...new Set([anchor, ...known.run_ids, ...memory.map((e) => e.run_id).filter((r): r is string => !!r)])].slice(0, MAX_CITED_RUNS);
  const [byRunId, byAnchor, automationById, automationByName] = await Promise.all([
    Promise.all(cited.map((id) => replayRuns.get(id))),
    replayRuns.listByAnchor(anchor, MAX_ANCHOR_RUNS),
    Promise.all(cited.map((id) => automationRuns.get(id))),
    automationRuns.list({ automation_id: anchor, limit: MAX_ANCHOR_RUNS }),
  ]);
  const replay = new Map<string, ReplayRunDoc>();
  for (const r of [...byRunId, ...byAnchor]) if (r) replay.set(r.run_id, r);
  const automation = new Map<string, AutomationRunDoc>();
  for (const r of [...automationById, ...automationByName]) if (r) automation.set(r.run_id, r);
  // An automation run's playbook run belongs to the same task.
  for (const a of automation.values()) {
    if (a.replay_run_id && !replay.has(a.replay_run_id)) {
      const r = await replayRuns.get(a.replay_run_id);
      if (r) replay.set(r.run_id, r);
    }
  }
  const runs = await Promise.all([...replay.values()].map(async (r) => replayEvidence(r, await replaySteps.list(r._id))));

  const all = [...memory, ...runs, ...[...automation.values()].map(automationEvidence)];
  return all.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.id < b.id ? -1 : 1)).slice(0, MAX_EVIDENCE);
}

/** The newest evidence that records a finished attempt of the task (the "latest terminal run"); handoffs are state handed on, not attempts. */
export const latestTerminal = (evidence: AnchorEvidence[]): AnchorEvidence | null => evidence.find((e) => e.outcome !== null && !e.handoff) ?? null;

/** The newest handoff among the evidence (store records, free-text handoffs, handoff events). */
export const latestHandoffEvidence = (evidence: AnchorEvidence[]): AnchorEvidence | null => evidence.find((e) => e.handoff !== null) ?? null;
