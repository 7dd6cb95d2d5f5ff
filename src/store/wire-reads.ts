import net from 'node:net';
import { BSON, type Document } from 'mongodb';

/**
 * Plain OP_MSG `find`s for the hottest reads (recall loading its hits, the catch-up's head probe
 * and change reads): docs/design.md, "Wire reads".
 *
 * The MongoDB driver spends 0.4-0.8 ms of this process's CPU per operation on its own machinery
 * (server selection, sessions, cursors, options, monitoring events); a loopback round trip
 * itself costs about 0.1 ms. Every recall made two such operations on the main thread, so they
 * added to its latency directly. Here a `find` is one command document written to a socket and
 * one reply read back (plus `getMore`s while the cursor stays open).
 *
 * Only for connection strings that name one host with no credentials and no options but
 * `directConnection=true`, which is what the embedded server gives: no authentication, TLS,
 * compression or topology to honour. Every caller keeps the driver as its fallback: any failure
 * here (refused connection, a dropped socket, an error reply) makes the caller run the same read
 * through the driver, which then answers or fails the way it always did.
 */

const OP_MSG = 2013;
const HEADER = 16;
/** Connections opened at most; a request takes an idle one, else opens one, else the least busy. */
const DEFAULT_MAX_CONNECTIONS = 4;
const DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
/** Largest reply accepted (the server's own cap is 48 MB). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export interface WireTarget {
  host: string;
  port: number;
}

/**
 * The host and port of a connection string the wire reads may serve, or null: `mongodb://` (not
 * `+srv`), one host with a port, no user info, and no query options other than
 * `directConnection=true`.
 */
export function wireReadsTarget(uri: string): WireTarget | null {
  const m = /^mongodb:\/\/([^/?@,]+):(\d{1,5})\/?(?:\?(.*))?$/.exec(uri);
  if (!m) return null;
  const options = (m[3] ?? '').split('&').filter(Boolean);
  if (options.some((o) => o.toLowerCase() !== 'directconnection=true')) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  const host = (m[1] as string).replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

/** An error reply (`ok: 0`) or a reply this module cannot read. */
export class WireReadError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'WireReadError';
  }
}

export interface WireFind {
  filter: Document;
  projection?: Document;
  sort?: Document;
  limit?: number;
}

interface Pending {
  resolve: (reply: Document) => void;
  reject: (err: Error) => void;
}

/** One socket; requests are pipelined and matched to replies by id. */
class WireConnection {
  private readonly pending = new Map<number, Pending>();
  private chunks: Buffer[] = [];
  private buffered = 0;
  private failure: Error | null = null;

  constructor(
    private readonly socket: net.Socket,
    private readonly onClosed: (conn: WireConnection) => void,
  ) {
    socket.setNoDelay(true);
    socket.unref(); // an idle connection never keeps the process alive
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('wire reads: connection closed')));
  }

  get inFlight(): number {
    return this.pending.size;
  }

  request(id: number, command: Document): Promise<Document> {
    if (this.failure) return Promise.reject(this.failure);
    const body = BSON.serialize(command);
    const head = Buffer.allocUnsafe(HEADER + 5);
    head.writeInt32LE(HEADER + 5 + body.length, 0);
    head.writeInt32LE(id, 4);
    head.writeInt32LE(0, 8);
    head.writeInt32LE(OP_MSG, 12);
    head.writeUInt32LE(0, 16); // flagBits
    head.writeUInt8(0, 20); // section kind 0: the command document
    return new Promise<Document>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.socket.ref();
      this.socket.write(Buffer.concat([head, body], head.length + body.length));
    });
  }

  close(): void {
    this.fail(new Error('wire reads: closed'));
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (p) {
      this.pending.delete(id);
      if (this.pending.size === 0) this.socket.unref();
    }
    return p;
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= 4) {
      let buf = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.buffered);
      const length = buf.readInt32LE(0);
      if (length < HEADER + 5 || length > MAX_MESSAGE_BYTES) {
        this.fail(new WireReadError(`wire reads: unexpected message length ${length}`));
        return;
      }
      if (this.buffered < length) {
        this.chunks = [buf];
        return;
      }
      const message = buf.subarray(0, length);
      buf = buf.subarray(length);
      this.chunks = buf.length > 0 ? [buf] : [];
      this.buffered = buf.length;
      this.onMessage(message);
    }
  }

  private onMessage(message: Buffer): void {
    const responseTo = message.readInt32LE(8);
    const p = this.settle(responseTo);
    if (!p) return;
    try {
      const opCode = message.readInt32LE(12);
      if (opCode !== OP_MSG) throw new WireReadError(`wire reads: reply with opCode ${opCode}`);
      if (message.readUInt8(HEADER + 4) !== 0) throw new WireReadError('wire reads: reply without a body section first');
      const start = HEADER + 5;
      const docLength = message.readInt32LE(start);
      const reply = BSON.deserialize(message.subarray(start, start + docLength));
      if (reply.ok !== 1) {
        throw new WireReadError(String(reply.errmsg ?? 'command failed'), typeof reply.code === 'number' ? reply.code : undefined);
      }
      p.resolve(reply);
    } catch (err) {
      p.reject(err as Error);
    }
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(err);
    this.socket.destroy();
    this.onClosed(this);
  }
}

export interface WireReadsOptions {
  maxConnections?: number;
  connectTimeoutMs?: number;
  /** Documents per reply before a `getMore` (default: the limit, else 10 000). */
  batchSize?: number;
}

export interface WireReadsStats {
  connections: number;
  requests: number;
}

export class WireReads {
  private readonly connections: WireConnection[] = [];
  private opening: Promise<WireConnection> | null = null;
  private nextId = 1;
  private requests = 0;
  private closed = false;
  private readonly maxConnections: number;
  private readonly connectTimeoutMs: number;
  private readonly batchSize: number | undefined;

  constructor(
    private readonly target: WireTarget,
    private readonly database: string,
    opts: WireReadsOptions = {},
  ) {
    this.maxConnections = Math.max(1, opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
    this.connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.batchSize = opts.batchSize;
  }

  get stats(): WireReadsStats {
    return { connections: this.connections.length, requests: this.requests };
  }

  /** Every document the query matches, as the driver's `find(...).toArray()` would return them. */
  async find<T extends Document = Document>(collection: string, q: WireFind): Promise<T[]> {
    const conn = await this.connection();
    const batchSize = this.batchSize ?? (q.limit && q.limit > 0 ? q.limit : 10_000);
    const command: Document = { find: collection, filter: q.filter };
    if (q.projection) command.projection = q.projection;
    if (q.sort) command.sort = q.sort;
    if (q.limit !== undefined && q.limit > 0) command.limit = q.limit;
    command.batchSize = batchSize;
    command.$db = this.database;
    let reply = await this.send(conn, command);
    const docs: T[] = [];
    for (;;) {
      const cursor = reply.cursor as { id?: unknown; firstBatch?: T[]; nextBatch?: T[] } | undefined;
      const batch = cursor?.firstBatch ?? cursor?.nextBatch;
      if (!cursor || !Array.isArray(batch)) throw new WireReadError('wire reads: reply without a cursor batch');
      for (const d of batch) docs.push(d);
      const id = cursor.id;
      if (id === 0 || id === undefined || (id instanceof BSON.Long && id.isZero())) return docs;
      const cursorId = id instanceof BSON.Long ? id : BSON.Long.fromNumber(Number(id));
      reply = await this.send(conn, { getMore: cursorId, collection, batchSize, $db: this.database });
    }
  }

  close(): void {
    this.closed = true;
    for (const c of [...this.connections]) c.close();
  }

  private send(conn: WireConnection, command: Document): Promise<Document> {
    this.requests += 1;
    const id = this.nextId;
    this.nextId = this.nextId >= 0x7fffffff ? 1 : this.nextId + 1;
    return conn.request(id, command);
  }

  private async connection(): Promise<WireConnection> {
    if (this.closed) throw new Error('wire reads: closed');
    let best: WireConnection | undefined;
    for (const c of this.connections) {
      if (c.inFlight === 0) return c;
      if (!best || c.inFlight < best.inFlight) best = c;
    }
    if (this.connections.length < this.maxConnections || !best) {
      this.opening ??= this.open().finally(() => {
        this.opening = null;
      });
      if (!best) return this.opening;
      // Opening one more; meanwhile the least busy one takes the request.
      this.opening.catch(() => {});
    }
    return best;
  }

  private open(): Promise<WireConnection> {
    return new Promise<WireConnection>((resolve, reject) => {
      const socket = net.connect({ host: this.target.host, port: this.target.port });
      const timer = setTimeout(() => socket.destroy(new Error(`wire reads: no connection within ${this.connectTimeoutMs} ms`)), this.connectTimeoutMs);
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        if (this.closed) {
          socket.destroy();
          reject(new Error('wire reads: closed'));
          return;
        }
        const conn = new WireConnection(socket, (c) => {
          const i = this.connections.indexOf(c);
          if (i >= 0) this.connections.splice(i, 1);
        });
        this.connections.push(conn);
        resolve(conn);
      });
    });
  }
}
