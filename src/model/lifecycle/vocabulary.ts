/**
 * The forgetting vocabulary (docs/forgetting.md): what the operator decides about a node, the
 * states it leaves in the node's slots (semantic_forgetting_v1, archive_relocation_v1), and how a
 * payload is read back. The slots' shapes are in ./slots.ts.
 */

import type { Tier } from '../memory/node';

export const LIFECYCLE_ACTIONS = ['retain', 'demote', 'archive', 'review'] as const;
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];

export const LIFECYCLE_STATES = ['active', 'contested', 'retired', 'archived'] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];

export const RELOCATION_STATES = ['none', 'candidate', 'cold_archive'] as const;
export type RelocationState = (typeof RELOCATION_STATES)[number];

export const RELOCATION_TARGETS = ['none', 'local_cold_store', 'external_object_store'] as const;
export type RelocationTarget = (typeof RELOCATION_TARGETS)[number];

export const PAYLOAD_SCOPES = ['none', 'node', 'anchor_payload'] as const;
export type PayloadScope = (typeof PAYLOAD_SCOPES)[number];

export const REHYDRATION_MODES = ['summary', 'partial', 'full', 'differential'] as const;
export type RehydrationMode = (typeof REHYDRATION_MODES)[number];
/** What anchor/payload/rehydrate accepts: the modes, and summary_only (an alias of summary). */
export const REHYDRATION_MODE_INPUTS = ['summary', 'summary_only', 'partial', 'full', 'differential'] as const satisfies readonly (RehydrationMode | 'summary_only')[];

/** Why a colder tier the score asked for was not applied. */
export const HOLD_REASONS = ['pinned', 'dwell', 'idle'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

/** applied: written; unchanged: the node already carried this decision; planned: dry run; conflict: the node changed meanwhile (next run). */
export const DECISION_OUTCOMES = ['applied', 'unchanged', 'planned', 'conflict'] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];

/** The tiers archive/rehydrate may bring a node back to. */
export const REHYDRATE_TARGET_TIERS = ['warm', 'hot'] as const satisfies readonly Tier[];
export type RehydrateTargetTier = (typeof REHYDRATE_TARGET_TIERS)[number];

/** lifecycle/run's answer: the run ended within wait_ms, or goes on. */
export const LIFECYCLE_RUN_STATUSES = ['completed', 'running'] as const;

/** Where a payload read came from. */
export const PAYLOAD_SOURCES = ['summary', 'node', 'cold_store'] as const;
export type PayloadSource = (typeof PAYLOAD_SOURCES)[number];

/** What a differential read is computed against. */
export const DIFF_BASES = ['summary', 'revision'] as const;
export type DiffBase = (typeof DIFF_BASES)[number];
