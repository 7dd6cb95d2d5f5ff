import { z } from 'zod';
import { BoundedText, Timestamp, echoFields, identityFields } from '../common';
import { route } from '../route';
import { DEFINITION_STATUSES } from '../../model/automation/records';
import { FEEDBACK_OUTCOMES } from '../../model/memory/vocabulary';
import { PACK_CONFLICT_KINDS, PACK_IMPORT_STATUSES } from '../../model/packs/vocabulary';
import { PLAYBOOK_STATUSES } from '../../model/replay/types';
import { SANDBOX_PROFILES } from '../../model/sandbox/records';
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
    last_outcome: z.enum(FEEDBACK_OUTCOMES).nullable(),
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

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'sha256 is 64 lowercase hex digits');

export const PackColdPayloadSchema = z
  .object({
    node_id: Id,
    revision: z.number().int().min(1),
    client_id: z.string().max(1000).nullable(),
    content_hash: z.string(),
    sha256: Sha256.describe('of the payload’s UTF-8 bytes; checked on import'),
    payload_bytes: z.number().int().min(0),
    relocated_at: Timestamp,
    run_id: z.string(),
    text: z.string().describe('the archived payload, exactly'),
  })
  .describe('an archived payload from the cold store, so the node can be rehydrated elsewhere');

const Obj = z.record(z.string(), z.unknown());
const PlaybookVersionSchema = z
  .object({
    playbook_id: z.string().min(1).max(200),
    version: z.number().int().min(1),
    name: z.string().max(200),
    status: z.enum(PLAYBOOK_STATUSES),
    steps: z
      .array(
        z.object({
          step_index: z.number().int(),
          tool_name: z.string(),
          tool_input: Obj,
          expected_output_signature: Obj.nullable(),
          max_attempts: z.number().int(),
          source_step_index: z.number().int().nullable(),
        }),
      )
      .max(500),
    parameters: z.array(z.object({ name: z.string(), default: z.unknown() })).max(100),
    sandbox_profile: z.enum(SANDBOX_PROFILES),
    source_run_id: z.string().nullable(),
    repair_of: z.number().int().nullable(),
    note: z.string().nullable(),
    shadow_validation: z.unknown(),
    review: z.unknown(),
    status_history: z.array(z.unknown()),
    actor: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .describe('one version as playbooks/get shows it (with its status history, review and shadow validation)');

export const PackPlaybookSchema = z.object({
  playbook_id: z.string().min(1).max(200),
  active_version: z.number().int().nullable().describe('set on import when the target has no active version of this playbook'),
  versions: z.array(PlaybookVersionSchema).min(1),
});

export const PackAutomationSchema = z
  .object({
    automation_id: z.string().min(1).max(200),
    name: z.string().max(200),
    description: z.string().nullable(),
    status: z.enum(DEFINITION_STATUSES),
    graph: z.object({ nodes: z.array(z.unknown()), edges: z.array(z.unknown()) }),
    node_count: z.number().int(),
    edge_count: z.number().int(),
    content_hash: z.string(),
    status_history: z.array(z.unknown()),
    actor: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .describe('an automation definition; its graph is checked again and its content hash recomputed on import');

export const PackSchema = z.object({
  format: z.literal('lore.pack'),
  version: z.union([z.literal(1), z.literal(2)], { error: 'this Lore reads pack versions 1 and 2' }),
  exported_at: Timestamp,
  source: z.object({ tenant_id: z.string(), scope: z.string() }),
  counts: z.object({
    nodes: z.number().int(),
    revisions: z.number().int(),
    edges: z.number().int(),
    cold_payloads: z.number().int().default(0),
    playbook_versions: z.number().int().default(0),
    automations: z.number().int().default(0),
  }),
  content_hash: z.string(),
  nodes: z.array(PackNodeSchema),
  revisions: z.array(PackRevisionSchema).default([]),
  edges: z.array(PackEdgeSchema).default([]),
  cold_payloads: z.array(PackColdPayloadSchema).default([]).describe('version 2: archived payloads of the pack’s nodes'),
  playbooks: z.array(PackPlaybookSchema).default([]).describe('version 2: every playbook of the scope with all its versions'),
  automations: z.array(PackAutomationSchema).default([]).describe('version 2: the scope’s automation definitions'),
});

const ImportView = z.object({
  import_id: z.string(),
  workflow_id: z.string(),
  status: z.enum(PACK_IMPORT_STATUSES),
  remap_ids: z.boolean(),
  source: z.object({ tenant_id: z.string(), scope: z.string() }),
  content_hash: z.string(),
  totals: z.object({
    nodes: z.number().int(),
    revisions: z.number().int(),
    edges: z.number().int(),
    cold_payloads: z.number().int(),
    playbook_versions: z.number().int(),
    automations: z.number().int(),
  }),
  progress: z.object({ chunks_total: z.number().int(), chunks_done: z.number().int() }),
  counts: z.object({
    nodes_created: z.number().int(),
    nodes_updated: z.number().int(),
    nodes_unchanged: z.number().int(),
    revisions_written: z.number().int(),
    edges_written: z.number().int(),
    cold_payloads_written: z.number().int(),
    playbook_versions_created: z.number().int(),
    playbook_versions_unchanged: z.number().int(),
    automations_created: z.number().int(),
    automations_unchanged: z.number().int(),
    conflicts: z.number().int(),
  }),
  conflicts: z.array(
    z.object({
      id: z.string(),
      client_id: z.string().nullable(),
      kind: z.enum(PACK_CONFLICT_KINDS),
      reason: z.string().nullable(),
    }),
  ),
  error: z.string().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const packsRoutes = {
  'packs.export': route({
    name: 'packs.export',
    path: '/v1/memory/packs/export',
    summary:
      'Export the scope as a versioned pack (nodes with revisions and edges, their archived payloads, playbooks with all versions, automation definitions, and a content hash): the whole scope up to 20,000 nodes, or with limit one page and a cursor.',
    input: z.object({
      ...identityFields,
      include_revisions: z.boolean().default(true),
      include_edges: z.boolean().default(true),
      include_cold_payloads: z.boolean().default(true).describe('the archived payloads of the exported nodes, so they can be rehydrated after an import'),
      include_playbooks: z.boolean().default(true).describe('every playbook with all its versions and statuses (first page only)'),
      include_automations: z.boolean().default(true).describe('the automation definitions (first page only)'),
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
      'Import a pack into the scope through a Temporal workflow (idempotent: nodes upserted by id; payloads, playbook versions and automations added when absent, reported as conflicts when present with other content). Waits up to wait_ms for the result; otherwise returns the import id and status to poll.',
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
