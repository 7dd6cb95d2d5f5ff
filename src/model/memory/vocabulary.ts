/**
 * Values of the memory family's requests and answers (write, recall, feedback). The node's own
 * vocabulary (types, kinds, tiers, edge types) is in node.ts.
 */

/** How a node write ended: a new node, the same content again, or a new revision of the node. */
export const WRITE_OUTCOMES = ['created', 'deduplicated', 'superseded'] as const;
export type WriteOutcome = (typeof WRITE_OUTCOMES)[number];

/** How an execution (a task, a run) ended, as callers report it. */
export const EXECUTION_OUTCOMES = ['success', 'failure', 'partial'] as const;
export type ExecutionOutcome = (typeof EXECUTION_OUTCOMES)[number];

/** Feedback on a node, a pattern or a policy memory. */
export const FEEDBACK_OUTCOMES = ['positive', 'negative', 'neutral'] as const;
export type FeedbackOutcome = (typeof FEEDBACK_OUTCOMES)[number];

/** How recall ranked: lexical only, or lexical and vector fused by reciprocal rank. */
export const RECALL_STRATEGIES = ['bm25', 'hybrid_rrf'] as const;
export type RecallStrategy = (typeof RECALL_STRATEGIES)[number];

/** A workflow a write touched: learned from executions, or declared by a workflow anchor. */
export const WORKFLOW_ANCHOR_SOURCES = ['learned', 'declared'] as const;
