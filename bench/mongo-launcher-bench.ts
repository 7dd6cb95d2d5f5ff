import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BSON, MongoClient, ObjectId, type Collection, type Document } from 'mongodb';
import { ensureMongoLauncherJar, startMongoServer } from '../src/local/mongo-server';
import { cli, numOr } from './cli';

const USAGE = `Measurement of Lore's local MongoDB-compatible server (mongo-java-server launcher) at 100,000
documents of ~600 bytes. Not a test.

  node --import tsx bench/mongo-launcher-bench.ts [--docs 100000] [--json out.json] [-- launcher flags]
  node --import tsx bench/mongo-launcher-bench.ts --control   # kill -9 durability with and without group commit
  --jar PATH runs a given launcher jar (e.g. an older build, to compare) instead of building the current sources

Prints a markdown table: per query shape p50/p95/mean latency, documents returned, and whether the
launcher serves it from an index or by scanning the collection.`;

// Everything after '--' goes to the launcher (positionals, for parseArgs).
const { values: opts, positionals: launcherArgs } = cli(
  USAGE,
  { docs: { type: 'string' }, json: { type: 'string' }, jar: { type: 'string' }, control: { type: 'boolean', default: false } },
  { positionals: true },
);
const DOCS = numOr(opts.docs, 100_000);
const JSON_OUT = opts.json ?? '';
const JAR = opts.jar ?? '';
const launcherJar = () => (JAR ? Promise.resolve(JAR) : ensureMongoLauncherJar({ log: (m) => console.error(m) }));

const TENANTS = 10;
const SCOPES = 20;

function makeDoc(i: number): Document {
  const tenant = `tenant-${i % TENANTS}`;
  return {
    _id: new ObjectId(),
    tenant_id: tenant,
    scope: `scope-${Math.floor(i / TENANTS) % SCOPES}`,
    client_id: `client-${i}`,
    session_id: `session-${Math.floor(i / 10)}`, // ~10 documents per value, indexed
    session_copy: `session-${Math.floor(i / 10)}`, // same values, not indexed
    kind: ['observation', 'decision', 'outcome', 'note'][i % 4],
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 1000),
    seq: i, // indexed, monotonically increasing write sequence
    seq_copy: i, // same values, not indexed
    score: (i * 7919) % 1000,
    text: `memory ${i}: `.padEnd(420, 'lorem ipsum dolor sit amet consectetur adipiscing elit '),
  };
}

interface Row {
  shape: string;
  access: string;
  p50: number;
  p95: number;
  mean: number;
  n: number;
  returned: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function measure(shape: string, access: string, iterations: number, fn: (i: number) => Promise<number>): Promise<Row> {
  for (let i = 0; i < Math.min(5, iterations); i++) await fn(i); // warm-up
  const times: number[] = [];
  let returned = 0;
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    returned = await fn(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const row = {
    shape,
    access,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    n: iterations,
    returned,
  };
  console.error(`  ${shape}: p50 ${row.p50.toFixed(2)} ms, p95 ${row.p95.toFixed(2)} ms (${returned} docs)`);
  return row;
}

async function insertLatency(c: Collection, concurrency: number, total: number, offset: number) {
  const times: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < total; i = next++) {
        const doc = makeDoc(offset + i);
        const s = performance.now();
        await c.insertOne(doc);
        times.push(performance.now() - s);
      }
    }),
  );
  const elapsed = performance.now() - t0;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), perSecond: (total / elapsed) * 1000, total };
}

function rssMb(pid: number): number {
  try {
    return (
      Number(
        execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
          .toString()
          .trim(),
      ) / 1024
    );
  } catch {
    return NaN;
  }
}

async function control() {
  // kill -9 right after the last acknowledgement, with and without group commit
  const jarPath = await launcherJar();
  for (const flags of [[], ['--fsync'], ['--no-group-commit']]) {
    const dir = await mkdtemp(join(tmpdir(), 'lore-bench-control-'));
    const dbFile = join(dir, 'lore.mv.db');
    const server = await startMongoServer({ jarPath, port: 0, dbFile, extraArgs: flags });
    const client = new MongoClient(server.uri, { maxPoolSize: 8 });
    const c = client.db('bench').collection('events');
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < 3000; i = next++) await c.insertOne({ _id: i as never, body: 'x'.repeat(500) });
      }),
    );
    const ms = performance.now() - t0;
    process.kill(server.pid, 'SIGKILL');
    await server.exited;
    await client.close(true).catch(() => {});
    const again = await startMongoServer({ jarPath, port: 0, dbFile });
    const client2 = new MongoClient(again.uri);
    const kept = await client2.db('bench').collection('events').countDocuments();
    await client2.close();
    await again.stop();
    await rm(dir, { recursive: true, force: true });
    console.log(`launcher flags ${JSON.stringify(flags)}: 3000 acknowledged inserts (concurrency 8) in ${ms.toFixed(0)} ms; after kill -9: ${kept} of 3000 kept`);
  }
}

async function main() {
  if (opts.control) return control();
  const jarPath = await launcherJar();
  const dir = await mkdtemp(join(tmpdir(), 'lore-bench-'));
  const dbFile = join(dir, 'lore.mv.db');
  let server = await startMongoServer({ jarPath, port: 0, dbFile, extraArgs: launcherArgs });
  let client = new MongoClient(server.uri, { maxPoolSize: 16 });
  await client.connect();
  let c = client.db('bench').collection('memories');
  const results: Record<string, unknown> = { docs: DOCS, launcherArgs };
  try {
    await c.createIndex({ tenant_id: 1, scope: 1, client_id: 1 }, { unique: true });
    await c.createIndex({ session_id: 1 });
    await c.createIndex({ seq: 1 });
    await c.createIndex({ tenant_id: 1, created_at: 1 });

    const sample = makeDoc(12345);
    console.error(`document size: ${BSON.calculateObjectSize(sample)} bytes (BSON)`);
    results.docBytes = BSON.calculateObjectSize(sample);

    // bulk load (insertMany batches of 1,000)
    const t0 = performance.now();
    const batch = 1000;
    const loadTo = DOCS - 10_000; // the last 10,000 are inserted one by one below
    for (let i = 0; i < loadTo; i += batch) {
      await c.insertMany(
        Array.from({ length: Math.min(batch, loadTo - i) }, (_, k) => makeDoc(i + k)),
        { ordered: false },
      );
    }
    const loadMs = performance.now() - t0;
    console.error(`bulk load of ${loadTo} docs: ${(loadMs / 1000).toFixed(1)} s (${((loadTo / loadMs) * 1000).toFixed(0)} docs/s)`);
    results.bulkLoad = { docs: loadTo, seconds: loadMs / 1000 };

    // single inserts on top of the loaded collection
    const ins1 = await insertLatency(c, 1, 2000, loadTo);
    const ins8 = await insertLatency(c, 8, 8000, loadTo + 2000);
    console.error(`insertOne c=1: p50 ${ins1.p50.toFixed(2)} ms p95 ${ins1.p95.toFixed(2)} ms ${ins1.perSecond.toFixed(0)}/s`);
    console.error(`insertOne c=8: p50 ${ins8.p50.toFixed(2)} ms p95 ${ins8.p95.toFixed(2)} ms ${ins8.perSecond.toFixed(0)}/s`);
    results.insert = { c1: ins1, c8: ins8 };
    results.groupCommit = (await client.db('admin').command({ loreStatus: 1 })).groupCommit;
    const total = await c.estimatedDocumentCount();
    if (total !== DOCS) throw new Error(`expected ${DOCS} documents, found ${total}`);

    const ids = (await c.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id as ObjectId);
    const rnd = (n: number) => Math.floor(Math.random() * n);
    const rows: Row[] = [];
    const q = async (shape: string, access: string, iterations: number, fn: (i: number) => Promise<number>) => rows.push(await measure(shape, access, iterations, fn));

    await q('findOne by _id', 'index (_id)', 300, async () => ((await c.findOne({ _id: ids[rnd(ids.length)]! })) ? 1 : 0));
    await q('findOne by unique compound (tenant_id, scope, client_id)', 'index (unique compound, exact)', 300, async () => {
      const i = rnd(DOCS);
      const d = await c.findOne({ tenant_id: `tenant-${i % TENANTS}`, scope: `scope-${Math.floor(i / TENANTS) % SCOPES}`, client_id: `client-${i}` });
      return d ? 1 : 0;
    });
    await q('find _id $in [10 ids]', 'index (_id)', 200, async () => {
      const some = Array.from({ length: 10 }, () => ids[rnd(ids.length)]!);
      return (await c.find({ _id: { $in: some } }).toArray()).length;
    });
    await q('find session_id = v (non-unique index, ~10 docs)', 'index (secondary)', 200, async () => (await c.find({ session_id: `session-${rnd(DOCS / 10)}` }).toArray()).length);
    await q('find session_copy = v (no index, ~10 docs)', 'scan', 20, async () => (await c.find({ session_copy: `session-${rnd(DOCS / 10)}` }).toArray()).length);
    await q(
      'find seq > X sort seq limit 100 (X = last 100, catch-up)',
      'index (secondary range, ordered)',
      200,
      async () =>
        (
          await c
            .find({ seq: { $gt: DOCS - 101 } })
            .sort({ seq: 1 })
            .limit(100)
            .toArray()
        ).length,
    );
    await q(
      'find seq > X sort seq limit 100 (X random)',
      'index (secondary range, ordered)',
      200,
      async () =>
        (
          await c
            .find({ seq: { $gt: rnd(DOCS - 200) } })
            .sort({ seq: 1 })
            .limit(100)
            .toArray()
        ).length,
    );
    await q(
      'find seq > X limit 100 (no sort, X random)',
      'index (secondary range)',
      200,
      async () =>
        (
          await c
            .find({ seq: { $gt: rnd(DOCS - 200) } })
            .limit(100)
            .toArray()
        ).length,
    );
    await q(
      'find seq_copy > X sort seq_copy limit 100 (no index)',
      'scan + sort',
      20,
      async () =>
        (
          await c
            .find({ seq_copy: { $gt: rnd(DOCS - 200) } })
            .sort({ seq_copy: 1 })
            .limit(100)
            .toArray()
        ).length,
    );
    await q(
      'find tenant_id = t sort created_at desc limit 20',
      'index (secondary compound, ordered)',
      200,
      async () =>
        (
          await c
            .find({ tenant_id: `tenant-${rnd(TENANTS)}` })
            .sort({ created_at: -1 })
            .limit(20)
            .toArray()
        ).length,
    );
    await q('find {} sort seq desc limit 20', 'index (secondary, ordered walk)', 200, async () => (await c.find({}).sort({ seq: -1 }).limit(20).toArray()).length);
    await q('find {} sort score desc limit 20 (no index)', 'scan + sort', 20, async () => (await c.find({}).sort({ score: -1 }).limit(20).toArray()).length);
    await q(
      'find tenant_id, scope (prefix of unique compound) limit 20',
      'secondary (tenant_id prefix) + filter',
      50,
      async () =>
        (
          await c
            .find({ tenant_id: `tenant-${rnd(TENANTS)}`, scope: `scope-${rnd(SCOPES)}` })
            .limit(20)
            .toArray()
        ).length,
    );
    await q('find kind = v limit 20 (no index, early stop)', 'scan (stops at limit)', 50, async () => (await c.find({ kind: 'outcome' }).limit(20).toArray()).length);
    await q('countDocuments({})', 'collection size (O(1))', 100, async () => await c.countDocuments({}));
    await q('estimatedDocumentCount()', 'collection size (O(1))', 100, async () => await c.estimatedDocumentCount());
    await q('countDocuments({session_id: v}) (~10)', 'index (secondary)', 200, async () => await c.countDocuments({ session_id: `session-${rnd(DOCS / 10)}` }));
    await q('countDocuments({seq: {$gt: N-1000}})', 'index (secondary range)', 100, async () => await c.countDocuments({ seq: { $gt: DOCS - 1001 } }));
    await q('countDocuments({tenant_id: t}) (10% of docs)', 'index (secondary prefix)', 20, async () => await c.countDocuments({ tenant_id: `tenant-${rnd(TENANTS)}` }));
    await q('countDocuments({kind: v}) (no index)', 'scan', 20, async () => await c.countDocuments({ kind: 'outcome' }));
    await q(
      'aggregate $match(session_id) + $group',
      'scan (aggregation never uses indexes)',
      20,
      async () => (await c.aggregate([{ $match: { session_id: `session-${rnd(DOCS / 10)}` } }, { $group: { _id: '$kind', n: { $sum: 1 } } }]).toArray()).length,
    );
    await q(
      'updateOne by _id ($set)',
      'index (_id) + commit',
      300,
      async () => (await c.updateOne({ _id: ids[rnd(ids.length)]! }, { $set: { touched: Date.now() } })).modifiedCount,
    );
    await q('findOneAndUpdate unique compound ($inc)', 'index (unique compound) + commit', 300, async () => {
      const i = rnd(DOCS);
      const d = await c.findOneAndUpdate(
        { tenant_id: `tenant-${i % TENANTS}`, scope: `scope-${Math.floor(i / TENANTS) % SCOPES}`, client_id: `client-${i}` },
        { $inc: { hits: 1 } },
      );
      return d ? 1 : 0;
    });
    await q(
      'updateOne by session_id ($set, non-unique index)',
      'index (secondary) + commit',
      200,
      async () => (await c.updateOne({ session_id: `session-${rnd(DOCS / 10)}` }, { $set: { touched: Date.now() } })).modifiedCount,
    );
    results.queries = rows;

    results.serverRssMb = rssMb(server.pid);
    results.dbFileMb = (await stat(dbFile)).size / 1e6;

    // restart time at 100k documents
    await client.close();
    await server.stop();
    const r0 = performance.now();
    server = await startMongoServer({ jarPath, port: 0, dbFile, extraArgs: launcherArgs });
    results.restartMs = performance.now() - r0;
    client = new MongoClient(server.uri);
    c = client.db('bench').collection('memories');
    const f0 = performance.now();
    await c.findOne({ _id: ids[0]! });
    results.firstQueryAfterRestartMs = performance.now() - f0;
    results.dbFileMbAfterRestart = (await stat(dbFile)).size / 1e6;

    // report
    const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
    console.log(`\n${DOCS} documents of ~${results.docBytes} bytes; launcher flags: ${JSON.stringify(launcherArgs)}\n`);
    console.log(`| operation | p50 ms | p95 ms | throughput |`);
    console.log(`|---|---|---|---|`);
    console.log(`| insertOne, concurrency 1 (${ins1.total}) | ${fmt(ins1.p50)} | ${fmt(ins1.p95)} | ${ins1.perSecond.toFixed(0)}/s |`);
    console.log(`| insertOne, concurrency 8 (${ins8.total}) | ${fmt(ins8.p50)} | ${fmt(ins8.p95)} | ${ins8.perSecond.toFixed(0)}/s |`);
    console.log(`| insertMany bulk load, batches of 1000 (${loadTo}) | | | ${((loadTo / loadMs) * 1000).toFixed(0)} docs/s |`);
    console.log(`\ngroup commit: ${JSON.stringify(results.groupCommit)}\n`);
    console.log(`| query shape | served by | p50 ms | p95 ms | mean ms | docs returned | runs |`);
    console.log(`|---|---|---|---|---|---|---|`);
    for (const r of rows) {
      console.log(`| ${r.shape} | ${r.access} | ${fmt(r.p50)} | ${fmt(r.p95)} | ${fmt(r.mean)} | ${r.returned} | ${r.n} |`);
    }
    console.log(
      `\nserver RSS ${Number(results.serverRssMb).toFixed(0)} MB; db file ${Number(results.dbFileMb).toFixed(0)} MB ` +
        `(${Number(results.dbFileMbAfterRestart).toFixed(0)} MB after clean close); restart to ready ${Number(results.restartMs).toFixed(0)} ms; ` +
        `first query after restart ${Number(results.firstQueryAfterRestartMs).toFixed(1)} ms`,
    );
    if (JSON_OUT) await import('node:fs/promises').then((fs) => fs.writeFile(JSON_OUT, JSON.stringify(results, null, 2)));
  } finally {
    await client.close().catch(() => {});
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
