import { nodesCollection, type NodeDoc } from './node-docs';
import type { SeqAllocator } from './sequence';
import type { Database } from '../database';

/** An insert refused by a unique index (_id, or client_id within the scope). */
export class DuplicateNodeKey extends Error {
  constructor(readonly id: string) {
    super(`store: node '${id}' collides with an existing node (duplicate key)`);
    this.name = 'DuplicateNodeKey';
  }
}

export type StampedDoc = NodeDoc & { tenant_id: string; scope: string };

/**
 * Combines the node inserts of one process: while a batch is in flight the next one gathers, then
 * takes one sequence request (usually served from the reserve, sequence.ts) and one unordered
 * insertMany. On the write path that turns a store round trip per write into one per batch.
 *
 * One batch in flight, not several: the local MongoDB-compatible server spends its CPU per
 * command, and on this 2-core machine concurrent single-document inserts do not share its group
 * commits (measured with loreStatus at 100k nodes: 3 batches in flight gave 1.4 documents per
 * insertMany, a commit group size of 1.08 and 180 writes/s at concurrency 8, against ~3 documents
 * per insertMany with one in flight). `maxInFlight` stays a parameter for such measurements.
 */
export class InsertCombiner {
  private pending: { docs: StampedDoc[]; done: (errors: (Error | undefined)[]) => void }[] = [];
  private inFlight = 0;

  constructor(
    private readonly db: Database,
    private readonly seqs: SeqAllocator,
    private readonly maxInFlight = 1,
  ) {}

  /**
   * Inserts documents (already stamped with their scope by ScopedNodes) and gives each its seq.
   * Concurrent callers are combined (see the class comment). Resolves with one entry per
   * document: undefined when inserted, DuplicateNodeKey when a unique index refused it, or the
   * error that failed the batch.
   */
  insert(docs: StampedDoc[]): Promise<(Error | undefined)[]> {
    return new Promise((done) => {
      this.pending.push({ docs, done });
      if (this.inFlight < this.maxInFlight) void this.send();
    });
  }

  private async send(): Promise<void> {
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    this.inFlight += 1;
    try {
      const docs = batch.length === 1 ? batch[0]!.docs : batch.flatMap((b) => b.docs);
      const errors: (Error | undefined)[] = new Array(docs.length).fill(undefined);
      try {
        const first = await this.seqs.next(docs.length);
        docs.forEach((d, i) => (d.seq = first + i));
        await this.db.raw<NodeDoc>(nodesCollection).insertMany(docs as never[], { ordered: false });
      } catch (err) {
        const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
        const list = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []) as { index?: number; code?: number; err?: { index?: number; code?: number } }[];
        if (list.length === 0) errors.fill(err as Error);
        for (const e of list) {
          const i = e.index ?? e.err?.index;
          if (i === undefined) continue;
          errors[i] = (e.code ?? e.err?.code) === 11000 ? new DuplicateNodeKey(docs[i]!._id) : (err as Error);
        }
      }
      let at = 0;
      for (const b of batch) {
        b.done(errors.slice(at, at + b.docs.length));
        at += b.docs.length;
      }
    } finally {
      this.inFlight -= 1;
      if (this.pending.length > 0) void this.send();
    }
  }
}
