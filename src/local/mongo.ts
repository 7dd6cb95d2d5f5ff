import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import type { Log } from '../log';
import type { Child } from './child';
import { LocalServiceError } from './errors';
import { ensureMongoLauncherJar, launcherSourceHash, startMongoServer, type MongoServerHandle } from './mongo-server';
import { assertPortFree } from './ports';
import type { Supervisor } from './supervisor';

/** The launcher jar for the current sources in binDir, if it was built already (doctor). */
export async function findMongoLauncherJar(binDir: string): Promise<string | null> {
  const jar = join(binDir, `lore-mongo-launcher-${await launcherSourceHash()}.jar`);
  return existsSync(jar) ? jar : null;
}

function asChild(handle: MongoServerHandle): Child {
  let done = false;
  void handle.exited.then(() => (done = true));
  return {
    name: 'mongodb',
    pid: handle.pid,
    exited: handle.exited,
    alive: () => !done,
    tail: () => handle.stderrTail(),
    unref: () => handle.unref(),
    stop: async () => {
      await handle.stop();
      return handle.exited;
    },
  };
}

/**
 * Finds or builds the launcher jar, then runs the local MongoDB-compatible server under the
 * supervisor (restarted if it crashes), persisted to $LORE_DATA_DIR/mongo.mv.db.
 */
export async function startLocalMongo(config: Config, log: Log, supervisor: Supervisor): Promise<{ uri: string; version: string }> {
  const jarPath = await ensureMongoLauncherJar({ binDir: config.binDir, log: (m) => log.info(m) });
  const host = '127.0.0.1';
  const port = config.mongo.localPort;
  await assertPortFree(host, port, 'MongoDB-compatible server', 'LORE_MONGO_PORT');
  const out = log.child('mongodb');
  let handle!: MongoServerHandle;
  await supervisor.add({
    name: 'mongodb',
    graceMs: 15_000,
    start: async () => {
      try {
        handle = await startMongoServer({
          jarPath,
          host,
          port,
          dbFile: join(config.dataDir, 'mongo.mv.db'),
          ...(config.mongo.javaOptions ? { javaOptions: config.mongo.javaOptions } : {}),
          onStderr: (l) => out.debug(l),
        });
      } catch (err) {
        const msg = (err as Error).message;
        if (/already in use/.test(msg)) throw new LocalServiceError(msg, 'stop the process using it, or set LORE_MONGO_PORT to a free port');
        throw new LocalServiceError(msg);
      }
      return asChild(handle);
    },
  });
  return { uri: handle.uri, version: handle.version };
}
