import { fileURLToPath } from 'node:url';
import { workerChildCommand } from './local/node-flags';
import { join } from 'node:path';
import { assembleApi } from './app/assemble';
import type { AppDeps, RuntimeInfo } from './app/deps';
import type { Config, Role } from './config';
import { systemClock } from './model/clock';
import { ensureLifecycleSchedule } from './domain/lifecycle/schedule';
import { sandboxStatusReader } from './domain/sandbox/status';
import { TemporalEngine } from './engine/temporal-engine';
import { Metrics } from './http/metrics';
import type { Log } from './log';
import { spawnChild, type Child } from './local/child';
import { claimDataDir } from './local/data-dir';
import { installTokenPath } from './model/install-token';
import { LocalServiceError } from './local/errors';
import { ensureEncoderModel } from './local/models';
import { startLocalMongo } from './local/mongo';
import { Supervisor } from './local/supervisor';
import { ensureTemporalBinary, startTemporalServer } from './local/temporal-server';
import { allCollections } from './store/collections';
import { Database } from './store/database';
import { startTelemetry } from './telemetry/index';
import { WORKER_READY_MARKER } from './worker-ready';
import type { DependencyMode } from './model/system/vocabulary';

const LORE_BIN = fileURLToPath(new URL('../bin/lore.mjs', import.meta.url));

export interface Runtime {
  /** Stops everything this process started, in reverse order. */
  stop(): Promise<void>;
  /** Resolves when the runtime has stopped (signal, fatal child failure, or stop()). */
  stopped: Promise<void>;
  apiUrl: string | null;
  deps: AppDeps | null;
}

async function retry<T>(what: string, fn: () => Promise<T>, timeoutMs: number, log: Log): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: ${(err as Error).message}`);
      if (attempt === 3) log.info(`waiting for ${what}…`);
      await new Promise((r) => setTimeout(r, Math.min(2000, 200 * attempt)));
    }
  }
}

/**
 * config → local services (if needed) → store → worker → Fastify. The order matters: each step
 * needs the previous one, and stop() undoes them in reverse.
 */
export async function startRuntime(config: Config, log: Log): Promise<Runtime> {
  const role: Role = config.role;
  if (role === 'worker') return startWorkerRole(config, log);

  const startedAt = Date.now();
  const needsLocal = !config.temporal.address || !config.mongo.uri;
  let stopResolve!: () => void;
  const stopped = new Promise<void>((r) => (stopResolve = r));
  let stopping: Promise<void> | null = null;
  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = () => {
    stopping ??= (async () => {
      for (const fn of cleanups.reverse()) {
        try {
          await fn();
        } catch (err) {
          log.warn(`while stopping: ${(err as Error).message}`);
        }
      }
      stopResolve();
    })();
    return stopping;
  };
  const supervisor = new Supervisor(log, (reason) => {
    log.error(`shutting down: ${reason}`);
    process.exitCode = 1;
    void stop();
  });

  try {
    if (needsLocal) cleanups.push(claimDataDir(config.dataDir));
    cleanups.push(() => supervisor.stopAll());

    let mongoUri = config.mongo.uri;
    let mongoMode: DependencyMode = 'external';
    if (!mongoUri) {
      const mongo = await startLocalMongo(config, log, supervisor);
      mongoUri = mongo.uri;
      mongoMode = 'local';
    }

    let temporalAddress = config.temporal.address;
    let uiUrl: string | null = config.temporal.uiUrl;
    let temporalMode: DependencyMode = 'external';
    if (!temporalAddress) {
      const binary = await ensureTemporalBinary(config.binDir, log);
      let server!: Awaited<ReturnType<typeof startTemporalServer>>;
      await supervisor.add({
        name: 'temporal',
        start: async () => {
          server = await startTemporalServer({
            binary,
            host: '127.0.0.1',
            port: config.temporal.localPort,
            uiPort: config.temporal.localUiPort,
            dbFile: join(config.dataDir, 'temporal.db'),
            namespace: config.temporal.namespace,
            log,
          });
          return server.child;
        },
      });
      temporalAddress = server.address;
      uiUrl ??= server.uiUrl;
      temporalMode = 'local';
    }

    const db = await retry('MongoDB', () => Database.connect(mongoUri!, config.mongo.database, { wireReads: config.mongo.wireReads }), 30_000, log);
    cleanups.push(() => db.close());
    await db.ensureIndexes(allCollections);

    // The sentence encoder's model, downloaded once (first start) before the modules load it.
    await ensureEncoderModel(config, log);

    // Tracing (off unless configured): before the engine, whose client carries its interceptor.
    const telemetry = await startTelemetry(config, 'api', log);
    if (telemetry) cleanups.push(() => telemetry.shutdown());
    const metrics = new Metrics();
    const engine = await retry(
      'Temporal',
      async () => {
        const e = await TemporalEngine.connect({
          address: temporalAddress!,
          namespace: config.temporal.namespace,
          taskQueue: config.temporal.taskQueue,
          observer: metrics,
          interceptors: telemetry?.clientInterceptors,
        });
        await e.serverVersion();
        return e;
      },
      60_000,
      log,
    );
    cleanups.push(() => engine.close());
    if (temporalMode === 'external') await engine.ensureSearchAttributes();
    // The lifecycle operator's Temporal Schedule: ensured at every start (idempotent); `off` pauses it.
    await ensureLifecycleSchedule(engine, config, log).catch((err) => log.warn(`lifecycle schedule not ensured: ${(err as Error).message}`));

    if (role === 'all') {
      const worker = workerChildCommand({
        loreBin: LORE_BIN,
        env: process.env,
        set: { TEMPORAL_ADDRESS: temporalAddress, MONGODB_URI: mongoUri, LORE_ROLE: 'worker' },
      });
      await supervisor.add({ name: 'worker', start: () => spawnWorkerChild(worker, log), graceMs: 15_000 });
    }

    const runtime: RuntimeInfo = {
      role,
      startedAt,
      dataDir: needsLocal ? config.dataDir : null,
      temporal: { mode: temporalMode, address: temporalAddress, namespace: config.temporal.namespace, uiUrl },
      mongo: { mode: mongoMode, address: mongoUri, database: config.mongo.database },
    };
    const deps: AppDeps = {
      config,
      log,
      clock: systemClock,
      db,
      engine,
      engineProbe: engine,
      runtime,
      // What the worker found (it alone runs sandbox commands, in its own uid range).
      sandboxStatus: sandboxStatusReader(config, db),
      telemetry,
    };
    const api = await assembleApi(deps, metrics);
    cleanups.push(() => api.stop());
    const app = api.app;
    try {
      await app.listen({ host: config.host, port: config.port });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new LocalServiceError(`port ${config.port} on ${config.host} (Lore API) is already in use`, 'stop the other process, or set LORE_PORT to a free port');
      }
      throw err;
    }
    const apiUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
    printBanner(config, runtime, apiUrl, api.requiredToken);
    return { stop, stopped, apiUrl, deps };
  } catch (err) {
    await stop();
    throw err;
  }
}

function spawnWorkerChild(worker: ReturnType<typeof workerChildCommand>, log: Log): Promise<Child> {
  return new Promise((resolve, reject) => {
    let ready = false;
    const child = spawnChild({
      name: 'worker',
      command: worker.command,
      args: worker.args,
      env: worker.env,
      log,
      rawOutput: true,
      onStdoutLine: (line) => {
        if (!ready && line.includes(WORKER_READY_MARKER)) {
          ready = true;
          resolve(child);
        }
      },
    });
    void child.exited.then((exit) => {
      if (!ready) reject(new Error(`the worker exited before it was ready (${exit.signal ?? exit.code}):\n${child.tail()}`));
    });
  });
}

async function startWorkerRole(config: Config, log: Log): Promise<Runtime> {
  if (!config.temporal.address || !config.mongo.uri) {
    throw new LocalServiceError('the worker role needs TEMPORAL_ADDRESS and MONGODB_URI', 'set both (the role `all` starts local services and a worker for you)');
  }
  // Loaded here only: the API process never needs the Temporal worker package (native core, bundler).
  const { startWorker } = await import('./worker');
  const worker = await startWorker({ config, log });
  // The worker started tracing (when on); spans still buffered go out once it has stopped.
  const telemetry = await startTelemetry(config, 'worker', log);
  process.stdout.write(`${WORKER_READY_MARKER} task_queue=${config.temporal.taskQueue}\n`);
  log.info(`worker polling task queue '${config.temporal.taskQueue}' on ${config.temporal.address}`);
  const stopped = worker.done.finally(() => telemetry?.shutdown());
  return {
    stop: async () => {
      await worker.shutdown();
      await stopped;
    },
    stopped,
    apiUrl: null,
    deps: null,
  };
}

function printBanner(config: Config, runtime: RuntimeInfo, apiUrl: string, requiredToken: string | null): void {
  const tokenFile = installTokenPath(config.dataDir);
  const lines = [
    '',
    `Lore ${config.version} is up (role ${runtime.role})`,
    requiredToken
      ? `  API          ${apiUrl}   (every request needs the install token: curl -H "authorization: Bearer $(cat ${tokenFile})" ${apiUrl}/health)`
      : `  API          ${apiUrl}   (try: curl ${apiUrl}/health)`,
    // The token rides in the fragment, which the browser never sends; the inspector keeps it in the tab.
    `  Inspector    ${apiUrl}/inspector/${requiredToken ? `#token=${requiredToken}` : ''}`,
    `  Temporal UI  ${runtime.temporal.uiUrl ?? `(external Temporal at ${runtime.temporal.address})`}`,
    `  Temporal     ${runtime.temporal.address} (${runtime.temporal.mode}, namespace ${runtime.temporal.namespace})`,
    `  MongoDB      ${runtime.mongo.address.replace(/\/\/[^@/]*@/, '//***@')} (${runtime.mongo.mode}, database ${runtime.mongo.database})`,
    `  data dir     ${runtime.dataDir ?? '(none: external services)'}`,
    runtime.role === 'api' ? '  no worker in this process: start one with `lore start --role worker`' : '',
    'Press Ctrl+C to stop.',
    '',
  ].filter((l) => l !== '');
  process.stdout.write(`${lines.join('\n')}\n`);
}
