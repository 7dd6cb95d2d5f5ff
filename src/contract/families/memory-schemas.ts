import { z } from 'zod';
import { BoundedText, CallerId, MAX_TEXT_BYTES, TOO_LARGE, Timestamp } from '../common';
import { MEMORY_EDGE_TYPES, MEMORY_NODE_KINDS, NODE_TYPES, TIERS } from '../../model/memory/node';
import { EXECUTION_OUTCOMES, WORKFLOW_ANCHOR_SOURCES, WRITE_OUTCOMES } from '../../model/memory/vocabulary';

/** Schemas shared by the memory-core families (memory, sessions, handoff, packs). */

export const NodeTypeEnum = z.enum(NODE_TYPES);
export const NodeKindEnum = z.enum(MEMORY_NODE_KINDS);
export const TierEnum = z.enum(TIERS);
export const EdgeTypeEnum = z.enum(MEMORY_EDGE_TYPES);

export const MAX_TAGS = 64;
export const Tag = z.string().min(1).max(128);
export const Tags = z.array(Tag).max(MAX_TAGS);
export const Title = BoundedText(4096);
/** A short free-text item (a file path, a check, a command): at most 4 KiB. */
export const ShortText = BoundedText(4096);

/** A slots object: JSON up to 64 KiB serialised (larger is payload_too_large). */
export const Slots = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > MAX_TEXT_BYTES) {
    ctx.addIssue({ code: 'custom', message: `slots are ${bytes} bytes serialised; the limit is ${MAX_TEXT_BYTES}`, params: { lore: TOO_LARGE } });
  }
});

export const Unit = z.number().min(0).max(1);

/**
 * The execution state existing clients send with handoffs, sessions and their events (an
 * execution packet: task brief, target files, next action, pending validations): kept on the node
 * as slots of the same names, and read as execution evidence (docs/memory.md, "Execution packets").
 */
export const executionStateFields = {
  execution_packet_v1: Slots.optional().describe('the execution packet: task_brief, target_files, next_action, pending_validations, unresolved_blockers, …'),
  execution_state_v1: Slots.optional().describe('the execution state: task_brief, modified_files, pending_validations, …'),
};

/** A node as the API shows it (find, resolve, packs). */
export const NodeView = z.object({
  id: z.string(),
  uri: z.string(),
  client_id: z.string().nullable(),
  type: NodeTypeEnum,
  kind: NodeKindEnum.nullable(),
  tier: TierEnum,
  archived: z.boolean(),
  title: z.string().nullable(),
  text: z.string(),
  summary: z.string(),
  tags: z.array(z.string()),
  slots: z.record(z.string(), z.unknown()),
  salience: z.number(),
  importance: z.number(),
  confidence: z.number(),
  feedback: z.object({
    positive: z.number(),
    negative: z.number(),
    quality: z.number(),
    last_outcome: z.string().nullable(),
    last_at: z.string().nullable(),
    last_reason: z.string().nullable().optional().describe('the reason given with the latest outcome'),
  }),
  access: z.object({ count: z.number(), last_at: z.string().nullable() }),
  activation: z.object({ count: z.number(), last_activated_at: z.string().nullable() }),
  pinned: z.boolean(),
  revision: z.number().int(),
  commit_id: z.string().nullable(),
  actor: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const EdgeView = z.object({
  id: z.string(),
  src: z.string(),
  dst: z.string(),
  type: EdgeTypeEnum,
  actor: z.string(),
  created_at: Timestamp,
});

export const RevisionView = z.object({
  node_id: z.string(),
  revision: z.number().int(),
  title: z.string().nullable(),
  text: z.string(),
  summary: z.string(),
  tags: z.array(z.string()),
  slots: z.record(z.string(), z.unknown()),
  content_hash: z.string(),
  actor: z.string(),
  created_at: Timestamp,
  superseded_at: Timestamp,
});

export const WrittenNodeView = z.object({
  id: z.string(),
  client_id: z.string().nullable(),
  type: NodeTypeEnum,
  kind: NodeKindEnum.nullable(),
  tier: TierEnum,
  revision: z.number().int(),
  outcome: z.enum(WRITE_OUTCOMES),
  deduplicated: z.boolean(),
  uri: z.string(),
});

export const Learning = z.object({
  workflows_updated: z.array(z.string()),
  patterns_updated: z.array(z.string()),
  workflow_anchors: z
    .array(z.object({ workflow_id: z.string(), uri: z.string(), source: z.enum(WORKFLOW_ANCHOR_SOURCES) }))
    .describe('the workflows this write created or joined (learned), and the workflow anchors it wrote (declared), each with its node uri'),
});
export const WarningView = z.object({ code: z.string(), message: z.string() });

export const ExtractedView = z.object({
  file_paths: z.array(z.string()),
  tools: z.array(z.string()),
  commands: z.array(z.string()),
  error_signatures: z.array(z.string()),
  outcome: z.enum(EXECUTION_OUTCOMES).nullable(),
  task_signature: z.object({ hash: z.string(), terms: z.array(z.string()), task_kind: z.string().nullable() }).nullable(),
});

/** The write-result fields every surface that writes nodes shares (memory.write, sessions, handoff). */
export const writeResultFields = {
  commit_id: z.string(),
  nodes: z.array(WrittenNodeView),
  edges: z.array(EdgeView),
  extracted: ExtractedView,
  learning: Learning,
  warnings: z.array(WarningView),
};

export const ExecutionStepInput = z.object({
  tool: z.string().min(1).max(200),
  file_path: ShortText.nullish(),
  command: ShortText.nullish(),
  outcome: ShortText.nullish(),
});

export const ExecutionInput = z.object({
  task_kind: z.string().max(200).nullish(),
  goal: BoundedText().nullish(),
  run_id: CallerId.nullish(),
  steps: z.array(ExecutionStepInput).max(500).optional(),
  target_files: z.array(ShortText).max(200).optional(),
  outcome: z.enum(EXECUTION_OUTCOMES).nullish(),
  error_signature: BoundedText(8192).nullish(),
  next_action: BoundedText(8192).nullish(),
  acceptance_checks: z.array(ShortText).max(200).optional(),
});
