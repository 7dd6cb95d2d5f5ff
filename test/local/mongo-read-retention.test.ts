/**
 * Long reads stay correct while writes churn, whatever the MVStore retention time.
 *
 * Regression test for `Chunk N not found` answered to a find under load: MVStore frees a chunk
 * whose pages are all superseded once the retention time has passed, even if a read that started
 * earlier is still walking the older version of the tree and has yet to load pages from that chunk.
 * The launcher pins the store version each command reads (MVStore.registerVersionUsage), so a chunk
 * is freed only after every command that may read it has returned.
 *
 * Real processes: the launcher with --retention-ms 0 (chunks reusable at once) and a 1 MB page
 * cache (scans load pages from the file), full-scan counts of a collection (countDocuments scans
 * without the collection lock) while writers update a few hot documents whose keys sort last and
 * insert into another collection, a commit after every write: by the time a scan reaches the hot
 * documents, the chunk its version points to was superseded and, unpinned, freed. Without the pin
 * this failed within the first one or two scans in each of three runs (`Chunk 44 not found`, …).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MongoClient } from 'mongodb';
import { ensureMongoLauncherJar, startMongoServer } from '../../src/local/mongo-server';

const DOCS = 20_000;
const HOT = 8;
const WRITERS = 6;
const BATCH = 5;
/** Writes churn for at least this long and until at least MIN_SCANS scans have completed. */
const DURATION_MS = 8_000;
const MIN_SCANS = 3;

test('full scans under write churn with --retention-ms 0 never hit a freed chunk', { timeout: 600_000 }, async () => {
  // LORE_RETENTION_TEST_JAR: run another launcher build (e.g. one without the fix, to see it fail)
  const jarPath = process.env.LORE_RETENTION_TEST_JAR || (await ensureMongoLauncherJar({ log: (m) => console.log(m) }));
  const dir = await mkdtemp(join(tmpdir(), 'lore-mongo-retention-'));
  const server = await startMongoServer({
    jarPath,
    port: 0,
    dbFile: join(dir, 'lore.mv.db'),
    extraArgs: ['--retention-ms', '0', '--cache-mb', '1'],
  });
  // one client (one connection) per reader and per writer: a command occupies its connection's
  // event loop thread in the server, and writers queued behind a scan would stop churning
  const clients: MongoClient[] = [];
  const connect = async () => {
    const client = new MongoClient(server.uri, { maxPoolSize: 1, serverSelectionTimeoutMS: 5_000 });
    clients.push(client);
    await client.connect();
    return client.db('lore');
  };
  try {
    const db = await connect();
    const body = 'x'.repeat(200);
    for (let i = 0; i < DOCS; i += 1_000) {
      await db.collection('nodes').insertMany(Array.from({ length: Math.min(1_000, DOCS - i) }, (_, j) => ({ _id: `n-${i + j}` as never, v: 0, body })));
    }
    // hot documents whose keys sort after every other one: a scan reaches their page last
    await db.collection('nodes').insertMany(Array.from({ length: HOT }, (_, j) => ({ _id: `zz-hot-${j}` as never, v: 0, body })));

    const errors: string[] = [];
    let scans = 0;
    let writes = 0;
    let readerDone = false;
    const deadline = Date.now() + DURATION_MS;
    const writer = async (w: number) => {
      const wdb = await connect();
      for (let k = w; !readerDone && errors.length === 0; k += WRITERS) {
        const batch = Array.from({ length: BATCH }, (_, b) => ({
          updateOne: {
            filter: { _id: `zz-hot-${(k + b) % HOT}` as never },
            update: { $inc: { v: 1 }, $set: { body: `${k}`.padEnd(200, 'y') } },
          },
        }));
        try {
          await wdb.collection('nodes').bulkWrite(batch, { ordered: false });
          await wdb.collection('events').insertOne({ w, k, body });
          writes += BATCH + 1;
        } catch (error) {
          errors.push(`write: ${(error as Error).message}`);
        }
      }
    };
    const reader = async () => {
      const nodes = (await connect()).collection('nodes');
      try {
        while ((scans < MIN_SCANS || Date.now() < deadline) && errors.length === 0) {
          try {
            // a full scan (no index on v), read without the collection lock
            assert.equal(await nodes.countDocuments({ v: { $gte: 0 } }), DOCS + HOT);
            scans++;
          } catch (error) {
            errors.push(`count: ${(error as Error).message}`);
          }
        }
      } finally {
        readerDone = true;
      }
    };
    const started = Date.now();
    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), reader()]);
    console.log(
      `${scans} full scans of ${DOCS + HOT} documents alongside ${writes} writes in ${Date.now() - started} ms; ` +
        `errors: ${errors.length}${errors.length ? ` (${errors[0]})` : ''}`,
    );
    assert.deepEqual(errors.slice(0, 3), [], `reads failed under write churn; server stderr:\n${server.stderrTail()}`);
    assert.ok(scans >= MIN_SCANS && writes > 0, `scans ${scans}, writes ${writes}`);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
