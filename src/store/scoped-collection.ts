import type { AnyBulkWriteOperation, Collection, Document, Filter, FindOneAndUpdateOptions, OptionalUnlessRequiredId, Sort, UpdateFilter, WithId } from 'mongodb';
import { isDuplicateKey } from './mongo-errors';
import type { ScopeRef } from './scope';
import { traceStore, type StoreCall } from './tracing';

export type Scoped<T> = T & { tenant_id: string; scope: string };

export interface FindOptions {
  sort?: Sort;
  limit?: number;
  skip?: number;
  projection?: Document;
}

const FORBIDDEN_KEYS = ['tenant_id', 'scope'];

function assertNoScopeChange(update: Document): void {
  for (const op of Object.values(update)) {
    if (op && typeof op === 'object') {
      for (const key of FORBIDDEN_KEYS) {
        if (key in op) throw new Error(`store: an update may not change '${key}'`);
      }
    }
  }
}

/**
 * A collection seen through one tenant+scope. Every filter is ANDed with the scope, every insert
 * is stamped with it, and updates may not move a document out of it. Store modules use only
 * this; the raw collection never leaves store/.
 */
export class ScopedCollection<T extends Document> {
  constructor(
    private readonly coll: Collection<Scoped<T>>,
    readonly ref: ScopeRef,
  ) {}

  /** The span description of one call (built only when tracing is on). */
  private call(operation: string): () => StoreCall {
    return () => ({ collection: this.coll.collectionName, operation, database: this.coll.dbName, tenant_id: this.ref.tenant_id, scope: this.ref.scope });
  }

  private filter(filter: Filter<T> = {}): Filter<Scoped<T>> {
    return { ...(filter as Document), tenant_id: this.ref.tenant_id, scope: this.ref.scope } as Filter<Scoped<T>>;
  }

  private stamp(doc: T): OptionalUnlessRequiredId<Scoped<T>> {
    return { ...doc, tenant_id: this.ref.tenant_id, scope: this.ref.scope } as OptionalUnlessRequiredId<Scoped<T>>;
  }

  async findOne(filter: Filter<T>, options: FindOptions = {}): Promise<WithId<Scoped<T>> | null> {
    return traceStore(this.call('findOne'), () => this.coll.findOne(this.filter(filter), options));
  }

  async find(filter: Filter<T>, options: FindOptions = {}): Promise<WithId<Scoped<T>>[]> {
    const cursor = this.coll.find(this.filter(filter), { projection: options.projection });
    if (options.sort) cursor.sort(options.sort);
    if (options.skip) cursor.skip(options.skip);
    if (options.limit) cursor.limit(options.limit);
    return traceStore(this.call('find'), () => cursor.toArray());
  }

  /** Streams matching documents in batches (for exports and index builds). */
  async *iterate(filter: Filter<T>, options: FindOptions & { batchSize?: number } = {}): AsyncGenerator<WithId<Scoped<T>>> {
    const cursor = this.coll.find(this.filter(filter), { projection: options.projection, batchSize: options.batchSize ?? 500 });
    if (options.sort) cursor.sort(options.sort);
    try {
      for await (const doc of cursor) yield doc;
    } finally {
      await cursor.close();
    }
  }

  async count(filter: Filter<T> = {}): Promise<number> {
    return traceStore(this.call('countDocuments'), () => this.coll.countDocuments(this.filter(filter)));
  }

  async insertOne(doc: T): Promise<void> {
    await traceStore(this.call('insertOne'), () => this.coll.insertOne(this.stamp(doc)));
  }

  /** Inserts `doc`; null when a unique index already holds its key (the caller decides: idempotent repeat or conflict). */
  async insertNew(doc: T): Promise<T | null> {
    try {
      await this.insertOne(doc);
      return doc;
    } catch (err) {
      if (isDuplicateKey(err)) return null;
      throw err;
    }
  }

  async insertMany(docs: T[]): Promise<void> {
    if (docs.length > 0)
      await traceStore(this.call('insertMany'), () =>
        this.coll.insertMany(
          docs.map((d) => this.stamp(d)),
          { ordered: true },
        ),
      );
  }

  async updateOne(filter: Filter<T>, update: UpdateFilter<T>, options: { upsert?: boolean } = {}): Promise<{ matched: number; modified: number; upserted: boolean }> {
    assertNoScopeChange(update as Document);
    const r = await traceStore(this.call('updateOne'), () => this.coll.updateOne(this.filter(filter), update as UpdateFilter<Scoped<T>>, options));
    return { matched: r.matchedCount, modified: r.modifiedCount, upserted: r.upsertedCount > 0 };
  }

  async updateMany(filter: Filter<T>, update: UpdateFilter<T>): Promise<number> {
    assertNoScopeChange(update as Document);
    const r = await traceStore(this.call('updateMany'), () => this.coll.updateMany(this.filter(filter), update as UpdateFilter<Scoped<T>>));
    return r.modifiedCount;
  }

  async findOneAndUpdate(
    filter: Filter<T>,
    update: UpdateFilter<T>,
    options: Pick<FindOneAndUpdateOptions, 'upsert' | 'returnDocument' | 'projection' | 'sort'> = {},
  ): Promise<WithId<Scoped<T>> | null> {
    assertNoScopeChange(update as Document);
    return traceStore(this.call('findOneAndUpdate'), () =>
      this.coll.findOneAndUpdate(this.filter(filter), update as UpdateFilter<Scoped<T>>, {
        returnDocument: 'after',
        ...options,
        includeResultMetadata: false,
      }),
    );
  }

  /** Bulk writes inside the scope: filters are scoped, inserted documents stamped. */
  async bulkWrite(ops: AnyBulkWriteOperation<T>[], ordered = true): Promise<void> {
    if (ops.length === 0) return;
    const scopedOps = ops.map((op) => {
      // biome-ignore lint/suspicious/noExplicitAny: one bulk operation of any of the driver's kinds, rebuilt with the scope
      const o = op as Record<string, any>;
      if (o.insertOne) return { insertOne: { document: this.stamp(o.insertOne.document) } };
      for (const kind of ['updateOne', 'updateMany', 'replaceOne', 'deleteOne', 'deleteMany']) {
        if (o[kind]) {
          if (o[kind].update) assertNoScopeChange(o[kind].update);
          const spec = { ...o[kind], filter: this.filter(o[kind].filter) };
          if (kind === 'replaceOne') spec.replacement = this.stamp(o[kind].replacement);
          return { [kind]: spec };
        }
      }
      throw new Error('store: unsupported bulk operation');
    });
    await traceStore(this.call('bulkWrite'), () => this.coll.bulkWrite(scopedOps as AnyBulkWriteOperation<Scoped<T>>[], { ordered }));
  }

  async deleteMany(filter: Filter<T>): Promise<number> {
    const r = await traceStore(this.call('deleteMany'), () => this.coll.deleteMany(this.filter(filter)));
    return r.deletedCount;
  }

  /** Aggregation inside the scope: a leading $match on the scope is always prepended. */
  async aggregate<R extends Document>(pipeline: Document[]): Promise<R[]> {
    return traceStore(this.call('aggregate'), () => this.coll.aggregate<R>([{ $match: this.filter({}) }, ...pipeline]).toArray());
  }
}
