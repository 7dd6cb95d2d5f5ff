/**
 * The two slots the lifecycle family owns on every node it has looked at (contract.md §4;
 * docs/forgetting.md): the operator's latest decision and where the node's payload lives. Their
 * slot names and the functions that read and write them are in src/domain/lifecycle/slots.ts.
 */

import type { Tier } from '../memory/node';
import type { LifecycleAction, LifecycleState, PayloadScope, RelocationState, RelocationTarget } from './vocabulary';

/**
 * What the operator decided about a node: the latest decision (SemanticForgettingV1) and each
 * earlier one it keeps in SemanticForgettingV1.history.
 */
export interface DecisionRecord {
  action: LifecycleAction;
  /** The tier when the decision was made. */
  current_tier: Tier;
  /** The tier after the decision was acted on (equal to current_tier unless demoted, archived or rehydrated). */
  target_tier: Tier;
  lifecycle_state: LifecycleState;
  retention_score: number;
  rationale: string[];
  decided_at: string;
  /** The run that made the decision (a rehydrate or pin writes its own marker). */
  run_id: string;
}

/** slots.semantic_forgetting_v1: the operator's latest decision about a node. */
export interface SemanticForgettingV1 extends DecisionRecord {
  /** When the node entered its current tier: the dwell clock (docs/forgetting.md). */
  tier_changed_at: string;
  /** Version of the scoring policy that produced the score. */
  policy: number;
  /**
   * The inputs the decision was made from (revision, tier after acting, pinned, importance and
   * the use counters): a run at the same clock over unchanged inputs leaves the decision alone.
   */
  basis: string;
  /**
   * The decisions this one replaced, newest first (at most DECISION_HISTORY): what the inspector
   * shows as the node's forgetting history. Absent on slots written before it existed.
   */
  history?: DecisionRecord[];
  /**
   * Set while feedback keeps a node colder than it was (docs/forgetting.md, "Feedback acts when it
   * is given"): the tier it had before feedback demoted or archived it, where a later outcome that
   * lifts the verdict restores it.
   */
  feedback_from_tier?: Tier | null;
}

/** slots.archive_relocation_v1: where the node's payload lives. */
export interface ArchiveRelocationV1 {
  relocation_state: RelocationState;
  relocation_target: RelocationTarget;
  payload_scope: PayloadScope;
  relocated_at: string | null;
  /** Cold-store key of the relocated payload (`<node id>:<revision>`); null unless cold_archive. */
  cold_key: string | null;
  /** Payload size in UTF-8 bytes, and as stored (compressed). */
  payload_bytes: number | null;
  stored_bytes: number | null;
  /** Payload length in Unicode code points (what partial rehydration counts). */
  payload_chars: number | null;
  /** sha256 (hex) of the UTF-8 payload: the restore checks it, byte for byte. */
  payload_sha256: string | null;
  /** The node revision whose payload was relocated. */
  revision: number | null;
  rehydrated_at: string | null;
}
