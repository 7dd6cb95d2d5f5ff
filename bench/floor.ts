import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { ensureMongoLauncherJar, startMongoServer, type MongoServerHandle } from '../src/local/mongo-server';
import { cli, numOr } from './cli';

const USAGE = `The floor under loadgen's figures on this machine: an HTTP server that answers loadgen's write
and recall requests doing as little as a server can, so that what remains of a target after it
is known. Not Lore, not a test.

  node --import tsx bench/floor.ts --mode null   [--port 21411]
  node --import tsx bench/floor.ts --mode insert [--port 21411]            # a fresh local server file
  node --import tsx bench/floor.ts --mode load --db-file <copy of a Lore data dir's mongo.mv.db> [--scope bench100k]
  # then, from another shell (the pid is printed at start):
  node ../shared/bench/loadgen.mjs --base-url http://127.0.0.1:21411 --pid <pid> --phases write ...

Modes:
- null: parse the JSON body and answer a minimal response loadgen accepts (no storage at all);
- insert: also insert one document per write into Lore's local MongoDB-compatible server,
  concurrent writes combined into one insertMany as Lore's insert combiner does, on a
  collection with a unique client key and a seq index;
- load: answer a recall with 10 random nodes of the scope, loaded by '_id' with recall's
  projection from the local server (no ranking, no catch-up, no access counts).
Ctrl+C prints the CPU this process and the local server used.`;

const { values: opts } = cli(USAGE, {
  mode: { type: 'string', default: 'null' },
  port: { type: 'string' },
  scope: { type: 'string', default: 'bench100k' },
  'db-file': { type: 'string' },
});
const MODE = opts.mode;
const PORT = numOr(opts.port, 21411);
const SCOPE = opts.scope;
if (!['null', 'insert', 'load'].includes(MODE)) throw new Error(`--mode null|insert|load, not ${MODE}`);
if (MODE === 'load' && !opts['db-file']) throw new Error('--mode load needs --db-file (a copy: the server writes to it)');

const RECALL_PROJECTION = { client_id: 1, type: 1, kind: 1, tier: 1, title: 1, text: 1, summary: 1, tags: 1, importance: 1, created_at: 1, updated_at: 1 };

async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, at 100 ticks per second
}

let server: MongoServerHandle | null = null;
type NodeDoc = { _id: string } & Document;
let nodes: Collection<NodeDoc> | null = null;
if (MODE !== 'null') {
  const dbFile = MODE === 'load' ? opts['db-file']! : join(await mkdtemp(join(tmpdir(), 'lore-floor-')), 'floor.mv.db');
  server = await startMongoServer({ jarPath: await ensureMongoLauncherJar({ log: (m) => console.error(m) }), port: 0, dbFile });
  const client = await MongoClient.connect(server.uri);
  nodes = client.db(MODE === 'load' ? 'lore' : 'floor').collection<NodeDoc>('memory_nodes');
  if (MODE === 'insert') {
    await nodes.createIndex({ tenant_id: 1, scope: 1, client_key: 1 }, { unique: true });
    await nodes.createIndex({ seq: 1 });
  }
}

// insert: one insertMany in flight, the next batch gathering meanwhile (as src/store/memory/insert-combiner.ts)
let pending: { doc: NodeDoc; done: (err?: Error) => void }[] = [];
let inFlight = false;
async function send(): Promise<void> {
  if (inFlight || pending.length === 0) return;
  inFlight = true;
  const batch = pending;
  pending = [];
  let error: Error | undefined;
  try {
    await nodes!.insertMany(
      batch.map((b) => b.doc),
      { ordered: false },
    );
  } catch (err) {
    error = err as Error;
  }
  for (const b of batch) b.done(error);
  inFlight = false;
  void send();
}
const insert = (doc: NodeDoc) =>
  new Promise<void>((resolve, reject) => {
    pending.push({ doc, done: (err) => (err ? reject(err) : resolve()) });
    void send();
  });

// load: the scope's ids, read once in _id pages with recall's projection (which also warms the
// server's page cache, as Lore's index build at start does)
const ids: string[] = [];
if (MODE === 'load') {
  let last: string | null = null;
  for (;;) {
    const page = await nodes!
      .find({ tenant_id: 'default', scope: SCOPE, ...(last ? { _id: { $gt: last } } : {}) }, { projection: RECALL_PROJECTION })
      .sort({ _id: 1 })
      .limit(1000)
      .toArray();
    if (page.length === 0) break;
    for (const d of page) ids.push(d._id);
    last = page[page.length - 1]!._id;
  }
  if (ids.length === 0) throw new Error(`no nodes in scope ${SCOPE} of tenant default`);
}
let seed = 1;
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
let seq = 0;

async function answer(body: Record<string, unknown>): Promise<unknown> {
  if (Array.isArray(body.nodes)) {
    const n = body.nodes[0] as Record<string, unknown>;
    const id = randomUUID();
    if (MODE === 'insert') {
      await insert({
        _id: id,
        tenant_id: body.tenant_id,
        scope: body.scope,
        client_key: n.client_id,
        type: n.type,
        title: n.title,
        text: body.input_text,
        summary: n.text_summary,
        slots: n.slots,
        seq: ++seq,
        created_at: new Date().toISOString(),
      });
    }
    return { commit_id: id, nodes: [{ id, client_id: n.client_id, type: n.type }] };
  }
  if (MODE !== 'load') return { hits: [] };
  const want = Array.from({ length: 10 }, () => ids[Math.floor(random() * ids.length)]!);
  const docs = await nodes!.find({ _id: { $in: want } }, { projection: RECALL_PROJECTION }).toArray();
  return { hits: docs.map((d, i) => ({ node: { ...d, id: d._id }, score: 10 - i })) };
}

const httpServer = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const reply = (status: number, value: unknown) => {
      const out = JSON.stringify(value);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    };
    if (req.method !== 'POST') return reply(200, { ok: true });
    answer(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>).then(
      (v) => reply(200, v),
      (err: Error) => reply(500, { error: err.message }),
    );
  });
});
httpServer.listen(PORT, '127.0.0.1', () => {
  console.log(`floor (${MODE}) on http://127.0.0.1:${PORT}, pid ${process.pid}${server ? `, local server pid ${server.pid}` : ''}${ids.length ? `, ${ids.length} nodes` : ''}`);
});
process.on('SIGINT', async () => {
  console.log(`cpu: this process ${await cpuMs(process.pid)} ms${server ? `, local server ${await cpuMs(server.pid)} ms` : ''}`);
  await server?.stop();
  process.exit(0);
});
