import { z } from 'zod';
import { BoundedText, Timestamp, echoFields, identityFields } from '../common';
import { route } from '../route';
import { EdgeTypeEnum, NodeKindEnum, NodeTypeEnum, Slots, TierEnum } from './memory-schemas';

/**
 * Packs (contract.md §5): a versioned, self-describing export of one scope, and its import. The
 * import runs as a Temporal workflow (kind pack_import); the route waits up to wait_ms for it and
 * otherwise answers with the import's status, which packs/import/status reports later
 * (docs/memory.md, "Packs").
 */

const Id = z.string().min(1).max(200);
const Text = BoundedText();

export const PackNodeSchema = z.object({
  id: Id,
  client_id: z.string().max(1000).nullable(),
  type: NodeTypeEnum,
  kind: NodeKindEnum.nullable(),
  tier: TierEnum,
  title: z.string().max(4096).nullable(),
  text: Text,
  summary: Text,
  tags: z.array(z.string().max(128)).max(64),
  slots: Slots,
  salience: z.number(),
  importance: z.number(),
  confidence: z.number(),
  feedback: z.object({
    positive: z.number(),
    negative: z.number(),
    quality: z.number(),
    last_outcome: z.enum(['positive', 'negative', 'neutral']).nullable(),
    last_at: z.string().nullable(),
  }),
  access: z.object({ count: z.number(), last_at: z.string().nullable() }),
  activation: z.object({ count: z.number(), last_activated_at: z.string().nullable() }),
  pinned: z.boolean(),
  revision: z.number().int().min(1),
  content_hash: z.string(),
  actor: z.string(),
  commit_id: z.string().nullable().optional(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const PackRevisionSchema = z.object({
  node_id: Id,
  revision: z.number().int().min(1),
  title: z.string().max(4096).nullable(),
  text: Text,
  summary: Text,
  slots: Slots,
  tags: z.array(z.string().max(128)).max(64),
  content_hash: z.string(),
  actor: z.string(),
  superseded_at: Timestamp,
  created_at: Timestamp,
});

export const PackEdgeSchema = z.object({
  id: Id,
  src: Id,
  dst: Id,
  type: EdgeTypeEnum,
  actor: z.string(),
  created_at: Timestamp,
});

export const PackSchema = z.object({
  format: z.literal('lore.pack'),
  version: z.literal(1, { error: 'this Lore reads pack version 1' }),
  exported_at: Timestamp,
  source: z.object({ tenant_id: z.string(), scope: z.string() }),
  counts: z.object({ nodes: z.number().int(), revisions: z.number().int(), edges: z.number().int() }),
  content_hash: z.string(),
  nodes: z.array(PackNodeSchema),
  revisions: z.array(PackRevisionSchema).default([]),
  edges: z.array(PackEdgeSchema).default([]),
});

const ImportView = z.object({
  import_id: z.string(),
  workflow_id: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  remap_ids: z.boolean(),
  source: z.object({ tenant_id: z.string(), scope: z.string() }),
  content_hash: z.string(),
  totals: z.object({ nodes: z.number().int(), revisions: z.number().int(), edges: z.number().int() }),
  progress: z.object({ chunks_total: z.number().int(), chunks_done: z.number().int() }),
  counts: z.object({
    nodes_created: z.number().int(),
    nodes_updated: z.number().int(),
    nodes_unchanged: z.number().int(),
    revisions_written: z.number().int(),
    edges_written: z.number().int(),
    conflicts: z.number().int(),
  }),
  conflicts: z.array(z.object({ id: z.string(), client_id: z.string().nullable() })),
  error: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const packsRoutes = {
  'packs.export': route({
    name: 'packs.export',
    path: '/v1/memory/packs/export',
    summary: 'Export the scope as a versioned pack (nodes with revisions and edges, and a content hash): the whole scope up to 20,000 nodes, or with limit one page and a cursor.',
    input: z.object({
      ...identityFields,
      include_revisions: z.boolean().default(true),
      include_edges: z.boolean().default(true),
      limit: z.number().int().min(1).max(10_000).optional(),
      cursor: z.string().max(512).optional(),
    }),
    output: z.object({ ...echoFields, pack: PackSchema, next_cursor: z.string().nullable() }),
    errors: [],
  }),
  'packs.import': route({
    name: 'packs.import',
    path: '/v1/memory/packs/import',
    summary:
      'Import a pack into the scope through a Temporal workflow (idempotent upserts by node id). Waits up to wait_ms for the result; otherwise returns the import id and status to poll.',
    input: z.object({ ...identityFields, pack: PackSchema, wait_ms: z.number().int().min(0).max(300_000).default(30_000) }),
    output: z.object({ ...echoFields, ...ImportView.shape }),
    errors: [],
  }),
  'packs.importStatus': route({
    name: 'packs.importStatus',
    path: '/v1/memory/packs/import/status',
    summary: 'Status, progress and counts of a pack import.',
    input: z.object({ ...identityFields, import_id: Id }),
    output: z.object({ ...echoFields, ...ImportView.shape }),
    errors: ['not_found'],
  }),
} as const;
