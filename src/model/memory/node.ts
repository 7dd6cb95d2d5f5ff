/**
 * The memory node (contract.md §2): everything the runtime remembers or learns. Evidence written
 * by callers and what the runtime derives (workflows, patterns, policy memories, handoffs,
 * sessions, session events) share this one shape, one collection and one write path, so
 * recall, forgetting and packs treat them alike.
 */

import type { FeedbackOutcome } from './vocabulary';

export const NODE_TYPES = ['event', 'evidence', 'entity', 'topic', 'concept', 'procedure', 'rule', 'self_model'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/**
 * Runtime-owned kinds. `workflow_anchor` is a workflow a caller declares (a node written with
 * slots.anchor_v1.anchor_kind "workflow", as existing clients write them): listed beside the
 * learned workflows, with its payload behind the anchor (docs/memory.md, "Workflow anchors").
 */
export const MEMORY_NODE_KINDS = ['workflow', 'pattern', 'policy_memory', 'handoff', 'session', 'session_event', 'playbook_learning', 'workflow_anchor'] as const;
export type NodeKind = (typeof MEMORY_NODE_KINDS)[number];

/** Hottest first. Demotion moves one step right; archive is the end of the line (and reversible). */
export const TIERS = ['hot', 'warm', 'cold', 'archive'] as const;
export type Tier = (typeof TIERS)[number];

export interface Feedback {
  positive: number;
  negative: number;
  /** (positive - negative) / (positive + negative), 0 without feedback. */
  quality: number;
  last_outcome: FeedbackOutcome | null;
  last_at: string | null;
  /** The reason given with the latest outcome (nodes/activate `reason`); absent before it existed. */
  last_reason?: string | null;
}

export interface Access {
  count: number;
  last_at: string | null;
}

export interface Activation {
  count: number;
  last_activated_at: string | null;
}

export interface MemoryNode {
  id: string;
  /** The caller's id; unique within the scope when given. */
  client_id: string | null;
  type: NodeType;
  /** Set for runtime-owned nodes. */
  kind: NodeKind | null;
  tier: Tier;
  title: string | null;
  /** The payload. Empty while archived (it lives in the cold store until rehydrated). */
  text: string;
  /** Short form that survives archiving and stays searchable. */
  summary: string;
  tags: string[];
  /** Versioned sub-objects: execution_native_v1, semantic_forgetting_v1, archive_relocation_v1, … */
  slots: Record<string, unknown>;
  salience: number;
  importance: number;
  confidence: number;
  feedback: Feedback;
  access: Access;
  activation: Activation;
  /** Pinned nodes are never demoted or archived. */
  pinned: boolean;
  /** 1 at creation; +1 each time the content is superseded (older contents are kept as revisions). */
  revision: number;
  /** sha256 of the canonical content, for client_id idempotency. */
  content_hash: string;
  /** Monotonic write sequence across the store; other processes catch up by it. */
  seq: number;
  actor: string;
  /** The write call (commit) that produced the current content; absent on nodes written before it existed. */
  commit_id?: string | null;
  created_at: string;
  updated_at: string;
}

export interface NodeRevision {
  node_id: string;
  revision: number;
  title: string | null;
  text: string;
  summary: string;
  slots: Record<string, unknown>;
  tags: string[];
  content_hash: string;
  actor: string;
  /** When this content stopped being current. */
  superseded_at: string;
  created_at: string;
}

export const MEMORY_EDGE_TYPES = ['part_of', 'related_to', 'derived_from'] as const;
export type EdgeType = (typeof MEMORY_EDGE_TYPES)[number];

export interface MemoryEdge {
  id: string;
  src: string;
  dst: string;
  type: EdgeType;
  actor: string;
  created_at: string;
}

export const emptyFeedback = (): Feedback => ({ positive: 0, negative: 0, quality: 0, last_outcome: null, last_at: null });
export const feedbackQuality = (positive: number, negative: number) => (positive + negative === 0 ? 0 : (positive - negative) / (positive + negative));
