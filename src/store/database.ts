import { MongoClient, type Collection, type Db, type Document, type Filter, type IndexDescription } from 'mongodb';
import { ScopedCollection, type Scoped } from './scoped-collection';
import type { ScopeRef } from './scope';
import { traceStore } from './tracing';
import { WireReads, wireReadsTarget, type WireFind, type WireReadsStats } from './wire-reads';

export interface CollectionSpec {
  name: string;
  /** Each index with the reason it exists (the query it serves). */
  indexes: (IndexDescription & { why: string })[];
}

/** Duplicate key on a unique index (insert or upsert race). */
export { isDuplicateKey } from './mongo-errors';

export interface ConnectOptions {
  /**
   * Hot reads over plain OP_MSG (wire-reads.ts): `auto` (default) uses them when the connection
   * string allows (one host, no credentials, no options but directConnection=true); `off` never.
   */
  wireReads?: 'auto' | 'off';
}

/**
 * The MongoDB connection and the collection registry. Store modules declare their collections
 * and indexes with defineCollection(); ensureIndexes() creates them all at start.
 */
export class Database {
  /** Reads that fell back to the driver after the wire read failed (diagnostics, tests). */
  wireFallbacks = 0;

  private constructor(
    readonly client: MongoClient,
    readonly db: Db,
    private readonly wire: WireReads | null,
  ) {}

  static async connect(uri: string, database: string, opts: ConnectOptions = {}): Promise<Database> {
    const client = new MongoClient(uri, {
      maxPoolSize: 32,
      serverSelectionTimeoutMS: 10_000,
      connectTimeoutMS: 10_000,
      retryWrites: false,
      appName: 'lore',
    });
    await client.connect();
    const target = opts.wireReads === 'off' ? null : wireReadsTarget(uri);
    return new Database(client, client.db(database), target ? new WireReads(target, database) : null);
  }

  /** The wire reads' counters, or null when hot reads go through the driver (see ConnectOptions). */
  get wireReads(): WireReadsStats | null {
    return this.wire?.stats ?? null;
  }

  /**
   * A read-only query's documents, for the hot paths: through the wire reads when they are on,
   * through the driver when they are off or the wire read failed (the driver then answers or
   * fails as usual). `T` is the stored document's shape.
   */
  async findAll<T extends Document>(spec: CollectionSpec, q: WireFind): Promise<T[]> {
    return traceStore(
      () => ({ collection: spec.name, operation: 'find', database: this.db.databaseName }),
      () => this.findAllNow<T>(spec, q),
    );
  }

  private async findAllNow<T extends Document>(spec: CollectionSpec, q: WireFind): Promise<T[]> {
    if (this.wire) {
      try {
        return await this.wire.find<T>(spec.name, q);
      } catch {
        this.wireFallbacks += 1;
      }
    }
    let cursor = this.db.collection<T>(spec.name).find(q.filter as Filter<T>, q.projection ? { projection: q.projection } : {});
    if (q.sort) cursor = cursor.sort(q.sort);
    if (q.limit !== undefined && q.limit > 0) cursor = cursor.limit(q.limit);
    return (await cursor.toArray()) as T[];
  }

  /** The raw collection, for store modules only (never exported past store/). */
  raw<T extends Document>(spec: CollectionSpec): Collection<Scoped<T>> {
    return this.db.collection<Scoped<T>>(spec.name);
  }

  /** A collection bound to one tenant+scope: the normal way in. */
  scoped<T extends Document>(spec: CollectionSpec, ref: ScopeRef): ScopedCollection<T> {
    return new ScopedCollection<T>(this.raw<T>(spec), ref);
  }

  async ensureIndexes(specs: CollectionSpec[]): Promise<void> {
    for (const spec of specs) {
      if (spec.indexes.length === 0) continue;
      await this.db.collection(spec.name).createIndexes(spec.indexes.map(({ why: _why, ...idx }) => idx));
    }
  }

  async ping(): Promise<{ version: string | null }> {
    const info = await this.db.admin().command({ buildInfo: 1 });
    return { version: typeof info.version === 'string' ? info.version : null };
  }

  async close(): Promise<void> {
    this.wire?.close();
    await this.client.close();
  }
}

export function defineCollection(spec: CollectionSpec): CollectionSpec {
  return spec;
}
