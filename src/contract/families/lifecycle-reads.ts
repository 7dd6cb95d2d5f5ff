import { z } from 'zod';
import { Limit, Timestamp, countsOf, echoFields, identityFields } from '../common';
import { LIFECYCLE_STATES } from '../../model/lifecycle/vocabulary';
import { TIERS } from '../../model/memory/node';
import { route } from '../route';

/**
 * Read-only routes the inspector needs and any client may use (docs/inspector.md): which tenants
 * and scopes hold memory (the scope registry the lifecycle sweep walks), and a scope's node
 * counts by tier and lifecycle state over time (hourly samples of the forgetting view).
 */

const n = z.number().int();
const TierCounts = countsOf(TIERS);
const StateCounts = countsOf(LIFECYCLE_STATES);

const CountsPoint = z.object({
  at: Timestamp.describe('start of the hour the sample belongs to (current: when it was read)'),
  node_count: n,
  tier_counts: TierCounts,
  lifecycle_state_counts: StateCounts,
});

const Cursor = z.string().max(512).describe('next_cursor of the previous page');

export const MAX_HISTORY_POINTS = 2000;

export const lifecycleReadRoutes = {
  'memory.scopes.list': route({
    name: 'memory.scopes.list',
    path: '/v1/memory/scopes/list',
    summary:
      'The scopes of a tenant that hold memory (every scope a Lore process has seen a node of), in name order, with when each was first seen and its last lifecycle run; cursor pagination.',
    input: z.object({ ...identityFields, limit: Limit(50, 200), cursor: Cursor.optional() }),
    output: z.object({
      ...echoFields,
      scopes: z.array(
        z.object({
          scope: z.string(),
          first_seen_at: Timestamp,
          last_run: z.object({ run_id: z.string(), decided_at: Timestamp }).nullable(),
        }),
      ),
      next_cursor: z.string().nullable(),
    }),
  }),
  'memory.tenants.list': route({
    name: 'memory.tenants.list',
    path: '/v1/memory/tenants/list',
    summary:
      'Tenants that hold memory, each once (in the scope registry’s order, by `<tenant>/`), with cursor pagination. A request made with an API key bound to a tenant sees that tenant only.',
    input: z.object({ limit: Limit(50, 200), cursor: Cursor.optional() }),
    output: z.object({ tenants: z.array(z.string()), next_cursor: z.string().nullable(), bound_tenant: z.string().nullable() }),
    scoped: false,
  }),
  'memory.lifecycle.history': route({
    name: 'memory.lifecycle.history',
    path: '/v1/memory/lifecycle/history',
    summary:
      'The scope’s node counts by tier and lifecycle state over time: one sample per hour in which they changed (oldest first, at most limit, from since), and the current counts.',
    input: z.object({
      ...identityFields,
      since: z.iso.datetime({ offset: true }).optional().describe('first hour wanted (default: the latest `limit` samples)'),
      limit: Limit(168, MAX_HISTORY_POINTS),
    }),
    output: z.object({
      ...echoFields,
      bucket: z.literal('hour'),
      points: z.array(CountsPoint),
      current: CountsPoint,
    }),
  }),
} as const;
