import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { assembleApi } from '../../src/app/assemble';
import type { AppDeps } from '../../src/app/deps';
import type { Modules } from '../../src/app/modules';
import { loadConfig, type Config } from '../../src/config';
import { ManualClock } from '../../src/model/clock';
import { sandboxStatusReader } from '../../src/domain/sandbox/status';
import { TemporalEngine } from '../../src/engine/temporal-engine';
import { Metrics } from '../../src/http/metrics';
import { createLog, silentLog, type Log } from '../../src/log';
import { allCollections } from '../../src/store/collections';
import { Database } from '../../src/store/database';
import { startTelemetry } from '../../src/telemetry/index';
import type { WorkerHandle } from '../../src/worker';
import { startTestServices, type TestServices } from './services';

let ownServices: Promise<TestServices> | null = null;

/**
 * The servers this test process talks to: the ones `npm test` started (LORE_TEST_* env), or, when
 * a file runs on its own, a pair started here once and stopped at exit.
 */
export async function testServices(): Promise<{ mongoUri: string; temporalAddress: string }> {
  const mongoUri = process.env.LORE_TEST_MONGODB_URI;
  const temporalAddress = process.env.LORE_TEST_TEMPORAL_ADDRESS;
  if (mongoUri && temporalAddress) return { mongoUri, temporalAddress };
  if (!ownServices) {
    const dir = mkdtempSync(join(tmpdir(), 'lore-test-services-'));
    ownServices = startTestServices(loadConfig({ ...process.env, LORE_DATA_DIR: dir }), createLog('warn', 'test'), dir);
    const services = await ownServices;
    // The servers die with this process (stdin closes / PDEATHSIG); don't let them hold it open.
    services.unref();
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return ownServices;
}

export const uniqueName = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

export interface Reply<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

export interface TestApi {
  app: FastifyInstance;
  deps: AppDeps;
  modules: Modules;
  config: Config;
  clock: ManualClock;
  db: Database;
  engine: TemporalEngine;
  /** POST a JSON body (or GET when method is given); never throws on non-2xx. */
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply<T>>;
  get<T = any>(path: string): Promise<Reply<T>>;
  /** Start (or restart) the in-process worker on this test's task queue. */
  startWorker(): Promise<WorkerHandle>;
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  /** Run a Temporal worker in this process on the test's own task queue (default false). */
  worker?: boolean;
  /** Extra environment for loadConfig (e.g. SANDBOX_ENABLED). */
  env?: Record<string, string>;
  clock?: ManualClock;
  log?: Log;
}

/**
 * The real API (every family, real store, real Temporal) built in-process on a fresh database
 * and task queue, exercised through Fastify's inject(). Response validation is on: a handler
 * that breaks its own contract fails the test with a 500.
 */
export async function startTestApi(opts: TestApiOptions = {}): Promise<TestApi> {
  const services = await testServices();
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-test-data-'));
  // Sandbox workdirs need a root that sandbox uids can traverse (mkdtemp makes 0700 directories).
  const sandboxDir = mkdtempSync(join(tmpdir(), 'lore-test-sandbox-'));
  chmodSync(sandboxDir, 0o711);
  // The sandbox runner kills stray processes of its uid range, so every test process that runs a
  // worker gets a range of its own (derived from its pid, unique among live processes).
  const idMin = 1_000_000 + (process.pid % 4_000_000) * 256;
  const config = loadConfig({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LORE_BIN_DIR: process.env.LORE_BIN_DIR ?? '',
    LORE_DATA_DIR: dataDir,
    MONGODB_URI: services.mongoUri,
    MONGODB_DB: uniqueName('t').replace(/-/g, '_'),
    TEMPORAL_ADDRESS: services.temporalAddress,
    LORE_TASK_QUEUE: uniqueName('tq'),
    LORE_VALIDATE_RESPONSES: 'true',
    LORE_LIFECYCLE_INTERVAL: 'off',
    // Background workdir retention would act on the tests' manual clocks; retention.test.ts sweeps explicitly.
    LORE_SANDBOX_WORKDIR_TTL: 'off',
    LORE_SANDBOX_DIR: sandboxDir,
    LORE_SANDBOX_ID_MIN: String(idMin),
    LORE_SANDBOX_ID_MAX: String(idMin + 255),
    // Lexical unless a test asks for an encoder (the product's default is the onnx encoder where it
    // can run: test/memory/default-encoder.test.ts runs it with LORE_EMBEDDINGS unset, env '').
    LORE_EMBEDDINGS: 'none',
    // Requests wait for start-up builds (learned scopes, the forgetting view) as long as a slow
    // machine needs, so what a test asserts does not depend on timing; the bounded wait itself is
    // tested with LORE_BUILD_WAIT=0 (test/learning/follow-and-warm.test.ts, test/unit/lifecycle-building-view.test.ts).
    LORE_BUILD_WAIT: '60s',
    ...opts.env,
  });
  const log = opts.log ?? (process.env.LORE_TEST_LOG ? createLog('debug', 'test') : silentLog);
  const clock = opts.clock ?? new ManualClock('2026-01-01T00:00:00.000Z');
  const db = await Database.connect(config.mongo.uri!, config.mongo.database, { wireReads: config.mongo.wireReads });
  await db.ensureIndexes(allCollections);
  const metrics = new Metrics();
  // Tracing when the test's environment turns it on (as main.ts does); null otherwise.
  const telemetry = await startTelemetry(config, 'api', log);
  const engine = await TemporalEngine.connect({
    address: config.temporal.address!,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    observer: metrics,
    interceptors: telemetry?.clientInterceptors,
  });
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
    telemetry,
  };
  const api = await assembleApi(deps, metrics);
  let worker: WorkerHandle | null = null;
  const self: TestApi = {
    app: api.app,
    deps,
    modules: api.modules,
    config,
    clock,
    db,
    engine,
    async post(path, body = {}, headers = {}) {
      const res = await api.app.inject({
        method: 'POST',
        url: path,
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined, headers: res.headers as Reply['headers'] };
    },
    async get(path) {
      const res = await api.app.inject({ method: 'GET', url: path });
      const isJson = String(res.headers['content-type'] ?? '').includes('json');
      return { status: res.statusCode, body: isJson ? JSON.parse(res.body) : res.body, headers: res.headers as Reply['headers'] };
    },
    async startWorker() {
      // One worker per test API: a second call returns it (a stray worker would keep the process alive).
      // Loaded on first use: the worker package (bundler, protobufs) is a second or more of every
      // test file's start-up, and most files never start a worker.
      const { startWorker } = await import('../../src/worker');
      worker ??= await startWorker({ config, log, clock, db });
      return worker;
    },
    async stopWorker() {
      await worker?.shutdown();
      worker = null;
    },
    async close() {
      await self.stopWorker();
      await api.stop();
      await engine.close();
      await db.db.dropDatabase().catch(() => {});
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(sandboxDir, { recursive: true, force: true });
    },
  };
  if (opts.worker) await self.startWorker();
  return self;
}
