import type { LogEntryDoc, LogStream } from '../../model/sandbox/records';
import { type Database, defineCollection, isDuplicateKey } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

export const logsCollection = defineCollection({
  name: 'sandbox_logs',
  // _id (`<run key>:<seq>`) makes entries unique; this non-unique index serves the range read in seq order.
  indexes: [{ key: { tenant_id: 1, scope: 1, run_key: 1, seq: 1 }, name: 'scope_run_seq', why: 'runs/logs pages through a run’s entries in seq order' }],
});

export const logEntryId = (runKey: string, seq: number) => `${runKey}:${String(seq).padStart(9, '0')}`;

/** Output entries of sandbox runs in one tenant+scope. */
export class SandboxLogs {
  private readonly coll: ScopedCollection<LogEntryDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<LogEntryDoc>(logsCollection, ref);
  }

  /** Appends a batch in order. Entries already stored (a repeated batch) are skipped, not duplicated. */
  async append(entries: LogEntryDoc[]): Promise<void> {
    if (entries.length === 0) return;
    try {
      await this.coll.insertMany(entries);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      for (const e of entries) await this.coll.insertNew(e);
    }
  }

  async page(runKey: string, opts: { afterSeq: number; limit: number; stream?: LogStream }): Promise<LogEntryDoc[]> {
    const filter: Record<string, unknown> = { run_key: runKey, seq: { $gt: opts.afterSeq } };
    if (opts.stream) filter.stream = opts.stream;
    return this.coll.find(filter, { sort: { seq: 1 }, limit: opts.limit });
  }

  /** Streams every entry of a run in order (the artifact bundle's output). */
  iterate(runKey: string): AsyncGenerator<LogEntryDoc> {
    return this.coll.iterate({ run_key: runKey }, { sort: { seq: 1 }, batchSize: 200 });
  }
}
