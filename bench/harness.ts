import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { assembleApi } from '../src/app/assemble';
import type { AppDeps } from '../src/app/deps';
import type { Modules } from '../src/app/modules';
import { loadConfig, type Config } from '../src/config';
import { systemClock, type Clock } from '../src/model/clock';
import { sandboxStatusReader } from '../src/domain/sandbox/status';
import { TemporalEngine } from '../src/engine/temporal-engine';
import { Metrics } from '../src/http/metrics';
import { ensureMongoLauncherJar, startMongoServer } from '../src/local/mongo-server';
import { freePort } from '../src/local/ports';
import { ensureTemporalBinary, startTemporalServer } from '../src/local/temporal-server';
import { createLog, silentLog, type Log } from '../src/log';
import { allCollections } from '../src/store/collections';
import { Database } from '../src/store/database';
import type { WorkerHandle } from '../src/worker';

/**
 * Lore in the benchmark's own process, for tools that measure a family's code through its HTTP
 * routes without a second process: one MongoDB-compatible server and one Temporal dev server on
 * free loopback ports (or LORE_BENCH_MONGODB_URI / LORE_BENCH_TEMPORAL_ADDRESS), the real API
 * answering through Fastify inject(), and optionally a worker. Nothing here is a test helper: the
 * tests have their own harness (test/helpers/app.ts), with response validation and a manual clock.
 */
export interface LocalServers {
  mongoUri: string;
  temporalAddress: string;
}

let servers: Promise<LocalServers> | null = null;

/** The servers of this process: started once, on first use, and gone when it exits. */
export function localServers(log: Log = createLog('warn', 'bench')): Promise<LocalServers> {
  const mongoUri = process.env.LORE_BENCH_MONGODB_URI;
  const temporalAddress = process.env.LORE_BENCH_TEMPORAL_ADDRESS;
  if (mongoUri && temporalAddress) return Promise.resolve({ mongoUri, temporalAddress });
  servers ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-bench-servers-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const config = loadConfig({ ...process.env, LORE_DATA_DIR: dir });
    const [jarPath, binary] = await Promise.all([ensureMongoLauncherJar({ binDir: config.binDir, log: (m: string) => log.info(m) }), ensureTemporalBinary(config.binDir, log)]);
    const mongo = await startMongoServer({ jarPath, host: '127.0.0.1', port: await freePort(), dbFile: join(dir, 'mongo.mv.db'), log: (m: string) => log.debug(m) });
    const temporal = await startTemporalServer({
      binary,
      host: '127.0.0.1',
      port: await freePort(),
      uiPort: await freePort(),
      dbFile: join(dir, 'temporal.db'),
      namespace: 'default',
      log,
    });
    // They die with this process (stdin closes / PDEATHSIG); don't let them hold it open.
    mongo.unref();
    temporal.child.unref();
    return { mongoUri: mongo.uri, temporalAddress: temporal.address };
  })();
  return servers;
}

export interface LocalLore {
  config: Config;
  modules: Modules;
  engine: TemporalEngine;
  post(path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export interface LocalLoreOptions {
  /** Run a worker in this process on the instance's own task queue. */
  worker?: boolean;
  /** Extra environment for loadConfig (LORE_EMBEDDINGS, MONGODB_DB to reuse a database, …). */
  env?: Record<string, string>;
  clock?: Clock;
}

/** The real API (every family, real store, real Temporal) on a fresh database and task queue. */
export async function startLocalLore(opts: LocalLoreOptions = {}): Promise<LocalLore> {
  const services = await localServers();
  const id = randomBytes(4).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-data-'));
  const sandboxDir = mkdtempSync(join(tmpdir(), 'lore-bench-sandbox-'));
  chmodSync(sandboxDir, 0o711); // sandbox uids must traverse it
  const config = loadConfig({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LORE_BIN_DIR: process.env.LORE_BIN_DIR ?? '',
    LORE_DATA_DIR: dataDir,
    MONGODB_URI: services.mongoUri,
    MONGODB_DB: `bench_${id}`,
    TEMPORAL_ADDRESS: services.temporalAddress,
    LORE_TASK_QUEUE: `bench-${id}`,
    LORE_LIFECYCLE_INTERVAL: 'off',
    LORE_SANDBOX_DIR: sandboxDir,
    LORE_EMBEDDINGS: 'none',
    ...opts.env,
  });
  const log = silentLog;
  const clock = opts.clock ?? systemClock;
  const db = await Database.connect(config.mongo.uri!, config.mongo.database, { wireReads: config.mongo.wireReads });
  await db.ensureIndexes(allCollections);
  const metrics = new Metrics();
  const engine = await TemporalEngine.connect({ address: config.temporal.address!, namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue, observer: metrics });
  const deps: AppDeps = {
    config,
    log,
    clock,
    db,
    engine,
    engineProbe: engine,
    runtime: {
      role: 'all',
      startedAt: Date.now(),
      dataDir,
      temporal: { mode: 'external', address: config.temporal.address!, namespace: config.temporal.namespace, uiUrl: config.temporal.uiUrl },
      mongo: { mode: 'external', address: config.mongo.uri!, database: config.mongo.database },
    },
    sandboxStatus: sandboxStatusReader(config, db),
    telemetry: null,
  };
  const api = await assembleApi(deps, metrics);
  let worker: WorkerHandle | null = null;
  if (opts.worker) {
    const { startWorker } = await import('../src/worker');
    worker = await startWorker({ config, log, clock, db });
  }
  return {
    config,
    modules: api.modules,
    engine,
    async post(path, body = {}) {
      const res = await api.app.inject({ method: 'POST', url: path, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
    },
    async close() {
      await worker?.shutdown();
      await api.stop();
      await engine.close();
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(sandboxDir, { recursive: true, force: true });
    },
  };
}
