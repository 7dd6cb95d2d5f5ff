import { z } from 'zod';
import { BoundedText, CallerId, Timestamp, echoFields, identityFields } from '../common';
import { route } from '../route';
import { ShortText, Tags, Title, executionStateFields, writeResultFields } from './memory-schemas';

/**
 * Handoffs (contract.md §5): structured state one agent leaves for the next, stored as nodes of
 * kind `handoff`, one per anchor. Storing again under an anchor supersedes: recover returns the
 * latest, and the earlier ones stay as revisions (docs/memory.md, "Handoffs").
 */

const Anchor = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[^\u0000-\u001f\u007f]+$/, 'must be printable characters');

export const HandoffView = z.object({
  handoff_id: z.string(),
  uri: z.string(),
  anchor: z.string(),
  title: z.string().nullable(),
  summary: z.string(),
  handoff_text: z.string(),
  target_files: z.array(z.string()),
  next_action: z.string().nullable(),
  acceptance_checks: z.array(z.string()),
  rollback_notes: z.array(z.string()),
  handoff_kind: z.string().nullable(),
  session_id: z.string().nullable(),
  run_id: z.string().nullable(),
  tags: z.array(z.string()),
  revision: z.number().int(),
  actor: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const handoffFields = {
  anchor: Anchor,
  title: Title.optional(),
  summary: BoundedText().optional(),
  handoff_text: BoundedText().optional(),
  target_files: z.array(ShortText).max(200).optional(),
  next_action: BoundedText(8192).optional(),
  acceptance_checks: z.array(ShortText).max(200).optional(),
  rollback_notes: z.union([BoundedText(8192), z.array(ShortText).max(200)]).optional(),
  handoff_kind: z.string().min(1).max(64).optional(),
  session_id: CallerId.optional(),
  run_id: CallerId.optional(),
  tags: Tags.optional(),
  ...executionStateFields,
};

export const handoffRoutes = {
  'handoff.store': route({
    name: 'handoff.store',
    path: '/v1/memory/handoff/store',
    aliases: ['/v1/handoff/store'],
    summary:
      'Store a handoff under an anchor: summary, handoff_text, target_files, next_action, acceptance_checks, rollback_notes. The same content again is idempotent; new content supersedes.',
    input: z.object({ ...identityFields, ...handoffFields }).superRefine((v, ctx) => {
      if (![v.summary, v.handoff_text].some((t) => typeof t === 'string' && t.trim() !== '')) {
        ctx.addIssue({ code: 'custom', path: ['summary'], message: 'a handoff needs summary or handoff_text' });
      }
    }),
    output: z.object({ ...echoFields, handoff: HandoffView, ...writeResultFields }),
  }),
  'handoff.recover': route({
    name: 'handoff.recover',
    path: '/v1/memory/handoff/recover',
    aliases: ['/v1/handoff/recover'],
    summary: 'Recover the latest handoff of an anchor (or one handoff by handoff_id), optionally with the earlier versions.',
    input: z
      .object({ ...identityFields, anchor: Anchor.optional(), handoff_id: z.string().min(1).max(200).optional(), include_history: z.boolean().default(false) })
      .superRefine((v, ctx) => {
        if ((v.anchor === undefined) === (v.handoff_id === undefined)) ctx.addIssue({ code: 'custom', path: ['anchor'], message: 'give exactly one of anchor or handoff_id' });
      }),
    output: z.object({ ...echoFields, handoff: HandoffView, history: z.array(HandoffView.omit({ uri: true, handoff_id: true }).extend({ revision: z.number().int() })) }),
    errors: ['not_found'],
  }),
} as const;
