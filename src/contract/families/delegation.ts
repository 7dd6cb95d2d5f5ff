import { z } from 'zod';
import { BoundedText, CallerId, TOO_LARGE, Timestamp, echoFields, identityFields, pageInputFields, pageOutputFields } from '../common';
import { route } from '../route';
import { DELEGATION_STATUSES, DELEGATION_WRITE_OUTCOMES } from '../../model/delegation/vocabulary';
import { ShortText, Slots, Tags } from './memory-schemas';

/**
 * Delegation records (contract.md §5): one agent hands a task to another and both record how it
 * goes. Statuses: requested → accepted → in_progress → completed | failed | cancelled; a record in
 * a final status keeps it (changing it is invalid_state). docs/memory.md, "Delegation records".
 */

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

/**
 * The record as existing clients write it (POST /v1/memory/delegation/records): packets sent to a
 * role and what came back. Lore reads the role, the mission, the working set and the first
 * return from it (docs/memory.md, "Delegation records") and keeps the whole object in metadata.
 */
const PacketV1 = z.looseObject({ role: Agent.optional(), mission: BoundedText().optional(), working_set: z.array(ShortText).max(200).optional() });
const ReturnV1 = z.looseObject({ role: Agent.optional(), status: z.string().max(64).optional(), summary: BoundedText().optional() });
export const DelegationRecordsV1 = z
  .looseObject({
    route_role: Agent.optional(),
    delegation_packets: z.array(PacketV1).max(50).optional(),
    delegation_returns: z.array(ReturnV1).max(50).optional(),
  })
  .superRefine((v, ctx) => {
    const bytes = Buffer.byteLength(JSON.stringify(v), 'utf8');
    if (bytes > 32 * 1024) ctx.addIssue({ code: 'custom', message: `is ${bytes} bytes of JSON; the limit is ${32 * 1024}`, params: { lore: TOO_LARGE } });
  });

export const delegationRoutes = {
  'delegation.write': route({
    name: 'delegation.write',
    path: '/v1/memory/delegation/records/write',
    aliases: [{ method: 'POST', path: '/v1/memory/delegation/records' }],
    summary:
      'Create or update a delegation record (record_id generated when absent; the same content again is idempotent). to_agent and task may instead come from route_role and summary/input_text/title, or from delegation_records_v1 (the form existing clients send).',
    input: z
      .object({
        ...identityFields,
        record_id: CallerId.optional(),
        from_agent: Agent.optional(),
        to_agent: Agent.optional().describe('required unless route_role or delegation_records_v1 names the role'),
        task: BoundedText().optional().describe('required unless summary, input_text, title or a packet mission gives it'),
        route_role: Agent.optional().describe('alias of to_agent'),
        summary: BoundedText().optional().describe('alias of task'),
        input_text: BoundedText().optional().describe('alias of task (after summary)'),
        title: BoundedText(4096).optional().describe('alias of task (after input_text)'),
        handoff_anchor: z.string().min(1).max(1024).optional().describe('kept in metadata'),
        task_family: z.string().min(1).max(200).optional().describe('kept in metadata'),
        delegation_records_v1: DelegationRecordsV1.optional(),
        status: Status.optional().describe('default requested, or what the first return of delegation_records_v1 says'),
        result: BoundedText().optional(),
        run_id: CallerId.optional(),
        session_id: CallerId.optional(),
        parent_record_id: CallerId.optional(),
        target_files: z.array(ShortText).max(200).optional(),
        metadata: Slots.optional(),
        tags: Tags.optional(),
      })
      .superRefine((v, ctx) => {
        const d = v.delegation_records_v1;
        const packet = d?.delegation_packets?.[0];
        if (!(v.to_agent ?? v.route_role ?? d?.route_role ?? packet?.role)) {
          ctx.addIssue({ code: 'custom', path: ['to_agent'], message: 'to_agent is required (or route_role, or delegation_records_v1 with a route_role or a packet role)' });
        }
        if (!(v.task ?? v.summary ?? v.input_text ?? v.title ?? packet?.mission)) {
          ctx.addIssue({ code: 'custom', path: ['task'], message: 'task is required (or summary, input_text, title, or a packet mission)' });
        }
      }),
    output: z.object({ ...echoFields, record: DelegationRecordView, outcome: z.enum(DELEGATION_WRITE_OUTCOMES) }),
    errors: ['invalid_state'],
  }),
  'delegation.find': route({
    name: 'delegation.find',
    path: '/v1/memory/delegation/records/find',
    summary:
      'Find delegation records by record_id(s), agents, status, run or session, in creation order with cursor pagination. Every field is a filter: an unknown one is validation_failed.',
    input: z.strictObject({
      ...identityFields,
      ...pageInputFields,
      record_id: CallerId.optional(),
      record_ids: z.array(CallerId).max(100).optional(),
      from_agent: Agent.optional(),
      to_agent: Agent.optional(),
      status: z.union([Status, z.array(Status).max(6)]).optional(),
      run_id: CallerId.optional(),
      session_id: CallerId.optional(),
      route_role: Agent.optional().describe('alias of to_agent'),
    }),
    output: z.object({ ...echoFields, records: z.array(DelegationRecordView), ...pageOutputFields }),
    errors: ['validation_failed'],
  }),
} as const;
