import { z } from 'zod';
import { CallerId, countsOf, echoFields, identityFields, pageInputFields, pageOutputFields } from '../common';
import { route } from '../route';
import { PATTERN_CLASSES, POLICY_STATES, PROMOTION_STATES } from '../../model/learning/vocabulary';
import { PatternClassEnum, PatternView, PolicyMemoryView, WorkflowView } from './learning-schemas';

const NodeId = z.string().min(1).max(200);

/**
 * Listings of what the scope has learned (the inspector's learning pages; docs/learning.md,
 * "Listings"): served from the scope's in-process learning state, newest first, with cursor
 * pagination, so a page costs the same however much was learned.
 */
const LearnedCounts = z.object({
  workflows: z.object({ total: z.number().int(), stable: z.number().int(), candidate: z.number().int(), promotion_ready: z.number().int() }),
  patterns: countsOf(PATTERN_CLASSES),
  policies: countsOf(POLICY_STATES),
});

export const learningListRoutes = {
  'learning.workflows.list': route({
    name: 'learning.workflows.list',
    path: '/v1/memory/workflows/list',
    summary:
      'Learned workflows of the scope, newest first, optionally only candidate or stable ones, each with its evidence (provenance_ids), distillation origin and counts; cursor pagination.',
    input: z.object({ ...identityFields, ...pageInputFields, promotion_state: z.enum(PROMOTION_STATES).optional() }),
    output: z.object({ ...echoFields, workflows: z.array(WorkflowView), counts: LearnedCounts, ...pageOutputFields }),
  }),
  'learning.workflows.get': route({
    name: 'learning.workflows.get',
    path: '/v1/memory/workflows/get',
    summary: 'One learned workflow by its node id (workflow_id) or client_id, with its evidence, steps, distillation origin and origin counts.',
    errors: ['not_found'],
    input: z.object({ ...identityFields, workflow_id: NodeId.optional(), client_id: CallerId.optional() }).superRefine((v, ctx) => {
      if ((v.workflow_id === undefined) === (v.client_id === undefined)) ctx.addIssue({ code: 'custom', path: ['workflow_id'], message: 'give workflow_id or client_id' });
    }),
    output: z.object({ ...echoFields, workflow: WorkflowView }),
  }),
  'learning.patterns.list': route({
    name: 'learning.patterns.list',
    path: '/v1/memory/patterns/list',
    summary:
      'Tool patterns of the scope, newest first, optionally of one class (observed, trusted, contested, suppressed), each with its run counts and history; cursor pagination.',
    input: z.object({ ...identityFields, ...pageInputFields, state: PatternClassEnum.optional() }),
    output: z.object({ ...echoFields, patterns: z.array(PatternView), counts: LearnedCounts, ...pageOutputFields }),
  }),
  'learning.policies.list': route({
    name: 'learning.policies.list',
    path: '/v1/memory/policies/list',
    summary:
      'Persisted policy memories of the scope, newest first, optionally in one state (active, contested, retired), each with its contract and governance history; cursor pagination.',
    input: z.object({ ...identityFields, ...pageInputFields, state: z.enum(POLICY_STATES).optional() }),
    output: z.object({ ...echoFields, policies: z.array(PolicyMemoryView), counts: LearnedCounts, ...pageOutputFields }),
  }),
} as const;
