import { join } from 'node:path';
import type { Config } from '../../src/config';
import type { Log } from '../../src/log';
import { ensureMongoLauncherJar, startMongoServer } from '../../src/local/mongo-server';
import { freePort } from '../../src/local/ports';
import { ensureTemporalBinary, startTemporalServer } from '../../src/local/temporal-server';
import { ensureOverlayHelper } from '../../src/sandbox/isolation/index';

export interface TestServices {
  mongoUri: string;
  temporalAddress: string;
  stop(): Promise<void>;
  /** Let the test process exit while they run (they die with it). */
  unref(): void;
}

/** One MongoDB-compatible server and one Temporal dev server on free loopback ports, data in dir. */
export async function startTestServices(config: Config, log: Log, dir: string): Promise<TestServices> {
  // The workspace overlay's helper is built here once, not by each test file's worker at once.
  const [jarPath, binary] = await Promise.all([
    ensureMongoLauncherJar({ binDir: config.binDir, log: (m: string) => log.info(m) }),
    ensureTemporalBinary(config.binDir, log),
    ensureOverlayHelper(config.binDir, (m: string) => log.info(m)),
  ]);
  const mongo = await startMongoServer({
    jarPath,
    host: '127.0.0.1',
    port: await freePort(),
    dbFile: join(dir, 'mongo.mv.db'),
    log: (m: string) => log.debug(m),
    ...(config.mongo.javaOptions ? { javaOptions: config.mongo.javaOptions } : {}),
  });
  const temporal = await startTemporalServer({
    binary,
    host: '127.0.0.1',
    port: await freePort(),
    uiPort: await freePort(),
    dbFile: join(dir, 'temporal.db'),
    namespace: 'default',
    log,
  });
  return {
    mongoUri: mongo.uri,
    temporalAddress: temporal.address,
    async stop() {
      await temporal.child.stop(5000);
      await mongo.stop();
    },
    unref() {
      temporal.child.unref();
      mongo.unref();
    },
  };
}
