import type { Filter } from 'mongodb';
import type { CollectionSpec, Database } from './database';
import type { ScopedCollection } from './scoped-collection';
import type { ScopeRef } from './scope';

/** What every workflow-backed run record has: a server key (`_id`) and the caller-visible run_id. */
export interface RunRecord {
  _id: string;
  run_id: string;
}

/**
 * The run records of one family (automation, replay, sandbox) in one tenant+scope: the reads and
 * the insert every family does the same way. Each family's store extends it with its own state
 * changes (each one conditional, so racing writers agree).
 */
export class ScopedRuns<R extends RunRecord> {
  protected readonly coll: ScopedCollection<R>;
  constructor(
    db: Database,
    collection: CollectionSpec,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<R>(collection, ref);
  }

  /** By the caller-visible run_id. */
  async get(runId: string): Promise<R | null> {
    return (await this.coll.findOne({ run_id: runId } as Filter<R>)) as R | null;
  }

  /** Several runs by caller id in one query (waiters on runs/get poll them together). */
  async getMany(runIds: string[]): Promise<R[]> {
    return (await this.coll.find({ run_id: { $in: runIds } } as Filter<R>)) as R[];
  }

  /** By the server key (`_id`). */
  async getByKey(runKey: string): Promise<R | null> {
    return (await this.coll.findOne({ _id: runKey } as Filter<R>)) as R | null;
  }

  /** Inserts a new run; null when the run_id is taken (the caller decides: idempotent repeat or conflict). */
  async insert(doc: R): Promise<R | null> {
    return this.coll.insertNew(doc);
  }
}
