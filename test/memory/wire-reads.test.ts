import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { BSON } from 'mongodb';
import { allCollections } from '../../src/store/collections';
import { Database, defineCollection } from '../../src/store/database';
import { NodeStore } from '../../src/store/memory/nodes';
import { scopeRef } from '../../src/store/scope';
import { WireReadError, WireReads, wireReadsTarget, type WireFind, type WireTarget } from '../../src/store/wire-reads';
import { testServices, uniqueName } from '../helpers/app';

/**
 * The hot reads' plain OP_MSG path (src/store/wire-reads.ts) must return what the driver returns,
 * survive dropped connections, and hand every failure to the driver.
 */

describe('wire reads: which connection strings qualify', () => {
  it('takes one host with a port and at most directConnection=true', () => {
    assert.deepEqual(wireReadsTarget('mongodb://127.0.0.1:27018/?directConnection=true'), { host: '127.0.0.1', port: 27018 });
    assert.deepEqual(wireReadsTarget('mongodb://localhost:1234'), { host: 'localhost', port: 1234 });
    assert.deepEqual(wireReadsTarget('mongodb://[::1]:27017/'), { host: '::1', port: 27017 });
  });

  it('leaves everything else to the driver', () => {
    for (const uri of [
      'mongodb+srv://cluster.example.com/',
      'mongodb://user:pw@127.0.0.1:27017/',
      'mongodb://mongodb:27017/?replicaSet=rs0&directConnection=true',
      'mongodb://a:27017,b:27017/',
      'mongodb://127.0.0.1:27017/?tls=true',
      'mongodb://127.0.0.1/',
      'mongodb://127.0.0.1:70000/',
    ]) {
      assert.equal(wireReadsTarget(uri), null, uri);
    }
  });
});

/** A TCP relay to the server: it can hold requests back (so they stay in flight) and cut every connection. */
function relay(target: WireTarget): Promise<{ port: number; hold(): void; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let holding = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => {
      if (!holding) upstream.write(chunk);
    });
    upstream.pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as net.AddressInfo).port,
        hold: () => {
          holding = true;
        },
        cut: () => {
          holding = false;
          for (const s of sockets) s.destroy();
        },
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

describe('wire reads against the MongoDB-compatible server', () => {
  const things = defineCollection({ name: 'wire_things', indexes: [] });
  let db: Database;
  let name = '';
  let target: WireTarget;

  const docs = Array.from({ length: 12 }, (_, i) => ({
    _id: `d${String(i).padStart(2, '0')}`,
    n: i,
    half: i / 2,
    big: BSON.Long.fromString('9007199254740993'), // above 2^53: stays a Long, as the driver returns it
    at: new Date(Date.UTC(2026, 0, 1 + i)),
    tags: ['a', `t${i % 3}`],
    nested: { deep: { flag: i % 2 === 0, none: null }, list: [{ k: i }] },
    text: `document ${i} ` + 'é'.repeat(i),
  }));

  before(async () => {
    const { mongoUri } = await testServices();
    name = uniqueName('wire').replace(/-/g, '_');
    db = await Database.connect(mongoUri, name);
    await db.ensureIndexes(allCollections);
    await db.db.collection(things.name).insertMany(docs as never[]);
    target = wireReadsTarget(mongoUri)!;
  });
  after(async () => {
    await db?.db.dropDatabase().catch(() => {});
    await db?.close();
  });

  it('returns the documents the driver returns: filters, projections, sort, limit, every BSON type used', async () => {
    const wire = new WireReads(target, name);
    try {
      const queries: WireFind[] = [
        { filter: {} },
        { filter: { _id: { $in: ['d03', 'd07', 'missing', 'd01'] } } },
        { filter: { n: { $gte: 4 } }, projection: { n: 1, at: 1, 'nested.deep': 1 }, sort: { n: -1 }, limit: 5 },
        { filter: { tags: 't1' }, projection: { _id: 1, text: 1 } },
        { filter: { _id: 'nothing' } },
      ];
      for (const q of queries) {
        let cursor = db.db.collection(things.name).find(q.filter, q.projection ? { projection: q.projection } : {});
        if (q.sort) cursor = cursor.sort(q.sort as Record<string, 1 | -1>);
        if (q.limit) cursor = cursor.limit(q.limit);
        const viaDriver = await cursor.toArray();
        assert.deepEqual(await wire.find(things.name, q), viaDriver, JSON.stringify(q));
      }
      assert.ok((await wire.find(things.name, { filter: { _id: 'd00' } }))[0]?.big instanceof BSON.Long);
    } finally {
      wire.close();
    }
  });

  it('follows the cursor with getMore until it is exhausted', async () => {
    const wire = new WireReads(target, name, { batchSize: 5 });
    try {
      const got = await wire.find(things.name, { filter: {}, sort: { n: 1 } });
      assert.deepEqual(
        got.map((d) => d._id),
        docs.map((d) => d._id),
      );
      assert.equal(wire.stats.requests, 3, 'one find and two getMores for 12 documents in batches of 5');
    } finally {
      wire.close();
    }
  });

  it('matches pipelined replies to their requests', async () => {
    const wire = new WireReads(target, name, { maxConnections: 2 });
    try {
      const ids = Array.from({ length: 60 }, (_, i) => docs[i % docs.length]!._id);
      const got = await Promise.all(ids.map((id) => wire.find(things.name, { filter: { _id: id }, projection: { n: 1 } })));
      assert.deepEqual(
        got.map((r) => r[0]?._id),
        ids,
      );
      assert.ok(wire.stats.connections <= 2, `at most 2 connections, saw ${wire.stats.connections}`);
    } finally {
      wire.close();
    }
  });

  it('an error reply rejects; Database.findAll then asks the driver, which reports the error', async () => {
    const wire = new WireReads(target, name);
    try {
      await assert.rejects(wire.find(things.name, { filter: { n: { $nope: 1 } } }), WireReadError);
    } finally {
      wire.close();
    }
    const before = db.wireFallbacks;
    await assert.rejects(db.findAll(things, { filter: { n: { $nope: 1 } } }), (err: Error) => err.name !== 'WireReadError');
    assert.equal(db.wireFallbacks, before + 1);
  });

  it('a dropped connection fails the reads in flight, and the next read opens a new one', async () => {
    const r = await relay(target);
    const wire = new WireReads({ host: '127.0.0.1', port: r.port }, name);
    try {
      assert.equal((await wire.find(things.name, { filter: { _id: 'd01' } })).length, 1);
      r.hold();
      const inFlight = wire.find(things.name, { filter: { _id: 'd03' } }).catch((err: Error) => err);
      await new Promise((resolve) => setTimeout(resolve, 50));
      r.cut();
      assert.ok((await inFlight) instanceof Error, 'the read in flight fails');
      assert.deepEqual(
        (await wire.find(things.name, { filter: { _id: 'd02' }, projection: { n: 1 } })).map((d) => d.n),
        [2],
      );
    } finally {
      wire.close();
      await r.close();
    }
  });

  it('a server that cannot be reached rejects at once (the caller falls back)', async () => {
    const r = await relay(target);
    const port = r.port;
    await r.close();
    const wire = new WireReads({ host: '127.0.0.1', port }, name);
    await assert.rejects(wire.find(things.name, { filter: {} }));
    wire.close();
  });

  it('the node store reads through it when on, through the driver when off, with the same results', async () => {
    const { mongoUri } = await testServices();
    const off = await Database.connect(mongoUri, name, { wireReads: 'off' });
    try {
      assert.equal(off.wireReads, null);
      assert.ok(db.wireReads, 'the test server’s connection string qualifies');
      const ref = scopeRef('t1', uniqueName('wire'));
      const on = new NodeStore(db).in(ref);
      const now = new Date('2026-01-01T00:00:00.000Z');
      const made = await on.insert(
        [1, 2, 3].map((i) => ({ type: 'event' as const, text: `wire node ${i}`, summary: `wire ${i}`, actor: 'test' })),
        now,
      );
      const ids = [made[2]!.id, 'missing', made[0]!.id];
      const requestsBefore = db.wireReads!.requests;
      const fallbacksBefore = db.wireFallbacks;
      const viaWire = await on.getManyFields(ids, ['title', 'text', 'created_at']);
      assert.ok(db.wireReads!.requests > requestsBefore, 'the load went over the wire reads');
      const viaDriver = await new NodeStore(off).in(ref).getManyFields(ids, ['title', 'text', 'created_at']);
      assert.deepEqual(viaWire, viaDriver);
      assert.deepEqual(
        viaWire.map((n) => n.text),
        ['wire node 3', 'wire node 1'],
      );
      const seq = await new NodeStore(db).currentSeq();
      assert.ok(seq > 0, 'the inserts took seqs');
      assert.equal(seq, await new NodeStore(off).currentSeq());
      const since = await new NodeStore(db).changesSince(0, 100_000);
      assert.deepEqual(since, await new NodeStore(off).changesSince(0, 100_000));
      assert.ok(
        since.some((n) => n.id === made[1]!.id),
        'the change feed over the wire reads holds the new nodes',
      );
      assert.equal(db.wireFallbacks, fallbacksBefore, 'every read above went over the wire reads, none fell back');
    } finally {
      await off.close();
    }
  });
});
