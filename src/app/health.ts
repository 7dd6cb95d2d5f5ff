import type { Readiness } from '../domain/family-module';
import type { HealthOutput } from '../contract/families/system';
import type { systemRoutes } from '../contract/families/system';
import type { Handlers } from '../contract/handlers';
import type { EncoderStatus } from '../retrieval/embedders/resolve';
import type { AppDeps } from './deps';

const within = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

/** Redacts credentials from a MongoDB URI before showing it. */
export const redactUri = (uri: string) => uri.replace(/\/\/[^@/]*@/, '//***@');

/** The parts of the API's start-up builds GET /health reports, by module. */
export interface IndexReadiness {
  recall: Readiness;
  forgetting: Readiness;
  learning: Readiness;
}

const notReported: Readiness = { status: 'ready', detail: 'not built by this process' };

export function indexesOf(r: IndexReadiness | null): HealthOutput['indexes'] {
  const parts = r ?? { recall: notReported, forgetting: notReported, learning: notReported };
  const all = [parts.recall, parts.forgetting, parts.learning];
  const status = all.some((p) => p.status === 'building') ? 'building' : all.some((p) => p.status === 'failed') ? 'failed' : 'ready';
  return { status, ...parts };
}

export async function checkHealth(
  deps: AppDeps,
  encoder: () => EncoderStatus & { pending?: number; lag_ms?: number },
  readiness: () => IndexReadiness | null = () => null,
): Promise<HealthOutput> {
  const { runtime, config } = deps;
  const [mongo, temporal, pollers, sandbox] = await Promise.allSettled([
    within(deps.db.ping(), 3000),
    within(deps.engineProbe.serverVersion(), 3000),
    within(deps.engineProbe.pollerCount(), 3000),
    deps.sandboxStatus(),
  ]);
  const mongoOk = mongo.status === 'fulfilled';
  const temporalOk = temporal.status === 'fulfilled';
  const pollerCount = pollers.status === 'fulfilled' ? pollers.value : 0;
  const workerOk = pollers.status === 'fulfilled' && pollerCount > 0;
  // An enabled sandbox that cannot run commands is a feature down: degraded, and /health says why.
  const sandboxDown = sandbox.status === 'fulfilled' && sandbox.value.enabled && sandbox.value.available === false;
  const status = !mongoOk ? 'down' : temporalOk && workerOk && !sandboxDown ? 'ok' : 'degraded';
  const reason = (r: PromiseSettledResult<unknown>) => (r.status === 'rejected' ? String((r.reason as Error)?.message ?? r.reason) : undefined);
  return {
    ok: status !== 'down',
    status,
    version: config.version,
    role: runtime.role,
    uptime_s: Math.round((Date.now() - runtime.startedAt) / 1000),
    dependencies: {
      temporal: {
        status: temporalOk ? 'ok' : 'down',
        mode: runtime.temporal.mode,
        address: runtime.temporal.address,
        namespace: runtime.temporal.namespace,
        version: temporal.status === 'fulfilled' ? temporal.value : null,
        ui_url: runtime.temporal.uiUrl,
        ...(reason(temporal) ? { detail: reason(temporal) } : {}),
      },
      mongodb: {
        status: mongoOk ? 'ok' : 'down',
        mode: runtime.mongo.mode,
        address: redactUri(runtime.mongo.address),
        database: runtime.mongo.database,
        version: mongo.status === 'fulfilled' ? mongo.value.version : null,
        ...(reason(mongo) ? { detail: reason(mongo) } : {}),
      },
      worker: {
        status: workerOk ? 'ok' : 'down',
        mode: runtime.role === 'all' ? 'local' : 'external',
        address: config.temporal.taskQueue,
        task_queue: config.temporal.taskQueue,
        pollers: pollerCount,
        version: config.version,
        ...(workerOk ? {} : { detail: reason(pollers) ?? 'no worker is polling the task queue; start one with `lore start --role worker`' }),
      },
    },
    sandbox: sandbox.status === 'fulfilled' ? sandbox.value : { enabled: config.sandbox.enabled, available: null, isolation: 'unknown', detail: reason(sandbox) },
    embeddings: embeddingsOf(encoder()),
    indexes: indexesOf(readiness()),
    data_dir: runtime.dataDir,
  };
}

/** The encoder's status as /health shows it (fields without a value are left out). */
function embeddingsOf(s: EncoderStatus & { pending?: number; lag_ms?: number }): HealthOutput['embeddings'] {
  return {
    provider: s.provider,
    status: s.status,
    model: s.model,
    ...(s.pending !== undefined ? { pending: s.pending } : {}),
    ...(s.lag_ms !== undefined ? { lag_ms: s.lag_ms } : {}),
    ...(s.detail ? { detail: s.detail } : {}),
  };
}

export function createSystemHandlers(
  deps: AppDeps,
  encoder: () => EncoderStatus & { pending?: number; lag_ms?: number },
  readiness?: () => IndexReadiness | null,
): Handlers<typeof systemRoutes> {
  return {
    health: async () => checkHealth(deps, encoder, readiness),
  };
}
