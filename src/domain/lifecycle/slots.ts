import type { NodeKind, Tier } from '../../model/memory/node';
import {
  LIFECYCLE_ACTIONS as ACTIONS,
  LIFECYCLE_STATES,
  PAYLOAD_SCOPES,
  RELOCATION_STATES,
  RELOCATION_TARGETS,
  type LifecycleAction as Action,
  type LifecycleState,
  type PayloadScope,
  type RelocationState,
  type RelocationTarget,
} from '../../model/lifecycle/vocabulary';
import type { ArchiveRelocationV1, DecisionRecord, SemanticForgettingV1 } from '../../model/lifecycle/slots';
import { ARCHIVE_MIN_NEGATIVE, ARCHIVE_QUALITY, CONTESTED_QUALITY, RETIRED_MIN_NEGATIVE, RETIRED_QUALITY } from './policy';

/**
 * The two slots the lifecycle family owns on every node it has looked at (contract.md §4). The
 * memory write path carries them over when a caller supersedes a node (RUNTIME_SLOTS), so a
 * rewrite does not erase what the operator decided. Their shapes are in src/model/lifecycle/slots.ts.
 */

export const SEMANTIC_SLOT = 'semantic_forgetting_v1';
export const RELOCATION_SLOT = 'archive_relocation_v1';

export { ACTIONS, LIFECYCLE_STATES, PAYLOAD_SCOPES, RELOCATION_STATES, RELOCATION_TARGETS };
export type { Action, LifecycleState, PayloadScope, RelocationState, RelocationTarget };
export { REHYDRATION_MODES, type RehydrationMode } from '../../model/lifecycle/vocabulary';

/** How many earlier decisions a node keeps: enough to read its path through the tiers, small enough for every node. */
export const DECISION_HISTORY = 8;

/** The history a new decision carries: the decision it replaces, then that one's history. */
export function decisionHistory(prev: SemanticForgettingV1 | null): DecisionRecord[] {
  if (!prev) return [];
  const record: DecisionRecord = {
    action: prev.action,
    current_tier: prev.current_tier,
    target_tier: prev.target_tier,
    lifecycle_state: prev.lifecycle_state,
    retention_score: prev.retention_score,
    rationale: prev.rationale,
    decided_at: prev.decided_at,
    run_id: prev.run_id,
  };
  return [record, ...(Array.isArray(prev.history) ? prev.history : [])].slice(0, DECISION_HISTORY);
}

/** See SemanticForgettingV1.basis. */
export function basisOf(
  n: { revision: number; pinned: boolean; importance: number; feedback?: { positive: number; negative: number }; access?: { count: number }; activation?: { count: number } },
  tier: string,
): string {
  return [n.revision, tier, n.pinned ? 1 : 0, n.importance, n.feedback?.positive ?? 0, n.feedback?.negative ?? 0, n.access?.count ?? 0, n.activation?.count ?? 0].join('|');
}

/**
 * Anchored workflow memory: runtime-owned nodes whose payload is the detail behind an anchor
 * (a learned workflow, a caller's declared workflow anchor, a handoff, a playbook learning). Their
 * relocation covers the anchor payload, and they are the candidates for `differential` rehydration.
 */
export const ANCHORED_KINDS: ReadonlySet<NodeKind> = new Set<NodeKind>(['workflow', 'workflow_anchor', 'handoff', 'playbook_learning']);

export const payloadScopeOf = (kind: NodeKind | null): Exclude<PayloadScope, 'none'> => (kind && ANCHORED_KINDS.has(kind) ? 'anchor_payload' : 'node');

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const oneOf = <T extends string>(values: readonly T[], v: unknown): T | null => (typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : null);

/** The node's semantic slot, or null when absent or not ours (a caller may write anything into slots). */
export function readSemantic(slots: Record<string, unknown>): SemanticForgettingV1 | null {
  const s = slots[SEMANTIC_SLOT];
  if (!isObj(s) || !oneOf(ACTIONS, s.action) || !oneOf(LIFECYCLE_STATES, s.lifecycle_state)) return null;
  return s as unknown as SemanticForgettingV1;
}

export function readRelocation(slots: Record<string, unknown>): ArchiveRelocationV1 | null {
  const s = slots[RELOCATION_SLOT];
  if (!isObj(s) || !oneOf(RELOCATION_STATES, s.relocation_state)) return null;
  return s as unknown as ArchiveRelocationV1;
}

/**
 * Whether the node's current payload is in the cold store: relocated, and not rewritten since (a
 * caller superseding an archived node puts a new payload on it, which is then local again).
 */
export function payloadRelocated(n: { revision: number; text: string; slots: Record<string, unknown> }): boolean {
  const rel = readRelocation(n.slots);
  return rel?.relocation_state === 'cold_archive' && !!rel.cold_key && (rel.revision === n.revision || n.text === '');
}

/** The relocation slot of a node whose payload stays local. */
export const noRelocation = (): ArchiveRelocationV1 => ({
  relocation_state: 'none',
  relocation_target: 'none',
  payload_scope: 'none',
  relocated_at: null,
  cold_key: null,
  payload_bytes: null,
  stored_bytes: null,
  payload_chars: null,
  payload_sha256: null,
  revision: null,
  rehydrated_at: null,
});

/** Feedback that says, again and again, that a node is wrong: archived at once (docs/forgetting.md). */
export function wrongRepeatedly(f: { positive?: number; negative?: number } | undefined): boolean {
  const pos = f?.positive ?? 0;
  const neg = f?.negative ?? 0;
  return neg >= ARCHIVE_MIN_NEGATIVE && (pos - neg) / (pos + neg) <= ARCHIVE_QUALITY;
}

/** active, contested (feedback disagrees with itself) or retired (feedback says it is wrong). */
export function feedbackState(f: { positive?: number; negative?: number } | undefined): Exclude<LifecycleState, 'archived'> {
  const pos = f?.positive ?? 0;
  const neg = f?.negative ?? 0;
  if (pos + neg === 0) return 'active';
  const q = (pos - neg) / (pos + neg);
  if (neg >= RETIRED_MIN_NEGATIVE && q <= RETIRED_QUALITY) return 'retired';
  if (pos >= 1 && neg >= 1 && Math.abs(q) < CONTESTED_QUALITY) return 'contested';
  return 'active';
}

/** Which counters a node falls under, from its tier and slots (and its feedback while undecided). */
export interface NodeClass {
  tier: Tier;
  action: Action | null;
  state: LifecycleState;
  relocationState: RelocationState;
  relocationTarget: RelocationTarget;
  payloadScope: PayloadScope;
  /** An operator run has written this node's decision (false: counted provisionally, see classify). */
  decided: boolean;
}

/**
 * A node's counters. With a decision slot: its action and lifecycle state. Without one (no
 * operator run has looked at it yet) it is counted as what is happening to it now, not as zero:
 * `retain` (nothing moves a node until the operator decides it), `archive` in the archive tier,
 * and `review` with state `contested` when its feedback disagrees with itself; its lifecycle
 * state is the one its feedback gives it (feedbackState above), so retired-by-feedback shows
 * before the operator's run lands.
 */
export function classify(tier: Tier, slots: Record<string, unknown> | undefined, feedback?: { positive: number; negative: number }): NodeClass {
  const sem = slots ? readSemantic(slots) : null;
  const rel = slots ? readRelocation(slots) : null;
  const base = {
    tier,
    relocationState: rel?.relocation_state ?? 'none',
    relocationTarget: oneOf(RELOCATION_TARGETS, rel?.relocation_target) ?? 'none',
    payloadScope: oneOf(PAYLOAD_SCOPES, rel?.payload_scope) ?? 'none',
  };
  if (sem) {
    const state: LifecycleState = tier === 'archive' ? 'archived' : sem.lifecycle_state !== 'archived' ? sem.lifecycle_state : 'active';
    return { ...base, action: sem.action, state, decided: true };
  }
  if (tier === 'archive') return { ...base, action: 'archive', state: 'archived', decided: false };
  const state = feedbackState(feedback);
  return { ...base, action: state === 'contested' ? 'review' : 'retain', state, decided: false };
}
