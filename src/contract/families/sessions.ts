import { z } from 'zod';
import { BoundedText, CallerId, Timestamp, echoFields, identityFields, pageInputFields, pageOutputFields } from '../common';
import { route } from '../route';
import { WRITE_OUTCOMES } from '../../model/memory/vocabulary';
import { ExecutionInput, Slots, Tags, Title, Unit, executionStateFields, writeResultFields } from './memory-schemas';

/**
 * Sessions (contract.md §5): a session and its events are nodes of kind `session` and
 * `session_event`; each event has a part_of edge to its session (docs/memory.md, "Sessions").
 */

export const SessionView = z.object({
  session_id: z.string(),
  node_id: z.string(),
  uri: z.string(),
  title: z.string().nullable(),
  summary: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  event_count: z.number().int(),
  last_event_at: Timestamp.nullable(),
  revision: z.number().int(),
  actor: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const SessionEventView = z.object({
  event_id: z.string(),
  node_id: z.string(),
  uri: z.string(),
  session_id: z.string(),
  event_type: z.string(),
  title: z.string().nullable(),
  text: z.string(),
  summary: z.string(),
  tags: z.array(z.string()),
  slots: z.record(z.string(), z.unknown()),
  actor: z.string(),
  created_at: Timestamp,
});

const EventType = z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/, 'must be 1-64 chars of [A-Za-z0-9._:-]');

export const sessionsRoutes = {
  'sessions.create': route({
    name: 'sessions.create',
    path: '/v1/memory/sessions/create',
    aliases: [{ method: 'POST', path: '/v1/memory/sessions' }],
    summary: 'Create a session (or update it: same session_id and content is idempotent). session_id is generated when absent.',
    input: z.object({
      ...identityFields,
      session_id: CallerId.optional(),
      title: Title.optional(),
      summary: BoundedText().optional(),
      text_summary: BoundedText().optional().describe('alias of summary'),
      input_text: BoundedText().optional(),
      tags: Tags.optional(),
      metadata: Slots.optional(),
      ...executionStateFields,
    }),
    output: z.object({ ...echoFields, session: SessionView, outcome: z.enum(WRITE_OUTCOMES) }),
  }),
  'sessions.appendEvent': route({
    name: 'sessions.appendEvent',
    path: '/v1/memory/sessions/events/append',
    aliases: ['/v1/memory/events'],
    summary: 'Append an event to a session made by sessions/create (an unknown session is not_found). event_id makes the append idempotent.',
    input: z
      .object({
        ...identityFields,
        session_id: CallerId,
        event_id: CallerId.optional(),
        event_type: EventType.default('note'),
        input_text: BoundedText().optional(),
        text: BoundedText().optional(),
        event_text: BoundedText().optional().describe('alias of text'),
        metadata: Slots.optional().describe('kept on the event (slots.session_event_v1.metadata)'),
        title: Title.optional(),
        text_summary: BoundedText().optional().describe('the event summary (derived from the text when absent)'),
        tags: Tags.optional(),
        slots: Slots.optional(),
        execution: ExecutionInput.optional(),
        importance: Unit.optional(),
        ...executionStateFields,
      })
      .superRefine((v, ctx) => {
        const t = v.input_text ?? v.text ?? v.event_text;
        if ((typeof t !== 'string' || t.trim() === '') && !v.execution) {
          ctx.addIssue({ code: 'custom', path: ['input_text'], message: 'an event needs input_text (or text, event_text, or execution)' });
        }
      }),
    output: z.object({
      ...echoFields,
      session: SessionView,
      session_created: z.boolean().describe('always false: an append never creates a session (kept for clients that read it)'),
      event: SessionEventView,
      ...writeResultFields,
    }),
    errors: ['not_found'],
  }),
  'sessions.get': route({
    name: 'sessions.get',
    path: '/v1/memory/sessions/get',
    summary: 'One session with its event count.',
    input: z.object({ ...identityFields, session_id: CallerId }),
    output: z.object({ ...echoFields, session: SessionView }),
    errors: ['not_found'],
  }),
  'sessions.list': route({
    name: 'sessions.list',
    path: '/v1/memory/sessions/list',
    aliases: [{ method: 'GET', path: '/v1/memory/sessions' }],
    summary: 'Sessions of the scope in creation order, with cursor pagination.',
    input: z.object({ ...identityFields, ...pageInputFields }),
    output: z.object({ ...echoFields, sessions: z.array(SessionView), ...pageOutputFields }),
  }),
  'sessions.listEvents': route({
    name: 'sessions.listEvents',
    path: '/v1/memory/sessions/events/list',
    aliases: [{ method: 'GET', path: '/v1/memory/sessions/:session_id/events' }],
    summary: 'The events of a session in append order, with cursor pagination.',
    input: z.object({ ...identityFields, ...pageInputFields, session_id: CallerId }),
    output: z.object({ ...echoFields, session_id: z.string(), events: z.array(SessionEventView), ...pageOutputFields }),
    errors: ['not_found'],
  }),
} as const;
