/**
 * Every acknowledged write survives kill -9 of the server process.
 * Real processes: start the launcher, 3,000 acknowledged inserts at concurrency 8, SIGKILL the Java
 * process right after the last acknowledgement, restart on the same file, all 3,000 must be there.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MongoClient } from 'mongodb';
import { ensureMongoLauncherJar, startMongoServer } from '../../src/local/mongo-server';

const TOTAL = 3_000;
const CONCURRENCY = 8;

test('acknowledged inserts survive kill -9 of the server', { timeout: 600_000 }, async () => {
  const jarPath = await ensureMongoLauncherJar({ log: (m) => console.log(m) });
  const dir = await mkdtemp(join(tmpdir(), 'lore-mongo-durability-'));
  const dbFile = join(dir, 'lore.mv.db');
  try {
    const server = await startMongoServer({ jarPath, port: 0, dbFile });
    const client = new MongoClient(server.uri, { maxPoolSize: CONCURRENCY, serverSelectionTimeoutMS: 5_000 });
    await client.connect();
    const events = client.db('lore').collection('events');
    await events.createIndex({ seq: 1 });

    let next = 0;
    let acknowledged = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < TOTAL; i = next++) {
          await events.insertOne({ _id: `doc-${i}` as never, seq: i, body: 'x'.repeat(500) });
          acknowledged++;
        }
      }),
    );
    // the very moment the last acknowledgement arrived: no grace period for background flushes
    process.kill(server.pid, 'SIGKILL');
    const elapsed = performance.now() - started;
    const exit = await server.exited;
    assert.equal(exit.signal, 'SIGKILL');
    await client.close(true).catch(() => {});
    assert.equal(acknowledged, TOTAL);
    console.log(`${TOTAL} acknowledged inserts at concurrency ${CONCURRENCY} in ${elapsed.toFixed(0)} ms, then kill -9`);

    const restarted = await startMongoServer({ jarPath, port: 0, dbFile });
    const client2 = new MongoClient(restarted.uri, { serverSelectionTimeoutMS: 5_000 });
    try {
      await client2.connect();
      const again = client2.db('lore').collection('events');
      const count = await again.countDocuments();
      const ids = new Set((await again.find({}, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)));
      const missing = Array.from({ length: TOTAL }, (_, i) => `doc-${i}`).filter((id) => !ids.has(id));
      console.log(`after restart: ${count} of ${TOTAL} present`);
      assert.equal(missing.length, 0, `missing after kill -9: ${missing.length} (e.g. ${missing.slice(0, 5).join(', ')})`);
      assert.equal(count, TOTAL);
      // the secondary index was committed with the documents
      assert.equal((await again.find({ seq: { $gte: TOTAL - 10 } }).toArray()).length, 10);
    } finally {
      await client2.close();
      await restarted.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
