import { z } from 'zod';
import { route } from '../route';
import { DEPENDENCY_MODES, HEALTH_STATUSES, INDEX_STATUSES, PROCESS_ROLES, WORKSPACE_VIEW_REPORTS } from '../../model/system/vocabulary';

const Dependency = z.object({
  status: z.enum(HEALTH_STATUSES),
  mode: z.enum(DEPENDENCY_MODES).describe('local: started and supervised by Lore; external: configured by address'),
  address: z.string(),
  version: z.string().nullable(),
  detail: z.string().optional(),
});

const IndexState = z.object({ status: z.enum(INDEX_STATUSES), detail: z.string() });

export const HealthOutput = z.object({
  ok: z.boolean().describe('the API can serve requests: status is ok or degraded (what existing clients read)'),
  status: z.enum(HEALTH_STATUSES),
  version: z.string(),
  role: z.enum(PROCESS_ROLES),
  uptime_s: z.number(),
  dependencies: z.object({
    temporal: Dependency.extend({ namespace: z.string(), ui_url: z.string().nullable() }),
    mongodb: Dependency.extend({ database: z.string() }),
    worker: Dependency.extend({ task_queue: z.string(), pollers: z.number().int() }),
  }),
  sandbox: z.object({
    enabled: z.boolean(),
    available: z
      .boolean()
      .nullable()
      .describe('commands can run (isolated, or unisolated by LORE_SANDBOX_ISOLATION=none); false says why in detail; null: no worker has reported yet'),
    isolation: z.string().describe('bubblewrap | none | unavailable | unknown | disabled'),
    detail: z.string().optional(),
    workspaces: z
      .object({
        view: z
          .enum(WORKSPACE_VIEW_REPORTS)
          .describe('overlay: mounted copy-on-write for each run; copy: copied before each run (detail says why); off: no LORE_SANDBOX_WORKSPACE_ROOTS'),
        detail: z.string().optional(),
      })
      .optional()
      .describe('how a session’s workspace is seen, as the worker reported it (docs/sandbox.md, "Workspaces")'),
  }),
  embeddings: z.object({
    provider: z.string(),
    /** off (LORE_EMBEDDINGS=none), on, or unavailable (configured or the default, but it cannot run here: see detail). */
    status: z.string(),
    model: z.string().nullable().optional(),
    /** Nodes waiting for their vector (recall finds them lexically meanwhile). */
    pending: z.number().int().optional(),
    /** How long the longest-waiting of them has waited, in ms. */
    lag_ms: z.number().int().optional(),
    detail: z.string().optional(),
  }),
  /**
   * What the API builds from the store at start: the recall index (before it listens), the
   * forgetting view and the learned scopes (in the background). `building` until every one is
   * ready: a request before then may wait for the part it needs.
   */
  indexes: z.object({
    status: z.enum(INDEX_STATUSES),
    recall: IndexState,
    forgetting: IndexState,
    learning: IndexState,
  }),
  data_dir: z.string().nullable(),
});
export type HealthOutput = z.infer<typeof HealthOutput>;

export const systemRoutes = {
  health: route({
    name: 'health',
    method: 'GET',
    path: '/health',
    summary: 'Each dependency (Temporal, MongoDB, worker) with its mode and version.',
    input: z.object({}),
    output: HealthOutput,
    scoped: false,
  }),
} as const;
