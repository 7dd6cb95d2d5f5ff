import { z } from 'zod';
import { BoundedText, CallerId, Limit, Timestamp, echoFields, identityFields, pageInputFields, pageOutputFields } from '../common';
import { route } from '../route';
import { UUID_PATTERN } from '../../model/ids';
import { RECALL_STRATEGIES } from '../../model/memory/vocabulary';
import {
  EdgeTypeEnum,
  EdgeView,
  ExecutionInput,
  NodeKindEnum,
  NodeTypeEnum,
  NodeView,
  RevisionView,
  Slots,
  Tags,
  TierEnum,
  Title,
  Unit,
  writeResultFields,
} from './memory-schemas';

/** Routes of the memory core (contract.md §2 and §5 find/resolve; docs/memory.md). */

const BatchNode = z.object({
  id: z
    .string()
    .regex(UUID_PATTERN, 'a node id is a UUID')
    .optional()
    .describe(
      'a node id the caller chooses (a UUID; existing clients send one): a new node gets it, a second write of it supersedes that node; an id another scope holds is conflict',
    ),
  client_id: CallerId.optional(),
  type: NodeTypeEnum.default('event'),
  title: Title.nullish(),
  /** The payload; when absent the node's text is text_summary (or the write's input_text, see docs). */
  text: BoundedText().nullish(),
  text_summary: BoundedText().nullish(),
  summary: BoundedText().nullish(),
  slots: Slots.optional(),
  tier: TierEnum.optional(),
  tags: Tags.optional(),
  importance: Unit.optional(),
  salience: Unit.optional(),
  confidence: Unit.optional(),
});

const EdgeRef = z.string().min(1).max(200);
/** An edge end: a node id or client_id, or (as existing clients write it) {id} or {client_id}. */
const EdgeEnd = z.union([
  EdgeRef,
  z
    .strictObject({ id: EdgeRef.optional(), client_id: EdgeRef.optional() })
    .refine((v) => (v.id === undefined) !== (v.client_id === undefined), 'give exactly one of id or client_id')
    .transform((v) => (v.id ?? v.client_id)!),
]);

export const WriteInput = z
  .object({
    ...identityFields,
    input_text: BoundedText().optional(),
    client_id: CallerId.optional(),
    title: Title.optional(),
    type: NodeTypeEnum.default('event'),
    tier: TierEnum.optional(),
    tags: Tags.optional(),
    slots: Slots.optional(),
    importance: Unit.optional(),
    salience: Unit.optional(),
    confidence: Unit.optional(),
    execution: ExecutionInput.optional(),
    nodes: z.array(BatchNode).max(200).optional(),
    edges: z
      .array(z.object({ src: EdgeEnd, dst: EdgeEnd, type: EdgeTypeEnum.default('related_to') }))
      .max(500)
      .optional(),
  })
  .superRefine((v, ctx) => {
    const hasText = typeof v.input_text === 'string' && v.input_text.trim() !== '';
    if (!hasText && !v.execution && !(v.nodes && v.nodes.length > 0)) {
      ctx.addIssue({ code: 'custom', path: ['input_text'], message: 'a write needs input_text, execution or nodes[]' });
    }
    (v.nodes ?? []).forEach((n, i) => {
      if (![n.text, n.text_summary, n.summary, n.title].some((t) => typeof t === 'string' && t.trim() !== '') && !hasText) {
        ctx.addIssue({ code: 'custom', path: ['nodes', i], message: 'a node needs text, text_summary or title' });
      }
    });
  });

const ScoreBreakdownView = z.object({
  strategy: z.enum(RECALL_STRATEGIES),
  bm25: z.object({ rank: z.number(), score: z.number(), bm25: z.number(), context: z.number() }).nullable(),
  vector: z.object({ rank: z.number(), score: z.number() }).nullable(),
  fused: z.number().nullable(),
  base: z.number(),
  weight: z.object({ importance: z.number(), tier: TierEnum, factor: z.number() }),
});

export const RecallInput = z
  .object({
    ...identityFields,
    query_text: BoundedText().optional(),
    query: BoundedText().optional(),
    limit: Limit(10, 100),
    types: z.array(NodeTypeEnum).max(20).optional(),
    kinds: z.array(NodeKindEnum).max(20).optional(),
    tiers: z.array(TierEnum).max(4).optional(),
    tags: Tags.optional(),
    include_archived: z.boolean().default(false),
    include_retired: z.boolean().default(false).describe('include nodes the lifecycle operator retired (feedback says they are wrong); they are flagged retired'),
    min_score: z.number().min(0).optional(),
    record_access: z
      .boolean()
      .default(true)
      .describe('false: look without counting it as a use (the inspector): the hits’ access statistics, which forgetting weighs, stay as they are'),
  })
  .superRefine((v, ctx) => {
    const q = v.query_text ?? v.query;
    if (typeof q !== 'string' || q.trim() === '') ctx.addIssue({ code: 'custom', path: ['query_text'], message: 'query_text (or query) is required' });
  });

/** A recalled node: the node's identity and text (as NodeView shows them), its score and why. */
const RecallResult = NodeView.pick({
  id: true,
  uri: true,
  client_id: true,
  type: true,
  kind: true,
  tier: true,
  archived: true,
  title: true,
  text: true,
  summary: true,
  tags: true,
}).extend({
  retired: z.boolean().describe('the lifecycle operator retired this node: feedback says it is wrong (only with include_retired)'),
  score: z.number(),
  score_breakdown: ScoreBreakdownView,
  created_at: Timestamp,
  updated_at: Timestamp,
});

/**
 * find: every top-level field is a filter, so an unknown one is refused (validation_failed naming
 * it) rather than ignored: a filter dropped silently answers with the wrong set of nodes.
 */
export const FindInput = z.strictObject({
  ...identityFields,
  ...pageInputFields,
  node_ids: z.array(z.string().min(1).max(200)).max(100).optional().describe('exact node ids'),
  anchor_ids: z.array(z.string().min(1).max(200)).max(100).optional().describe('alias of node_ids (existing clients call nodes anchors)'),
  query_text: BoundedText().optional().describe('nodes matching this text, best first (ranked as recall_text ranks; no cursor)'),
  types: z.array(NodeTypeEnum).max(20).optional(),
  kinds: z.array(NodeKindEnum).max(20).optional(),
  tiers: z.array(TierEnum).max(4).optional(),
  tags: Tags.optional(),
  client_id: CallerId.optional(),
  client_ids: z.array(CallerId).max(100).optional(),
  ids: z.array(z.string().min(1).max(200)).max(100).optional().describe('node ids (exact lookups, in the order given; unknown ids are left out)'),
  created_after: z.iso.datetime({ offset: true }).optional(),
  created_before: z.iso.datetime({ offset: true }).optional(),
  /** Leave text out of the listing (summaries only): smaller pages. */
  include_text: z.boolean().default(true),
});

export const ResolveInput = z
  .object({
    ...identityFields,
    id: z.string().min(1).max(200).optional(),
    client_id: CallerId.optional(),
    uri: z.string().min(1).max(1200).optional(),
    include_revisions: z.boolean().default(true),
    include_edges: z.boolean().default(true),
  })
  .superRefine((v, ctx) => {
    const given = [v.id, v.client_id, v.uri].filter((x) => x !== undefined).length;
    if (given !== 1) ctx.addIssue({ code: 'custom', path: ['id'], message: 'give exactly one of id, client_id or uri' });
  });

export const memoryRoutes = {
  'memory.write': route({
    name: 'memory.write',
    path: '/v1/memory/write',
    summary:
      'Write execution evidence: input_text (one event node), an execution object (or an execution packet in slots), or a batch of nodes[] and edges[]. Signals are extracted into slots.execution_native_v1; client_id (or a node’s own id) makes writes idempotent and supersedes with revisions.',
    input: WriteInput,
    output: z.object({ ...echoFields, deduplicated: z.boolean(), ...writeResultFields }),
    errors: ['not_found', 'conflict'],
  }),
  'memory.recallText': route({
    name: 'memory.recallText',
    path: '/v1/memory/recall_text',
    summary: 'Recall by natural language: BM25 (always), vectors when an embedding provider is configured, fused by RRF, lightly weighted by importance and tier.',
    input: RecallInput,
    output: z.object({
      ...echoFields,
      results: z.array(RecallResult),
      query: z.object({ text: z.string(), strategy: z.enum(RECALL_STRATEGIES), limit: z.number().int(), vector_error: z.string().nullable() }),
      took_ms: z.number(),
    }),
  }),
  'memory.find': route({
    name: 'memory.find',
    path: '/v1/memory/find',
    summary:
      'List nodes by filters (node_ids, client_id(s), types, kinds, tiers, tags, created range) in id order with cursor pagination, or the nodes matching query_text best first. An unknown filter is validation_failed.',
    input: FindInput,
    output: z.object({ ...echoFields, nodes: z.array(NodeView), ...pageOutputFields }),
    errors: ['validation_failed'],
  }),
  'memory.resolve': route({
    name: 'memory.resolve',
    path: '/v1/memory/resolve',
    summary: 'One node by id, client_id or lore:// URI, with its edges and its earlier revisions.',
    input: ResolveInput,
    output: z.object({ ...echoFields, node: NodeView, edges: z.array(EdgeView), revisions: z.array(RevisionView) }),
    errors: ['not_found'],
  }),
} as const;
