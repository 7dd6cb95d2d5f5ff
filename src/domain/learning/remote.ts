import type { NodeStore, StoredNode } from '../../store/memory/nodes';
import { CatchUp } from '../memory/catch-up';

/**
 * Follows the node store's change feed (the shared write sequence) for changes made by other
 * processes: the worker's activities, other API processes, and this process's own non-learning
 * updates (lifecycle tier changes). The memory family's CatchUp does the feed reading (holes,
 * out-of-order commits); this class adds what learning needs on top:
 *
 * - Changes this process already handled (its writes seen by the write listener, its own
 *   learned-node updates) are skipped by seq, and the watermark jumps over a contiguous run of
 *   them, so a burst of local writes does not make the next read re-fetch them all.
 * - Handling is asynchronous (learning from a remote execution writes nodes); sync() waits for
 *   it, so a read after sync() sees what other processes wrote before it started.
 */

const MAX_LOCAL = 200_000;

export class RemoteFollower {
  private readonly feed: CatchUp<StoredNode>;
  private readonly localSeqs = new Set<number>();
  private pending: Promise<void> = Promise.resolve();

  constructor(
    store: NodeStore,
    private readonly handle: (nodes: StoredNode[]) => Promise<void>,
    private readonly onError: (err: Error) => void,
  ) {
    this.feed = new CatchUp<StoredNode>({ after: (seq, limit) => store.changesSince(seq, limit), at: (seqs) => store.changesAt(seqs) }, (items) => this.apply(items));
  }

  start(watermark: number): void {
    this.feed.init(watermark);
  }

  /** A seq this process produced and handled itself. */
  local(seq: number): void {
    if (seq <= this.feed.watermark) return;
    // A reader that never syncs must not grow this without bound; the feed then re-delivers a few
    // local changes, which learning handles idempotently.
    if (this.localSeqs.size >= MAX_LOCAL) this.localSeqs.clear();
    this.localSeqs.add(seq);
  }

  get watermark(): number {
    return this.feed.watermark;
  }

  async sync(): Promise<void> {
    let w = this.feed.watermark;
    while (this.localSeqs.delete(w + 1)) w += 1;
    if (w > this.feed.watermark) this.feed.init(w);
    await this.feed.sync();
    await this.pending;
  }

  private apply(items: StoredNode[]): void {
    const remote = items.filter((n) => !this.localSeqs.delete(n.seq));
    if (remote.length === 0) return;
    this.pending = this.pending.then(() => this.handle(remote)).catch((err: Error) => this.onError(err));
  }
}
