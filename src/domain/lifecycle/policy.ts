import type { NodeKind, NodeType, Tier } from '../../model/memory/node';

/**
 * The forgetting policy in numbers (docs/forgetting.md explains each choice). Changing a weight
 * or a threshold changes decisions for every scope, so bump POLICY_VERSION with it: the version
 * is written into every decision.
 */
export const POLICY_VERSION = 3;

const DAY = 86_400_000;

/** How much a node is worth keeping before any use: runtime-owned kinds first, then types. */
export const KIND_PRIOR: Record<NodeKind, number> = {
  policy_memory: 0.9,
  workflow: 0.8,
  pattern: 0.7,
  playbook_learning: 0.7,
  workflow_anchor: 0.8,
  handoff: 0.6,
  session: 0.5,
  session_event: 0.3,
};
export const TYPE_PRIOR: Record<NodeType, number> = {
  rule: 0.8,
  self_model: 0.8,
  procedure: 0.75,
  concept: 0.6,
  entity: 0.55,
  topic: 0.55,
  evidence: 0.5,
  event: 0.4,
};

/**
 * Weights of the score's parts; they sum to 1, so the score is in 0..1. `value` is what the node
 * is worth regardless of use — the mean of its type prior, its importance and its feedback — and
 * is capped at 0.4 of the score, so memory nobody uses for long enough reaches the archive band
 * whatever its kind (an important node is sent to review instead, see REVIEW_IMPORTANCE).
 */
export const WEIGHTS = {
  value: 0.4,
  recency: 0.35,
  usage: 0.15,
  age: 0.1,
} as const;

/** Recency halves every RECENCY_HALF_LIFE of idleness; the age part halves every AGE_HALF_LIFE. */
export const RECENCY_HALF_LIFE_MS = 14 * DAY;
export const AGE_HALF_LIFE_MS = 90 * DAY;
/** Uses (recalls + 3 × activations) at which the usage part saturates. */
export const USAGE_SATURATION = 30;
export const ACTIVATION_USE_WEIGHT = 3;
/** Old popularity fades: the usage part halves every USAGE_HALF_LIFE of idleness. */
export const USAGE_HALF_LIFE_MS = 60 * DAY;

/** The tier a score earns: at or above the bound, that tier; below COLD_MIN, archive. */
export const TIER_BANDS = { hot: 0.5, warm: 0.38, cold: 0.28 } as const;

/**
 * Minimum time in a tier before the operator moves a node colder. This is what makes a run
 * idempotent: a second run at the same clock finds every node it just moved inside its dwell.
 */
export const DWELL_MS: Record<Exclude<Tier, 'archive'>, number> = { hot: 3 * DAY, warm: 7 * DAY, cold: 14 * DAY };

/** Archive only what has been idle, and has existed, at least this long. */
export const ARCHIVE_MIN_IDLE_MS = 30 * DAY;
export const ARCHIVE_MIN_AGE_MS = 30 * DAY;

/**
 * Hook noise: an event an agent's hooks recorded (a prompt or a tool call: kind `session_event`)
 * that no task reused: never recalled, activated or given feedback, not pinned. A year of hooks
 * is mostly this, so it cools on shorter clocks than other memory and reaches the archive first
 * (about a week after it was written, against six to eight weeks): what stays hot, and what
 * recall and restarts cost, follows the memory tasks use (docs/forgetting.md, "Hook noise").
 * Any use makes it ordinary memory again.
 */
export const NOISE = {
  /** Type prior (session_event's is 0.3). */
  prior: 0.15,
  /** Recency halves every 2 idle days (14 for other memory): unused, it earns the archive band after about a week. */
  recencyHalfLifeMs: 2 * DAY,
  /** Archived once idle and existing for a week (30 days for other memory). */
  archiveMinIdleMs: 7 * DAY,
  archiveMinAgeMs: 7 * DAY,
} as const;

/** An archive decision for a node at least this important is sent to review instead. */
export const REVIEW_IMPORTANCE = 0.8;

/** Feedback that disagrees with itself (both signs, |quality| below this) is contested. */
export const CONTESTED_QUALITY = 0.5;
/** Feedback that says a node is wrong (this many negatives, quality at or below -0.5) retires it. */
export const RETIRED_MIN_NEGATIVE = 2;
export const RETIRED_QUALITY = -0.5;
/** Feedback that says so repeatedly (this many negatives, quality at or below -0.75) archives a retired node at once. */
export const ARCHIVE_MIN_NEGATIVE = 3;
export const ARCHIVE_QUALITY = -0.75;

/** A rewrite of an unchanged decision is skipped unless the score moved at least this much. */
export const SCORE_EPSILON = 0.01;

/** Nodes one run examines per scope (the cursor carries the rest to the next run). */
export const DEFAULT_MAX_NODES_PER_RUN = 25_000;
export const MAX_NODES_PER_RUN_CAP = 100_000;
/** Nodes per operator activity (one page, one heartbeat-bounded activity). */
export const PAGE_SIZE = 250;
/** Decisions listed in a run's result; counts always cover every examined node. */
export const DECISIONS_IN_RESULT = 1000;

/**
 * Nodes one on-demand run over named nodes (feedback) decides at most; more pending ids wait for
 * the next run. Feedback names at most 200 nodes per request (ids + client_ids).
 */
export const MAX_NODES_PER_NODES_RUN = 500;
