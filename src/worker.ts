import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type ActivityInboundCallsInterceptor,
  type ActivityInterceptorsFactory,
  type InjectedSinks,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';
import { createActivities } from '../activities';
import type { Config } from './config';
import { systemClock, type Clock } from './model/clock';
import { startWorkdirRetention } from './domain/sandbox/retention';
import { toApplicationFailure } from './engine/failures';
import type { Log } from './log';
import { allCollections } from './store/collections';
import { Database } from './store/database';
import { startTelemetry } from './telemetry/index';
import { workflowBundle } from './workflow-bundle';

export { WORKER_READY_MARKER } from './worker-ready';
export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** This source tree's workflow bundle (cached; see workflow-bundle.ts): workers and replays use it. */
export function currentWorkflowBundle(log: Log, interceptorModules: readonly string[] = []): Promise<WorkflowBundleOption> {
  return workflowBundle({ workflowsPath: WORKFLOWS_PATH, root: dirname(dirname(WORKFLOWS_PATH)), log, interceptorModules });
}

let runtimeInstalled = false;
function installRuntime(level: Config['logLevel']): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // Temporal's own logs: warnings and errors only unless Lore runs at debug.
  Runtime.install({ logger: new DefaultLogger(level === 'debug' ? 'INFO' : 'WARN') });
}

/** Activities throw LoreError; this turns it into an ApplicationFailure the client can map back. */
class LoreErrorInterceptor implements ActivityInboundCallsInterceptor {
  async execute(input: Parameters<NonNullable<ActivityInboundCallsInterceptor['execute']>>[0], next: Parameters<NonNullable<ActivityInboundCallsInterceptor['execute']>>[1]) {
    try {
      return await next(input);
    } catch (err) {
      throw toApplicationFailure(err);
    }
  }
}

export interface WorkerHandle {
  /** Resolves when the worker has stopped (after shutdown() or a fatal error). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** Connects, bundles workflows (or takes the cached bundle), registers activities and starts polling the task queue. */
export async function startWorker(opts: { config: Config; log: Log; clock?: Clock; db?: Database; workflowBundle?: WorkflowBundleOption }): Promise<WorkerHandle> {
  const { config, log } = opts;
  const address = config.temporal.address;
  if (!address || !config.mongo.uri) throw new Error('the worker needs TEMPORAL_ADDRESS and MONGODB_URI');
  installRuntime(config.logLevel);
  const ownDb = !opts.db;
  const db = opts.db ?? (await Database.connect(config.mongo.uri, config.mongo.database, { wireReads: config.mongo.wireReads }));
  await db.ensureIndexes(allCollections);
  const connection = await NativeConnection.connect({ address });
  // Tracing (off unless configured): Temporal's interceptors, outermost, so a span covers an
  // activity's whole run and records the failure the caller sees.
  const telemetry = await startTelemetry(config, 'worker', log);
  const tracing = telemetry ? await telemetry.worker() : null;
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    // Tests may run another version of the workflows (test/workflows/patches.test.ts).
    workflowBundle: opts.workflowBundle ?? (await currentWorkflowBundle(log, tracing?.workflowInterceptorModules)),
    activities: createActivities({ config, db, clock: opts.clock ?? systemClock, log: log.child('activity') }),
    interceptors: {
      activity: [...((tracing?.activityInterceptors ?? []) as ActivityInterceptorsFactory[]), () => ({ inbound: new LoreErrorInterceptor() })],
    },
    ...(tracing ? { sinks: tracing.sinks as InjectedSinks<Sinks> } : {}),
    shutdownGraceTime: '10s',
    // Activity cancellation reaches a running activity with its next heartbeat; the sandbox
    // activity heartbeats every 500 ms, so a cancelled command dies within about a second.
    maxHeartbeatThrottleInterval: '500ms',
  });
  // Session workdirs live on this host: this worker removes the ones idle for LORE_SANDBOX_WORKDIR_TTL.
  const retention = startWorkdirRetention({ config, db, clock: opts.clock ?? systemClock, log: log.child('sandbox') });
  const done = worker.run().finally(async () => {
    await retention.stop().catch(() => {});
    await connection.close().catch(() => {});
    if (ownDb) await db.close().catch(() => {});
  });
  return {
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
