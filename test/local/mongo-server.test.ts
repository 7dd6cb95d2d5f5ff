import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { BSON, Long, MongoClient, MongoServerError, type Collection, type Document, type Filter, type Sort } from 'mongodb';
import { ensureMongoLauncherJar, startMongoServer, type MongoServerHandle } from '../../src/local/mongo-server';

describe('local MongoDB-compatible server (mongo-java-server launcher)', { timeout: 600_000 }, () => {
  let jarPath: string;
  let dir: string;
  let dbFile: string;
  let server: MongoServerHandle;
  let client: MongoClient;

  /** Stops the server and starts it again on the same file (documents come back as stored bytes). */
  async function restartServer(): Promise<void> {
    await client.close();
    await server.stop();
    server = await startMongoServer({ jarPath, port: 0, dbFile });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5_000 });
    await client.connect();
  }

  before(async () => {
    jarPath = await ensureMongoLauncherJar({ log: (m) => console.log(m) });
    dir = await mkdtemp(join(tmpdir(), 'lore-mongo-test-'));
    dbFile = join(dir, 'lore.mv.db');
    server = await startMongoServer({ jarPath, port: 0, dbFile });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5_000 });
    await client.connect();
  });

  after(async () => {
    await client?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('reports a version the driver accepts', async () => {
    assert.equal(server.version, '7.0.0');
    const info = await client.db('admin').command({ buildInfo: 1 });
    assert.equal(info.version, '7.0.0');
    const hello = await client.db('admin').command({ hello: 1 });
    assert.equal(hello.isWritablePrimary, true);
    assert.ok(hello.maxWireVersion >= 9);
  });

  test('insert, find, update, deleteMany', async () => {
    const c = client.db('lore').collection('crud');
    const r = await c.insertMany([
      { _id: 'a' as never, n: 1, tag: 'x' },
      { _id: 'b' as never, n: 2, tag: 'y' },
      { _id: 'c' as never, n: 3, tag: 'x' },
    ]);
    assert.equal(r.insertedCount, 3);
    await c.insertOne({ n: 4, tag: 'z' });
    assert.deepEqual(await c.findOne({ _id: 'b' as never }), { _id: 'b', n: 2, tag: 'y' });
    const u = await c.updateMany({ tag: 'x' }, { $set: { seen: true }, $inc: { n: 10 } });
    assert.equal(u.matchedCount, 2);
    assert.equal(u.modifiedCount, 2);
    assert.deepEqual(
      (await c.find({ seen: true }).sort({ n: 1 }).toArray()).map((d) => d.n),
      [11, 13],
    );
    const d = await c.deleteMany({ n: { $gt: 3 } });
    assert.equal(d.deletedCount, 3);
    assert.equal(await c.countDocuments({}), 1);
  });

  test('findOneAndUpdate with upsert, $inc and $setOnInsert', async () => {
    const c = client.db('lore').collection('counters');
    const first = await c.findOneAndUpdate({ _id: 'seq' as never }, { $inc: { value: 1 }, $setOnInsert: { created: 'now' } }, { upsert: true, returnDocument: 'after' });
    assert.deepEqual(first, { _id: 'seq', value: 1, created: 'now' });
    const second = await c.findOneAndUpdate({ _id: 'seq' as never }, { $inc: { value: 1 }, $setOnInsert: { created: 'later' } }, { upsert: true, returnDocument: 'after' });
    assert.deepEqual(second, { _id: 'seq', value: 2, created: 'now' });
    const before = await c.findOneAndUpdate({ _id: 'seq' as never }, { $inc: { value: 5 } }, { returnDocument: 'before' });
    assert.equal(before?.value, 2);
    assert.equal((await c.findOne({ _id: 'seq' as never }))?.value, 7);
  });

  test('lookups by string _id and _id $in: unknown ids left out, duplicates once, _id order', async () => {
    const c = client.db('lore').collection<{ _id: string | number; n: number; tag: string }>('by_id');
    await c.insertMany(['k3', 'k1', 'k5', 'k2', 'k4'].map((k, i) => ({ _id: k, n: i, tag: i % 2 ? 'odd' : 'even' })));
    await c.insertOne({ _id: 7, n: 70, tag: 'number' });
    const ids = (docs: { _id: string | number }[]) => docs.map((d) => d._id);

    assert.deepEqual(await c.findOne({ _id: 'k2' }), { _id: 'k2', n: 3, tag: 'odd' });
    assert.deepEqual(await c.find({ _id: 'nope' }).toArray(), []);
    // $in: unknown ids left out, duplicates once, in _id order (as upstream's unique index serves it)
    assert.deepEqual(ids(await c.find({ _id: { $in: ['k4', 'nope', 'k1', 'k4'] } }).toArray()), ['k1', 'k4']);
    assert.deepEqual(await c.find({ _id: { $in: [] } }).toArray(), []);
    assert.deepEqual(await c.find({ _id: { $in: ['k1', 'k2'] } }, { projection: { tag: 1 } }).toArray(), [
      { _id: 'k1', tag: 'odd' },
      { _id: 'k2', tag: 'odd' },
    ]);
    assert.deepEqual(
      ids(
        await c
          .find({ _id: { $in: ['k1', 'k2', 'k3', 'k5'] } })
          .sort({ n: -1 })
          .skip(1)
          .limit(2)
          .toArray(),
      ),
      ['k5', 'k1'],
    );
    // _id beside other conditions (the launcher plans these as _id lookups; here only the answers are checked)
    assert.deepEqual(await c.find({ _id: 'k1', n: 999 }).toArray(), []);
    assert.deepEqual(await c.find({ _id: 'k1', n: { $gte: 0 } }).toArray(), [{ _id: 'k1', n: 1, tag: 'odd' }]);
    assert.deepEqual(ids(await c.find({ _id: { $in: ['k1', 'k2', 'k3', 'nope'] }, tag: 'odd' }).toArray()).sort(), ['k1', 'k2']);
    assert.deepEqual(ids(await c.find({ _id: { $eq: 7 }, tag: 'number' }).toArray()), [7]);
    assert.deepEqual(ids(await c.find({ _id: 7.0, n: 70 }).toArray()), [7], 'a double finds the int _id, as a scan does');
    // an upsert whose extra condition fails on an existing _id fails as a duplicate key (access folds rely on it)
    await c.updateOne({ _id: 'k3', marks: { $ne: 'm1' } }, { $push: { marks: 'm1' } as never }, { upsert: true });
    await assert.rejects(
      c.updateOne({ _id: 'k3', marks: { $ne: 'm1' } }, { $push: { marks: 'm1' } as never }, { upsert: true }),
      (err: unknown) => err instanceof MongoServerError && err.code === 11000,
    );
    assert.deepEqual(((await c.findOne({ _id: 'k3' })) as Document | null)?.marks, ['m1']);
    // other shapes keep upstream's path: other operators, other _id types
    assert.deepEqual(
      ids(
        await c
          .find({ _id: { $gt: 'k3' } })
          .sort({ _id: 1 })
          .toArray(),
      ),
      ['k4', 'k5'],
    );
    assert.deepEqual(ids(await c.find({ _id: { $in: ['k5', 7] } }).toArray()).sort(), [7, 'k5'].sort());
    assert.equal((await c.findOne({ _id: 7 }))?.n, 70);

    // writes addressed by string _id
    assert.equal((await c.updateOne({ _id: 'k2' }, { $inc: { n: 10 } })).modifiedCount, 1);
    assert.equal((await c.updateOne({ _id: 'k9' }, { $inc: { n: 1 } }, { upsert: true })).upsertedCount, 1);
    assert.equal((await c.updateMany({ _id: { $in: ['k2', 'k9', 'nope'] } }, { $inc: { n: 100 } })).modifiedCount, 2);
    assert.deepEqual(await c.find({ _id: { $in: ['k2', 'k9'] } }, { projection: { n: 1 } }).toArray(), [
      { _id: 'k2', n: 113 },
      { _id: 'k9', n: 101 },
    ]);
    assert.equal((await c.deleteOne({ _id: 'k5' })).deletedCount, 1);
    assert.deepEqual(await c.find({ _id: 'k5' }).toArray(), []);
    assert.equal(await c.countDocuments({}), 6);
  });

  test('bulkWrite', async () => {
    const c = client.db('lore').collection('bulk');
    const r = await c.bulkWrite([
      { insertOne: { document: { _id: 1 as never, v: 'a' } } },
      { insertOne: { document: { _id: 2 as never, v: 'b' } } },
      { updateOne: { filter: { _id: 1 as never }, update: { $set: { v: 'A' } } } },
      { updateOne: { filter: { _id: 3 as never }, update: { $set: { v: 'C' } }, upsert: true } },
      { replaceOne: { filter: { _id: 2 as never }, replacement: { v: 'B' } } },
      { deleteOne: { filter: { _id: 2 as never } } },
    ]);
    assert.equal(r.insertedCount, 2);
    assert.equal(r.modifiedCount, 2);
    assert.equal(r.upsertedCount, 1);
    assert.equal(r.deletedCount, 1);
    assert.deepEqual(await c.find({}).sort({ _id: 1 }).toArray(), [
      { _id: 1, v: 'A' },
      { _id: 3, v: 'C' },
    ]);
  });

  test('unique index: duplicate key error surfaces as code 11000', async () => {
    const c = client.db('lore').collection('uniq');
    await c.createIndex({ tenant_id: 1, scope: 1, client_id: 1 }, { unique: true, name: 'tenant_scope_client' });
    await c.insertOne({ tenant_id: 't', scope: 's', client_id: 'c1' });
    await assert.rejects(c.insertOne({ tenant_id: 't', scope: 's', client_id: 'c1' }), (e: unknown) => e instanceof MongoServerError && e.code === 11000);
    // unordered bulk insert: the good documents go in, the duplicate is reported
    await assert.rejects(
      c.insertMany(
        [
          { tenant_id: 't', scope: 's', client_id: 'c2' },
          { tenant_id: 't', scope: 's', client_id: 'c1' },
          { tenant_id: 't', scope: 's', client_id: 'c3' },
        ],
        { ordered: false },
      ),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
    assert.equal(await c.countDocuments({}), 3);
    // duplicate via upsert / update is rejected too
    await assert.rejects(c.updateOne({ client_id: 'c2' }, { $set: { client_id: 'c3' } }), (e: unknown) => e instanceof MongoServerError && e.code === 11000);
    const found = await c.findOne({ tenant_id: 't', scope: 's', client_id: 'c3' });
    assert.equal(found?.client_id, 'c3');
  });

  test('compound and secondary indexes, $in, sort+limit, countDocuments', async () => {
    const c: Collection = client.db('lore').collection('events');
    await c.createIndex({ tenant_id: 1, seq: 1 });
    await c.createIndex({ kind: 1 });
    await c.createIndex({ seq: 1 });
    const docs = Array.from({ length: 200 }, (_, i) => ({
      _id: `e${String(i).padStart(3, '0')}` as never,
      tenant_id: i % 2 === 0 ? 'even' : 'odd',
      kind: `k${i % 10}`,
      seq: i,
      tags: [`t${i % 3}`, 'all'],
    }));
    await c.insertMany(docs);
    const indexes = (await c.listIndexes().toArray()).map((i) => i.name).sort();
    assert.deepEqual(indexes, ['_id_', 'kind_1', 'seq_1', 'tenant_id_1_seq_1']);

    assert.deepEqual((await c.find({ _id: { $in: ['e001', 'e150', 'nope'] as never[] } }).toArray()).map((d) => d._id).sort(), ['e001', 'e150']);
    assert.equal((await c.find({ kind: 'k3' }).toArray()).length, 20);
    assert.deepEqual(
      (await c.find({ kind: { $in: ['k1', 'k2'] } }).toArray())
        .map((d) => d.seq)
        .sort((a, b) => a - b)
        .slice(0, 4),
      [1, 2, 11, 12],
    );
    // range + sort + limit on an indexed number (catch-up query)
    assert.deepEqual(
      (
        await c
          .find({ seq: { $gt: 150 } })
          .sort({ seq: 1 })
          .limit(5)
          .toArray()
      ).map((d) => d.seq),
      [151, 152, 153, 154, 155],
    );
    assert.deepEqual(
      (await c.find({ seq: { $gte: 10, $lt: 14 } }).toArray()).map((d) => d.seq).sort((a, b) => a - b),
      [10, 11, 12, 13],
    );
    // equality prefix + range on a compound index, descending
    assert.deepEqual(
      (
        await c
          .find({ tenant_id: 'odd', seq: { $lt: 20 } })
          .sort({ seq: -1 })
          .limit(3)
          .toArray()
      ).map((d) => d.seq),
      [19, 17, 15],
    );
    // sort+limit without a filter, both directions
    assert.deepEqual(
      (await c.find({}).sort({ seq: -1 }).limit(2).toArray()).map((d) => d.seq),
      [199, 198],
    );
    assert.deepEqual(
      (await c.find({}).sort({ seq: 1 }).skip(3).limit(2).toArray()).map((d) => d.seq),
      [3, 4],
    );
    // filter on a non-indexed field still works (scan)
    assert.equal(await c.countDocuments({ tags: 't1' }), 67);
    assert.equal(await c.countDocuments({ kind: 'k0', seq: { $gte: 100 } }), 10);
    assert.equal(await c.countDocuments({ seq: { $gte: 100 } }, { skip: 10, limit: 5 }), 5);
    assert.equal(await c.countDocuments({ kind: 'none' }), 0);
    assert.equal(await c.countDocuments(), 200);
    assert.equal(await c.estimatedDocumentCount(), 200);

    // index maintenance on update and delete
    await c.updateOne({ _id: 'e005' as never }, { $set: { kind: 'moved', seq: 1005 } });
    assert.equal((await c.find({ kind: 'k5' }).toArray()).length, 19);
    assert.equal((await c.find({ kind: 'moved' }).toArray())[0]?._id, 'e005');
    assert.deepEqual(
      (await c.find({ seq: { $gt: 1000 } }).toArray()).map((d) => d._id),
      ['e005'],
    );
    await c.deleteMany({ kind: 'k7' });
    assert.equal(await c.countDocuments({ kind: 'k7' }), 0);
    assert.equal(await c.countDocuments({ tenant_id: 'odd' }), 80);
    // equalities on an index's leading fields are counted from the index alone: same answers
    assert.equal(await c.countDocuments({ kind: 'k5' }), 19);
    assert.equal(await c.countDocuments({ kind: 'moved' }), 1);
    assert.equal(await c.countDocuments({ tenant_id: 'odd', seq: 19 }), 1);
    assert.equal(await c.countDocuments({ tenant_id: 'odd' }, { skip: 70, limit: 5 }), 5);
    assert.equal(await c.countDocuments({ tenant_id: 'odd' }, { skip: 78 }), 2);
    assert.equal(await c.countDocuments({ tenant_id: 'odd' }, { skip: 90 }), 0);
  });

  test('multikey secondary index (array field)', async () => {
    const c = client.db('lore').collection('multi');
    await c.createIndex({ tags: 1 });
    await c.insertMany([
      { _id: 1 as never, tags: ['a', 'b'], v: [1, 10] },
      { _id: 2 as never, tags: ['b', 'c'] },
      { _id: 3 as never, tags: 'a' },
    ]);
    assert.deepEqual((await c.find({ tags: 'a' }).toArray()).map((d) => d._id).sort(), [1, 3]);
    assert.deepEqual((await c.find({ tags: { $in: ['a', 'b'] } }).toArray()).map((d) => d._id).sort(), [1, 2, 3]);
    assert.deepEqual((await c.find({ tags: { $gte: 'b' } }).toArray()).map((d) => d._id).sort(), [1, 2]);
    assert.equal(await c.countDocuments({ tags: 'b' }), 2, 'a multikey index counts documents, not entries');
  });

  test('indexed query plans return what a full scan returns (randomized)', async () => {
    // the launcher's own query planner (secondary indexes, ranges, index-ordered sorts) against
    // upstream's full scan on an identical collection without indexes
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!;
    const docs: Document[] = Array.from({ length: 400 }, (_, i) => {
      const d: Document = { _id: i, a: pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 2.5, new Long(4)]), b: `x${i % 5}` };
      if (random() < 0.8) d.c = Math.floor(random() * 1000) / 10;
      if (random() < 0.3) d.tags = [pick(['p', 'q', 'r']), pick(['r', 's'])];
      else if (random() < 0.5) d.tags = pick(['p', 's', 't']);
      d.d = new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 100) * 3_600_000);
      return d;
    });
    const indexed = client.db('lore').collection('planner_indexed');
    const plain = client.db('lore').collection('planner_plain');
    await indexed.createIndex({ a: 1 });
    await indexed.createIndex({ b: 1, a: 1 });
    await indexed.createIndex({ c: 1 });
    await indexed.createIndex({ tags: 1 });
    await indexed.createIndex({ d: -1 });
    await indexed.insertMany(docs.map((d) => ({ ...d })));
    await plain.insertMany(docs.map((d) => ({ ...d })));
    // some updates and deletes so index maintenance is exercised too
    for (const target of [indexed, plain]) {
      await target.updateMany({ b: 'x3' }, { $inc: { a: 1 } });
      await target.updateMany({ c: { $gt: 90 } }, { $unset: { c: '' } });
      await target.deleteMany({ a: 7 });
    }

    const conditions: (() => [string, unknown])[] = [
      () => ['a', pick([1, 3, 4, 2.5, 10])],
      () => ['a', { $in: [pick([0, 1, 2]), pick([4, 5, 2.5]), 9] }],
      () => ['a', { [pick(['$gt', '$gte'])]: pick([2, 4, 6]) }],
      () => ['a', { [pick(['$lt', '$lte'])]: pick([2, 4, 6]), [pick(['$gt', '$gte'])]: pick([0, 1]) }],
      () => ['b', pick(['x0', 'x1', 'x4', 'none'])],
      () => ['b', { $in: ['x1', 'x2'] }],
      () => ['c', { [pick(['$gt', '$lt'])]: pick([10, 50, 80]) }],
      () => ['c', { $gte: 20, $lte: 40 }],
      () => ['tags', pick(['p', 'r', 's', 't'])],
      () => ['tags', { $in: ['q', 't'] }],
      () => ['tags', { $gte: 'r' }],
      () => ['d', { $gt: new Date(Date.UTC(2026, 0, 3)) }],
      () => ['_id', { $lt: 50 }],
      () => ['_id', pick([3, 50, 399, 1000, 2.5])],
      () => ['_id', { $in: [pick([1, 2, 3]), pick([100, 200.0, new Long(300)]), 77] }],
      () => ['_id', { $eq: pick([5, 6, 'x']) }],
    ];
    const sorts: (Sort | undefined)[] = [undefined, { a: 1, _id: 1 }, { a: -1, _id: -1 }, { c: 1, _id: 1 }, { d: -1, _id: -1 }, { b: 1, a: 1, _id: 1 }, { a: 1, _id: -1 }];
    let checked = 0;
    for (let round = 0; round < 150; round++) {
      const filter: Filter<Document> = {};
      const n = Math.floor(random() * 3);
      for (let i = 0; i < n; i++) {
        const [field, condition] = pick(conditions)();
        filter[field] = condition;
      }
      const sort = pick(sorts);
      const skip = sort && random() < 0.3 ? Math.floor(random() * 5) : 0;
      const limit = sort && random() < 0.6 ? 1 + Math.floor(random() * 15) : 0;
      const run = async (target: Collection, query: Filter<Document>) => {
        let cursor = target.find(query);
        if (sort) cursor = cursor.sort(sort);
        if (skip) cursor = cursor.skip(skip);
        if (limit) cursor = cursor.limit(limit);
        const ids = (await cursor.toArray()).map((d) => d._id as unknown as number);
        return sort ? ids : ids.sort((x, y) => x - y);
      };
      // The reference is a full scan: a top-level $and is not analysed by any plan (not even _id's).
      const scan: Filter<Document> = n > 0 ? { $and: [filter] } : {};
      const expected = await run(plain, scan);
      const actual = await run(indexed, filter);
      assert.deepEqual(actual, expected, `filter ${JSON.stringify(filter)} sort ${JSON.stringify(sort)} skip ${skip} limit ${limit}`);
      assert.equal(await indexed.countDocuments(filter), await plain.countDocuments(scan), `count ${JSON.stringify(filter)}`);
      checked++;
    }
    assert.equal(checked, 150);
  });

  test('aggregate with $match and $group', async () => {
    const c = client.db('lore').collection('events');
    const rows = await c
      .aggregate<{ _id: string; n: number; total: number }>([
        { $match: { seq: { $lt: 100 } } },
        { $group: { _id: '$tenant_id', n: { $sum: 1 }, total: { $sum: '$seq' } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    // after the previous test: e005 moved to seq 1005 and k7 (seq 7, 17, …, 97) deleted
    assert.deepEqual(rows, [
      { _id: 'even', n: 50, total: 2450 },
      { _id: 'odd', n: 39, total: 2500 - 5 - (7 + 17 + 27 + 37 + 47 + 57 + 67 + 77 + 87 + 97) },
    ]);
  });

  test('collStats size is the BSON size of the documents through inserts, updates and deletes', async () => {
    const c = client.db('lore').collection<{ _id: number; k: string; n?: number; tags?: string[] }>('sized');
    const size = async () => (await client.db('lore').command({ collStats: 'sized' })).size as number;
    const expected = async () => (await c.find({}).toArray()).reduce((sum, d) => sum + BSON.calculateObjectSize(d), 0);
    await c.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, k: `v${i}` })));
    assert.equal(await size(), await expected());
    await c.updateMany({ _id: { $lt: 10 } }, { $set: { n: 1, tags: ['a', 'bb', 'ccc'] } });
    await c.replaceOne({ _id: 15 }, { k: 'x'.repeat(500) });
    await c.updateOne({ _id: 3 }, { $unset: { tags: '' } });
    assert.equal(await size(), await expected());
    await c.deleteMany({ _id: { $gte: 12 } });
    assert.equal(await size(), await expected());
    assert.ok((await size()) > 0);
  });

  test('data persists across a clean stop/start', async () => {
    const c = client.db('lore').collection('persist');
    await c.createIndex({ k: 1 });
    await c.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i as never, k: `v${i % 5}` })));
    // Every kind of update stores the document's last version (upstream changes a document in place).
    const edited = client.db('lore').collection<{ _id: number; n: number; k?: string; note?: string; list?: number[] }>('edited');
    await edited.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, n: 0, k: `v${i}` })));
    for (let round = 1; round <= 5; round++) await edited.updateMany({ _id: { $lt: 10 } }, { $inc: { n: 1 }, $push: { list: round } });
    await edited.updateOne({ _id: 10 }, { $set: { note: 'set' }, $unset: { k: '' } });
    await edited.replaceOne({ _id: 11 }, { n: 11, note: 'replaced' });
    await edited.findOneAndUpdate({ _id: 12 }, { $set: { n: 12 } });
    await edited.findOneAndUpdate({ _id: 99 }, { $set: { n: 99 } }, { upsert: true });
    await edited.deleteOne({ _id: 13 });
    const before = await edited.find({}).sort({ _id: 1 }).toArray();
    await client.close();
    await server.stop();
    const exit = await server.exited;
    assert.equal(exit.code, 0, `clean exit expected, got ${JSON.stringify(exit)}\n${server.stderrTail()}`);

    server = await startMongoServer({ jarPath, port: 0, dbFile });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5_000 });
    await client.connect();
    const again = client.db('lore').collection('persist');
    assert.equal(await again.countDocuments(), 50);
    const afterRestart = await client.db('lore').collection('edited').find({}).sort({ _id: 1 }).toArray();
    assert.deepEqual(afterRestart, before);
    assert.deepEqual(afterRestart[0], { _id: 0, n: 5, k: 'v0', list: [1, 2, 3, 4, 5] });
    assert.deepEqual(afterRestart[10], { _id: 10, n: 0, note: 'set' });
    assert.deepEqual(afterRestart[11], { _id: 11, n: 11, note: 'replaced' });
    assert.equal(afterRestart.length, 30);
    assert.equal((await again.find({ k: 'v3' }).toArray()).length, 10);
    assert.equal(
      (
        await client
          .db('lore')
          .collection('counters')
          .findOne({ _id: 'seq' as never })
      )?.value,
      7,
    );
    const indexes = (await client.db('lore').collection('uniq').listIndexes().toArray()).map((i) => i.name).sort();
    assert.deepEqual(indexes, ['_id_', 'tenant_scope_client']);
    await assert.rejects(
      client.db('lore').collection('uniq').insertOne({ tenant_id: 't', scope: 's', client_id: 'c1' }),
      (e: unknown) => e instanceof MongoServerError && e.code === 11000,
    );
  });

  test('keys of every value type are stored and found again through their indexes after a restart', async () => {
    // Keys made only of strings, 32/64-bit integers, doubles, booleans and null are written by the
    // launcher's own encoder (KeyBson); every other type by upstream's. Both must read back as the
    // same values in the same order, through _id, unique and secondary (compound) indexes.
    const values: unknown[] = [
      'plain',
      '',
      'ünï€😀',
      'x\u0000y',
      0,
      -1,
      2147483647,
      -2147483648,
      Long.fromString('1234567890123'),
      Long.fromString('-9223372036854775808'),
      1.5,
      -0.25,
      1e300,
      true,
      false,
      null,
      new Date(1_700_000_000_000),
      new BSON.ObjectId('64b7f0c2a1b2c3d4e5f60718'),
      { nested: 'doc', n: 1 },
    ];
    const c = client.db('lore').collection<Document>('keytypes');
    await c.createIndex({ v: 1 });
    await c.createIndex({ a: 1, v: -1 });
    await c.createIndex({ i: 1, v: 1 }, { unique: true });
    // One document per value, its _id the value itself where an _id may be (not null).
    const docs = values.map((v, i) => ({ _id: v === null ? `id${i}` : v, i, v, a: i % 3 }));
    await c.insertMany(docs as never[]);
    const snapshot = async (coll: Collection<Document>) => {
      const out: Record<string, unknown> = {};
      for (const [i, v] of values.entries()) {
        const byV = (await coll.find({ v: v as never }).toArray()).map((d) => d.i).sort();
        const byId = (await coll.find({ _id: docs[i]!._id as never }).toArray()).map((d) => d.i);
        const byCompound = (await coll.find({ a: i % 3, v: v as never }).toArray()).map((d) => d.i).sort();
        const byUnique = (await coll.find({ i, v: v as never }).toArray()).map((d) => d.i);
        out[`v${i}`] = { byV, byId, byCompound, byUnique };
      }
      out.order = (await coll.find({}).sort({ v: 1, i: 1 }).toArray()).map((d) => d.i);
      out.orderDesc = (await coll.find({ a: 1 }).sort({ a: 1, v: -1 }).toArray()).map((d) => d.i);
      return out;
    };
    const before = await snapshot(c);
    for (const [i] of values.entries()) {
      const s = before[`v${i}`] as { byV: number[]; byId: number[]; byCompound: number[]; byUnique: number[] };
      assert.ok(s.byV.includes(i), `value ${i} found through the v index (${JSON.stringify(s)})`);
      assert.deepEqual(s.byId, [i], `value ${i} found by _id`);
      assert.ok(s.byCompound.includes(i), `value ${i} found through the compound index`);
      assert.deepEqual(s.byUnique, [i], `value ${i} found through the unique index`);
    }
    await assert.rejects(c.insertOne({ _id: 'dup', i: 2, v: values[2] } as never), (e: unknown) => e instanceof MongoServerError && e.code === 11000);

    await client.close();
    await server.stop();
    assert.equal((await server.exited).code, 0, server.stderrTail());
    server = await startMongoServer({ jarPath, port: 0, dbFile });
    client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5_000 });
    await client.connect();
    const again = client.db('lore').collection<Document>('keytypes');
    assert.deepEqual(await snapshot(again), before);
    await assert.rejects(again.insertOne({ _id: 'dup', i: 2, v: values[2] } as never), (e: unknown) => e instanceof MongoServerError && e.code === 11000);
  });

  test('projections of plain paths: fields in order, sub-documents made on the way, arrays left to upstream', async () => {
    // Plain-path projections are applied by the launcher (PathProjection), the rest by upstream;
    // the answers (key order included, so compared as JSON) are MongoDB's for these documents.
    const c = client.db('lore').collection<Document>('projections');
    await c.createIndex({ seq: 1 });
    await c.insertMany([
      {
        _id: 'n1' as never,
        seq: 1,
        tier: 'hot',
        kind: 'workflow',
        text: 'long',
        slots: { semantic_forgetting_v1: { action: 'keep', lifecycle_state: 'active', why: 'x' }, other: { big: 'y' } },
      },
      { _id: 'n2' as never, seq: 2, tier: 'warm', slots: { other: 1 } },
      { _id: 'n3' as never, seq: 3, tier: 'cold', slots: 'not a document' },
      { _id: 'n4' as never, seq: 4, tier: 'hot', list: [{ b: 1, c: 2 }, { c: 3 }] },
    ]);
    const q = async (projection: Document, filter: Document = {}) => JSON.stringify(await c.find(filter, { projection }).sort({ seq: 1 }).toArray());
    const view = { _id: 1, tier: 1, kind: 1, seq: 1, 'slots.semantic_forgetting_v1.action': 1, 'slots.semantic_forgetting_v1.lifecycle_state': 1 };
    assert.equal(
      await q(view),
      JSON.stringify([
        { _id: 'n1', tier: 'hot', kind: 'workflow', seq: 1, slots: { semantic_forgetting_v1: { action: 'keep', lifecycle_state: 'active' } } },
        { _id: 'n2', tier: 'warm', seq: 2, slots: {} },
        { _id: 'n3', tier: 'cold', seq: 3 },
        { _id: 'n4', tier: 'hot', seq: 4 },
      ]),
    );
    // the id first when not named; in its place when named; left out when excluded
    assert.equal(
      await q({ tier: 1, seq: 1 }, { seq: { $lte: 2 } }),
      JSON.stringify([
        { _id: 'n1', tier: 'hot', seq: 1 },
        { _id: 'n2', tier: 'warm', seq: 2 },
      ]),
    );
    assert.equal(await q({ tier: 1, _id: 1 }, { seq: 1 }), JSON.stringify([{ tier: 'hot', _id: 'n1' }]));
    assert.equal(
      await q({ _id: 0, tier: true, 'slots.other': 1 }, { seq: { $lte: 2 } }),
      JSON.stringify([
        { tier: 'hot', slots: { other: { big: 'y' } } },
        { tier: 'warm', slots: { other: 1 } },
      ]),
    );
    // a path through an array: upstream's projection, MongoDB's answer
    assert.equal(await q({ 'list.b': 1 }, { seq: 4 }), JSON.stringify([{ _id: 'n4', list: [{ b: 1 }, {}] }]));
    // operators stay upstream's (whose field order differs from MongoDB's here: values compared)
    assert.deepEqual(JSON.parse(await q({ list: { $slice: 1 }, seq: 1 }, { seq: 4 })), [{ _id: 'n4', seq: 4, list: [{ b: 1, c: 2 }] }]);
  });

  test('planned reads with a plain projection decode only the fields they need; every BSON type is stepped over', async () => {
    // Reads served by an index with an inclusion projection decode only the projected fields, the
    // id and the fields the filter and sort name (StoreTypes.decodeFields); the others are stepped
    // over by their BSON lengths. The answer must be the full document projected. (Code with scope
    // is not here: upstream's decoder does not take it in an insert.)
    const c = client.db('lore').collection<Document>('partial');
    await c.createIndex({ seq: 1 });
    const everyType = (i: number) => ({
      dbl: 1.25 + i,
      str: `string ${i} ünï€`,
      doc: { a: { b: [1, 'two', { c: null }] }, i },
      arr: [i, 'x', { y: [true] }, [1, 2]],
      bin: new BSON.Binary(Buffer.from([0, 1, 2, i])),
      oid: new BSON.ObjectId('64b7f0c2a1b2c3d4e5f6071' + (i % 10)),
      bool: i % 2 === 0,
      date: new Date(1_700_000_000_000 + i),
      nul: null,
      re: new BSON.BSONRegExp('^a.c$', 'i'),
      code: new BSON.Code('function () { return 1; }'),
      int: new BSON.Int32(i),
      ts: new BSON.Timestamp({ t: 1_700_000_000, i }),
      long: Long.fromString('9007199254740993'),
      dec: BSON.Decimal128.fromString('12.50'),
      min: new BSON.MinKey(),
      max: new BSON.MaxKey(),
    });
    const docs = Array.from({ length: 6 }, (_, i) => {
      const types = everyType(i);
      const keys = Object.keys(types);
      const half = Math.floor(keys.length / 2);
      // the wanted fields sit before, between and after fields of every type
      return {
        _id: `p${i}`,
        seq: i,
        title: `title ${i}`,
        ...Object.fromEntries(keys.slice(0, half).map((k) => [k, types[k as keyof typeof types]])),
        kind: i % 2 === 0 ? 'even' : 'odd',
        ...Object.fromEntries(keys.slice(half).map((k) => [k, types[k as keyof typeof types]])),
        text: `text ${i}`,
      };
    });
    await c.insertMany(docs as never[]);
    const project = (d: Document, fields: string[]) => ({ _id: d._id, ...Object.fromEntries(fields.filter((f) => f in d).map((f) => [f, d[f]])) });
    const cases: { filter: Document; fields: string[]; sort?: Sort }[] = [
      { filter: { _id: { $in: ['p3', 'p0', 'missing', 'p5'] } }, fields: ['title', 'text', 'seq'] },
      { filter: { seq: { $gte: 1 } }, fields: ['text', 'title'], sort: { seq: -1 } },
      { filter: { seq: { $gte: 0 }, kind: 'even' }, fields: ['text'], sort: { seq: 1 } }, // filters on a field it does not return
      { filter: { seq: { $lte: 4 }, $or: [{ kind: 'odd' }, { 'doc.i': 4 }] }, fields: ['title', 'max'], sort: { seq: 1 } },
      { filter: { _id: { $in: ['p1', 'p2'] } }, fields: Object.keys(everyType(0)) },
    ];
    // Freshly written documents stay decoded in the server's page cache; read back from the file
    // they are bytes again, which is the path under test.
    await restartServer();
    const again = client.db('lore').collection<Document>('partial');
    // Every projected read first: a read without a projection decodes (and keeps) whole documents.
    const partialDecodes = async () => (await client.db('admin').command({ loreStatus: 1 })).partialDecodes as { documents: number; decodedWhole: number };
    const before = await partialDecodes();
    const got: Document[][] = [];
    for (const { filter, fields, sort } of cases) {
      const projection = Object.fromEntries(fields.map((f) => [f, 1]));
      got.push(await (sort ? again.find(filter, { projection }).sort(sort) : again.find(filter, { projection })).toArray());
    }
    const during = await partialDecodes();
    assert.ok(during.documents - before.documents >= got.flat().length, `documents read partially: ${JSON.stringify({ before, during })}`);
    assert.equal(during.decodedWhole, before.decodedWhole, 'no document fell back to a whole decode');
    for (const [i, { filter, fields, sort }] of cases.entries()) {
      // the same query without a projection decodes whole documents: projected here, it is the answer
      const whole = await (sort ? again.find(filter).sort(sort) : again.find(filter)).toArray();
      assert.ok(whole.length > 0, `case ${JSON.stringify(filter)} matches something`);
      assert.equal(
        BSON.EJSON.stringify(got[i], { relaxed: false }),
        BSON.EJSON.stringify(
          whole.map((d) => project(d, fields)),
          { relaxed: false },
        ),
        JSON.stringify(filter),
      );
    }
    // the filters on unprojected fields matched the right documents
    assert.deepEqual(
      got[2]!.map((d) => d._id),
      ['p0', 'p2', 'p4'],
    );
    assert.deepEqual(
      got[3]!.map((d) => d._id),
      ['p1', 'p3', 'p4'],
    );
  });

  test('a projection of paths inside an embedded document decodes only those paths of it', async () => {
    // The forgetting view projects a few fields inside each node's slots; the extraction beside
    // them is stepped over (StoreTypes.decodeFields with a FieldTree). The oracle is the same
    // query answered from whole documents: once a read without a projection has decoded them,
    // projected reads use those and upstream's projection.
    const c = client.db('lore').collection<Document>('nested');
    await c.createIndex({ seq: 1 });
    const docs = Array.from({ length: 5 }, (_, i) => ({
      _id: `n${i}`,
      seq: i,
      tier: i % 2 ? 'warm' : 'hot',
      slots: {
        execution_native_v1: { files: [`src/f${i}.ts`], tools: ['edit'], nested: { deep: [1, { x: i }] }, bin: new BSON.Binary(Buffer.from([i])) },
        semantic_forgetting_v1: { action: i % 2 ? 'keep' : 'cool', lifecycle_state: `s${i}`, other: { keep: i, drop: 'x' } },
        archive_relocation_v1: i === 3 ? null : { relocation_state: 'none', payload_scope: `p${i}` },
        arr: [{ y: i }, 2, [3], { z: 1 }],
        when: new Date(1_700_000_000_000 + i),
      },
      str: `plain ${i}`,
    }));
    await c.insertMany(docs as never[]);
    const cases: { filter: Document; projection: Document; sort?: Sort }[] = [
      {
        filter: { seq: { $gte: 0 } },
        projection: {
          tier: 1,
          'slots.semantic_forgetting_v1.action': 1,
          'slots.semantic_forgetting_v1.lifecycle_state': 1,
          'slots.archive_relocation_v1.relocation_state': 1,
          'slots.archive_relocation_v1.payload_scope': 1,
        },
        sort: { seq: 1 },
      },
      { filter: { _id: { $in: ['n4', 'n1', 'n2'] } }, projection: { 'slots.arr.y': 1, 'str.x': 1, 'slots.missing.deep': 1, 'slots.semantic_forgetting_v1.other.keep': 1 } },
      // a filter on a field inside slots reads slots whole; the answer is the same
      { filter: { seq: { $gte: 1 }, 'slots.semantic_forgetting_v1.action': 'keep' }, projection: { 'slots.semantic_forgetting_v1.other': 1 }, sort: { seq: -1 } },
      { filter: { _id: { $in: ['n0', 'n3'] } }, projection: { 'slots.execution_native_v1.nested.deep': 1, 'slots.when': 1 } },
    ];
    await restartServer();
    const again = client.db('lore').collection<Document>('nested');
    const read = async () => {
      const out: string[] = [];
      for (const { filter, projection, sort } of cases) {
        const cursor = again.find(filter, { projection });
        out.push(BSON.EJSON.stringify(await (sort ? cursor.sort(sort) : cursor).toArray(), { relaxed: false }));
      }
      return out;
    };
    const partialDecodes = async () => (await client.db('admin').command({ loreStatus: 1 })).partialDecodes as { documents: number; decodedWhole: number };
    const before = await partialDecodes();
    const partial = await read();
    const during = await partialDecodes();
    assert.ok(during.documents - before.documents >= 9, `documents read partially: ${JSON.stringify({ before, during })}`);
    assert.equal(during.decodedWhole, before.decodedWhole, 'no document fell back to a whole decode');
    assert.equal((await again.find({ seq: { $gte: 0 } }).toArray()).length, 5); // decodes and keeps them whole
    const fromWhole = await read();
    assert.deepEqual(partial, fromWhole);
    // and what the answers hold: only the projected paths
    const first = BSON.EJSON.parse(partial[0]!) as Document[];
    assert.deepEqual(first[3], { _id: 'n3', tier: 'warm', slots: { semantic_forgetting_v1: { action: 'keep', lifecycle_state: 's3' } } }); // a path through null: omitted
    assert.deepEqual(first[0]!.slots.archive_relocation_v1, { relocation_state: 'none', payload_scope: 'p0' });
    const second = BSON.EJSON.parse(partial[1]!) as Document[];
    assert.equal(second.length, 3);
    assert.equal(second.find((d) => d._id === 'n4')!.slots.semantic_forgetting_v1.other.keep, 4);
    assert.equal(second.find((d) => d._id === 'n4')!.slots.semantic_forgetting_v1.other.drop, undefined);
    assert.equal(second.find((d) => d._id === 'n4')!.slots.execution_native_v1, undefined);
    assert.deepEqual(
      (BSON.EJSON.parse(partial[2]!) as Document[]).map((d) => d._id),
      ['n3', 'n1'],
    );
  });

  test('a second server on the same port fails with a message naming the port', async () => {
    const other = join(dir, 'other.mv.db');
    await assert.rejects(
      startMongoServer({ jarPath, port: server.port, dbFile: other }),
      (e: unknown) => e instanceof Error && e.message.includes(`port ${server.port}`) && /in use/.test(e.message),
    );
  });

  test('exits by itself when its parent is killed -9 (stdin closes)', async () => {
    const script = join(dir, 'parent.mjs');
    const modulePath = fileURLToPath(new URL('../../src/local/mongo-server.ts', import.meta.url));
    await writeFile(
      script,
      `import { startMongoServer } from ${JSON.stringify(modulePath)};
const s = await startMongoServer({ jarPath: process.env.JAR, port: 0, dbFile: process.env.DB });
console.log('JAVA_PID ' + s.pid);
setInterval(() => {}, 1000);
`,
    );
    const parent = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, JAR: jarPath, DB: join(dir, 'orphan.mv.db') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const javaPid = await new Promise<number>((resolve, reject) => {
      let out = '';
      parent.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /JAVA_PID (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      parent.on('exit', (code) => reject(new Error(`parent exited early (${code})`)));
    });
    const alive = (pid: number) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    assert.ok(alive(javaPid));
    parent.kill('SIGKILL');
    const deadline = Date.now() + 15_000;
    while (alive(javaPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.equal(alive(javaPid), false, 'the server outlived its killed parent');
  });
});
