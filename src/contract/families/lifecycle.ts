import { z } from 'zod';
import { BoundedText, CallerId, Limit, Timestamp, countsOf, echoFields, identityFields } from '../common';
import { route } from '../route';
import {
  DECISION_OUTCOMES,
  DIFF_BASES,
  HOLD_REASONS,
  LIFECYCLE_ACTIONS,
  LIFECYCLE_RUN_STATUSES,
  LIFECYCLE_STATES,
  PAYLOAD_SOURCES,
  REHYDRATE_TARGET_TIERS,
  REHYDRATION_MODE_INPUTS,
  REHYDRATION_MODES,
} from '../../model/lifecycle/vocabulary';
import { FEEDBACK_OUTCOMES } from '../../model/memory/vocabulary';
import { ForgettingSummary } from '../shapes/forgetting';
import { lifecycleReadRoutes } from './lifecycle-reads';
import { NodeKindEnum, NodeTypeEnum, TierEnum } from './memory-schemas';

/**
 * Routes of the lifecycle family: semantic forgetting (contract.md §4, docs/forgetting.md). The
 * operator run, archive rehydration, node activation and anchor payload rehydration are the
 * spec's; lifecycle/summary and nodes/pin are ours (the summary without a planning call, and the
 * only way to pin a node over HTTP).
 */

/** Caps of this family (docs/forgetting.md). */
export const MAX_NODES_PER_REQUEST = 100;
export const MAX_RUN_NODES = 100_000;
export const MAX_PARTIAL_CHARS = 65_536;

const NodeId = z.string().min(1).max(200);
const Reason = BoundedText(4096).optional();

/** Which nodes a request is about: ids (alias node_ids) and/or client_ids (at least one). */
const nodeSelection = {
  client_ids: z.array(CallerId).max(MAX_NODES_PER_REQUEST).optional(),
  ids: z.array(NodeId).max(MAX_NODES_PER_REQUEST).optional(),
  node_ids: z.array(NodeId).max(MAX_NODES_PER_REQUEST).optional().describe('alias of ids'),
};
const needsSelection = (v: { client_ids?: string[]; ids?: string[]; node_ids?: string[] }, ctx: z.RefinementCtx) => {
  if ((v.client_ids?.length ?? 0) + (v.ids?.length ?? 0) + (v.node_ids?.length ?? 0) === 0) {
    ctx.addIssue({ code: 'custom', path: ['client_ids'], message: 'give client_ids and/or ids (alias node_ids): at least one node' });
  }
  if ((v.ids?.length ?? 0) + (v.node_ids?.length ?? 0) > MAX_NODES_PER_REQUEST) {
    ctx.addIssue({ code: 'custom', path: ['ids'], message: `ids and node_ids together name at most ${MAX_NODES_PER_REQUEST} nodes` });
  }
};
/** node_ids joins ids: the handlers see one list. */
const mergeIds = <T extends { ids?: string[] | undefined; node_ids?: string[] | undefined }>({ node_ids, ...v }: T) => ({
  ...v,
  ids: v.ids || node_ids ? [...(v.ids ?? []), ...(node_ids ?? [])] : undefined,
});

const ActionEnum = z.enum(LIFECYCLE_ACTIONS);
const LifecycleStateEnum = z.enum(LIFECYCLE_STATES);
const n = z.number().int();

const RunCounts = z.object({
  actions: countsOf(LIFECYCLE_ACTIONS),
  outcomes: countsOf(DECISION_OUTCOMES),
  moves: z.object({ demoted: n, archived: n }),
  held: countsOf(HOLD_REASONS),
});

const DecisionOut = z.object({
  id: z.string(),
  client_id: z.string().nullable(),
  kind: z.string().nullable(),
  action: ActionEnum,
  current_tier: TierEnum,
  target_tier: TierEnum,
  lifecycle_state: LifecycleStateEnum,
  retention_score: z.number(),
  rationale: z.array(z.string()),
  held: z.enum(HOLD_REASONS).nullable(),
  outcome: z.enum(DECISION_OUTCOMES),
});

export const LifecycleRunInput = z.object({
  ...identityFields,
  dry_run: z.boolean().default(false),
  max_nodes: z.number().int().min(1).max(MAX_RUN_NODES).optional().describe('nodes this run examines (default 25000); the next run continues where it stopped'),
  wait_ms: z.number().int().min(1000).max(600_000).default(120_000).describe('how long to wait for the run; past it the run goes on and status is running'),
});

const ReviewCandidate = z.object({
  id: z.string(),
  client_id: z.string().nullable(),
  type: NodeTypeEnum,
  kind: NodeKindEnum.nullable(),
  tier: TierEnum,
  title: z.string().nullable(),
  summary: z.string(),
  lifecycle_state: LifecycleStateEnum,
  retention_score: z.number(),
  rationale: z.array(z.string()),
  decided_at: Timestamp,
});

export const ArchiveRehydrateInput = z
  .object({
    ...identityFields,
    ...nodeSelection,
    target_tier: z.enum(REHYDRATE_TARGET_TIERS).default('warm'),
    reason: Reason,
  })
  .superRefine(needsSelection)
  .transform(mergeIds);

export const NodesActivateInput = z
  .object({
    ...identityFields,
    ...nodeSelection,
    outcome: z.enum(FEEDBACK_OUTCOMES).optional().describe('absent: no feedback is recorded, only the activation'),
    activate: z.boolean().default(true),
    reason: Reason,
  })
  .superRefine(needsSelection)
  .transform(mergeIds);

export const NodesPinInput = z
  .object({
    ...identityFields,
    ...nodeSelection,
    pinned: z.boolean().default(true),
    reason: Reason,
  })
  .superRefine(needsSelection)
  .transform(mergeIds);

export const PayloadRehydrateInput = z
  .object({
    ...identityFields,
    anchor_id: NodeId.optional().describe('id or client_id of the anchor node (a workflow, handoff or playbook learning)'),
    node_id: NodeId.optional(),
    client_id: CallerId.optional(),
    mode: z
      .enum(REHYDRATION_MODE_INPUTS)
      .default('partial')
      .transform((m) => (m === 'summary_only' ? 'summary' : m))
      .describe('summary_only is an alias of summary'),
    max_chars: z.number().int().min(1).max(MAX_PARTIAL_CHARS).default(2000).describe('partial: how many characters (code points) of the payload to return'),
    base_revision: z.number().int().min(1).optional().describe('differential: the revision the caller already has (default: the current summary)'),
    reason: Reason,
  })
  .superRefine((v, ctx) => {
    const given = [v.anchor_id, v.node_id, v.client_id].filter((x) => x !== undefined).length;
    if (given !== 1) ctx.addIssue({ code: 'custom', path: ['anchor_id'], message: 'give exactly one of anchor_id, node_id or client_id' });
  });

const FeedbackOut = z.object({
  positive: z.number(),
  negative: z.number(),
  quality: z.number(),
  last_outcome: z.string().nullable(),
  last_at: z.string().nullable(),
  last_reason: z.string().nullable().optional().describe('the reason given with the latest outcome'),
});

export const lifecycleRoutes = {
  'memory.lifecycle.run': route({
    name: 'memory.lifecycle.run',
    path: '/v1/memory/lifecycle/run',
    summary:
      'Run the forgetting operator on this scope now (a Temporal workflow) and return its decisions: retain, demote, archive or review per node, with scores and rationale. dry_run decides without acting.',
    input: LifecycleRunInput,
    output: z.object({
      ...echoFields,
      status: z.enum(LIFECYCLE_RUN_STATUSES),
      run_id: z.string(),
      workflow_id: z.string(),
      dry_run: z.boolean(),
      decided_at: Timestamp.nullable(),
      examined: n,
      complete: z.boolean(),
      cursor: z.string().nullable(),
      counts: RunCounts,
      decisions: z.array(DecisionOut),
      decisions_truncated: z.boolean(),
      forgetting_summary: ForgettingSummary,
    }),
    errors: ['conflict'],
  }),
  'memory.lifecycle.summary': route({
    name: 'memory.lifecycle.summary',
    path: '/v1/memory/lifecycle/summary',
    summary:
      'The scope’s forgetting summary (counts by action, lifecycle state, relocation, tier and rehydration mode, and a recommended action) and the nodes waiting for review.',
    input: z.object({ ...identityFields, review_limit: Limit(20, 100) }),
    output: z.object({ ...echoFields, forgetting_summary: ForgettingSummary, review_candidates: z.array(ReviewCandidate) }),
  }),
  'memory.archiveRehydrate': route({
    name: 'memory.archiveRehydrate',
    path: '/v1/memory/archive/rehydrate',
    summary:
      'Bring archived nodes back to target_tier (warm or hot) with their payload restored byte for byte from the cold store. Never moves a node colder; unknown ids are listed under not_found.',
    input: ArchiveRehydrateInput,
    output: z.object({
      ...echoFields,
      target_tier: z.enum(REHYDRATE_TARGET_TIERS),
      nodes: z.array(
        z.object({
          id: z.string(),
          client_id: z.string().nullable(),
          from_tier: TierEnum,
          to_tier: TierEnum,
          payload_restored: z.boolean(),
          payload_bytes: n.nullable(),
          detail: z.string().nullable(),
        }),
      ),
      not_found: z.array(z.string()),
      rehydrated: z
        .object({ moved_nodes: n.describe('nodes whose tier changed'), restored_payloads: n.describe('payloads restored from the cold store') })
        .describe('the same in two counts (existing clients read them)'),
      forgetting_summary: ForgettingSummary,
    }),
    errors: ['conflict'],
  }),
  'memory.nodesActivate': route({
    name: 'memory.nodesActivate',
    path: '/v1/memory/nodes/activate',
    summary:
      'Record reuse feedback on nodes: outcome updates the feedback counters and quality, activate counts an activation (count, last_activated_at). Nothing else on the node changes.',
    input: NodesActivateInput,
    output: z.object({
      ...echoFields,
      outcome: z.enum(FEEDBACK_OUTCOMES).nullable(),
      activated: z.boolean(),
      nodes: z.array(
        z.object({
          id: z.string(),
          client_id: z.string().nullable(),
          tier: TierEnum,
          feedback: FeedbackOut,
          activation: z.object({ count: n, last_activated_at: z.string().nullable() }),
        }),
      ),
      not_found: z.array(z.string()),
      decisions: z
        .array(DecisionOut)
        .describe('with an outcome: the forgetting decision of each node, made before this answer (docs/forgetting.md, "Feedback acts when it is given")'),
    }),
  }),
  'memory.nodesPin': route({
    name: 'memory.nodesPin',
    path: '/v1/memory/nodes/pin',
    summary: 'Pin nodes (never demoted or archived by the lifecycle operator) or unpin them with pinned: false.',
    input: NodesPinInput,
    output: z.object({
      ...echoFields,
      nodes: z.array(z.object({ id: z.string(), client_id: z.string().nullable(), tier: TierEnum, pinned: z.boolean() })),
      not_found: z.array(z.string()),
    }),
  }),
  'memory.rehydratePayload': route({
    name: 'memory.rehydratePayload',
    path: '/v1/memory/anchor/payload/rehydrate',
    aliases: ['/v1/memory/anchors/rehydrate_payload', '/v1/memory/tools/rehydrate_payload'],
    summary:
      'Read only the payload detail a task needs, from the node or the cold store, without restoring the node: summary, partial (the first max_chars characters), full, or differential (what the payload adds to the summary, or what changed since base_revision).',
    input: PayloadRehydrateInput,
    output: z.object({
      ...echoFields,
      rehydrated: z
        .object({ summary: z.object({ differential_selected_node_ids: z.array(z.string()), differential_rationale: z.array(z.string()) }) })
        .describe('mode differential of an anchor: the payload nodes it names (anchor_v1.payload_refs) that are not hot, selected for reading, with why'),
      node: z.object({
        id: z.string(),
        client_id: z.string().nullable(),
        type: NodeTypeEnum,
        kind: NodeKindEnum.nullable(),
        tier: TierEnum,
        archived: z.boolean(),
        title: z.string().nullable(),
        summary: z.string(),
        revision: n,
      }),
      mode: z.enum(REHYDRATION_MODES),
      payload_source: z.enum(PAYLOAD_SOURCES),
      payload: z.object({
        text: z.string(),
        /** Characters (Unicode code points) returned, and in the whole payload. */
        chars: n,
        total_chars: n,
        truncated: z.boolean(),
      }),
      differential: z
        .object({
          base: z.enum(DIFF_BASES),
          base_revision: n.nullable(),
          revision: n,
          added_lines: z.array(z.string()),
          removed_lines: z.array(z.string()),
          unchanged_line_count: n,
        })
        .nullable(),
      node_restored: z.boolean(),
    }),
    errors: ['not_found'],
  }),
  ...lifecycleReadRoutes,
} as const;
