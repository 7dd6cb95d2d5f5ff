import { z } from 'zod';
import { BoundedText, CallerId, Timestamp, echoFields, identityFields, pageInputFields, pageOutputFields } from '../common';
import { route } from '../route';
import { ShortText, Slots, Tags } from './memory-schemas';

/**
 * Delegation records (contract.md §5): one agent hands a task to another and both record how it
 * goes. Statuses: requested → accepted → in_progress → completed | failed | cancelled; a record in
 * a final status keeps it (changing it is invalid_state). docs/memory.md, "Delegation records".
 */

export const DELEGATION_STATUSES = ['requested', 'accepted', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
const Status = z.enum(DELEGATION_STATUSES);
const Agent = z.string().min(1).max(200);

export const DelegationRecordView = z.object({
  record_id: z.string(),
  from_agent: z.string(),
  to_agent: z.string(),
  task: z.string(),
  status: Status,
  result: z.string().nullable(),
  run_id: z.string().nullable(),
  session_id: z.string().nullable(),
  parent_record_id: z.string().nullable(),
  target_files: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  revision: z.number().int(),
  history: z.array(z.object({ revision: z.number().int(), status: z.string(), actor: z.string(), at: Timestamp })),
  actor: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const delegationRoutes = {
  'delegation.write': route({
    name: 'delegation.write',
    path: '/v1/memory/delegation/records/write',
    summary: 'Create or update a delegation record (record_id generated when absent; the same content again is idempotent).',
    input: z.object({
      ...identityFields,
      record_id: CallerId.optional(),
      from_agent: Agent.optional(),
      to_agent: Agent,
      task: BoundedText(),
      status: Status.default('requested'),
      result: BoundedText().optional(),
      run_id: CallerId.optional(),
      session_id: CallerId.optional(),
      parent_record_id: CallerId.optional(),
      target_files: z.array(ShortText).max(200).optional(),
      metadata: Slots.optional(),
      tags: Tags.optional(),
    }),
    output: z.object({ ...echoFields, record: DelegationRecordView, outcome: z.enum(['created', 'deduplicated', 'updated']) }),
    errors: ['invalid_state'],
  }),
  'delegation.find': route({
    name: 'delegation.find',
    path: '/v1/memory/delegation/records/find',
    summary: 'Find delegation records by record_id(s), agents, status, run or session, in creation order with cursor pagination.',
    input: z.object({
      ...identityFields,
      ...pageInputFields,
      record_id: CallerId.optional(),
      record_ids: z.array(CallerId).max(100).optional(),
      from_agent: Agent.optional(),
      to_agent: Agent.optional(),
      status: z.union([Status, z.array(Status).max(6)]).optional(),
      run_id: CallerId.optional(),
      session_id: CallerId.optional(),
    }),
    output: z.object({ ...echoFields, records: z.array(DelegationRecordView), ...pageOutputFields }),
  }),
} as const;
