import { type Database, defineCollection } from '../database';
import { scopeRef, type ScopeRef } from '../scope';

export const outboxCollection = defineCollection({ name: 'replay_learning_outbox', indexes: [] });

interface OutboxDoc {
  /** The replay run's server key. */
  _id: string;
  tenant_id: string;
  scope: string;
  run_id: string;
  enqueued_at: string;
  attempts: number;
}

/**
 * Successful runs of active playbooks waiting to be fed to workflow learning. The worker ends runs
 * but learning lives in the API process, so the worker's activity leaves an entry here and the API
 * drains it (domain/replay/learning-feed.ts). A work queue, not tenant data: each entry names its
 * own tenant+scope, and the run itself is read back through the scoped store.
 */
export class LearningOutbox {
  constructor(private readonly db: Database) {}

  private get coll() {
    return this.db.raw<OutboxDoc>(outboxCollection);
  }

  async enqueue(ref: ScopeRef, runKey: string, runId: string, at: string): Promise<void> {
    await this.coll.updateOne({ _id: runKey } as never, { $setOnInsert: { tenant_id: ref.tenant_id, scope: ref.scope, run_id: runId, enqueued_at: at, attempts: 0 } } as never, {
      upsert: true,
    });
  }

  /** Some waiting entries (the queue is short: entries live seconds). */
  async peek(limit: number): Promise<{ runKey: string; ref: ScopeRef; attempts: number }[]> {
    const docs = (await this.coll.find({}).limit(limit).toArray()) as unknown as OutboxDoc[];
    return docs.map((d) => ({ runKey: d._id, ref: scopeRef(d.tenant_id, d.scope), attempts: d.attempts }));
  }

  async failed(runKey: string): Promise<void> {
    await this.coll.updateOne({ _id: runKey } as never, { $inc: { attempts: 1 } } as never);
  }

  async done(runKey: string): Promise<void> {
    await this.coll.deleteOne({ _id: runKey } as never);
  }
}
