import { MongoClient, type Collection, type Db, type Document, type IndexDescription } from 'mongodb';
import { ScopedCollection, type Scoped } from './scoped-collection';
import type { ScopeRef } from './scope';

export interface CollectionSpec {
  name: string;
  /** Each index with the reason it exists (the query it serves). */
  indexes: (IndexDescription & { why: string })[];
}

/** Duplicate key on a unique index (insert or upsert race). */
export { isDuplicateKey } from './mongo-errors';

/**
 * The MongoDB connection and the collection registry. Store modules declare their collections
 * and indexes with defineCollection(); ensureIndexes() creates them all at start.
 */
export class Database {
  private constructor(
    readonly client: MongoClient,
    readonly db: Db,
  ) {}

  static async connect(uri: string, database: string): Promise<Database> {
    const client = new MongoClient(uri, {
      maxPoolSize: 32,
      serverSelectionTimeoutMS: 10_000,
      connectTimeoutMS: 10_000,
      retryWrites: false,
      appName: 'lore',
    });
    await client.connect();
    return new Database(client, client.db(database));
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
    await this.client.close();
  }
}

export function defineCollection(spec: CollectionSpec): CollectionSpec {
  return spec;
}
