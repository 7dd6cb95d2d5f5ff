import type { NodeStore, SeqRef, StoredNode } from '../../store/memory/nodes';
import { CatchUp } from '../memory/catch-up';

/**
 * Follows the node store's change feed (the shared write sequence) for changes made by other
 * processes: the worker's activities, other API processes, and this process's own non-learning
 * updates (lifecycle tier changes). The memory family's CatchUp does the feed reading (holes,
 * out-of-order commits, the head probe); this class adds what learning needs on top:
 *
 * - The feed is read as {id, seq} pairs; only the changes this process did not handle itself are
 *   loaded whole. Its own writes (seen by the write listener) and learned-node updates are noted
 *   with their seqs, and the numbers its sequence allocator gave up are noted as abandoned, so the
 *   watermark passes all of them without a query: a burst of local writes costs a later read
 *   nothing. (Before, one gap in the local seqs made the next read load every node written since,
 *   whole: 26 s for the first planning request after 100 000 writes.)
 * - Handling is asynchronous (learning from a remote execution writes nodes); sync() waits for
 *   it, so a read after sync() sees what other processes wrote before it started.
 * - The learning runtime also calls sync() in the background every second, so the backlog a read
 *   finds is at most a second's worth of other processes' writes.
 */

export class RemoteFollower {
  private readonly feed: CatchUp<SeqRef>;
  private pending: Promise<void> = Promise.resolve();
  /** Nodes loaded whole so far (other processes' changes; this process's own are never loaded). */
  loaded = 0;

  constructor(
    private readonly store: NodeStore,
    private readonly handle: (nodes: StoredNode[]) => Promise<void>,
    private readonly onError: (err: Error) => void,
  ) {
    this.feed = new CatchUp<SeqRef>({ after: (seq, limit) => store.seqsSince(seq, limit), at: (seqs) => store.seqsAt(seqs), head: () => store.currentSeq() }, (refs) =>
      this.apply(refs),
    );
  }

  start(watermark: number): void {
    this.feed.init(watermark);
  }

  /** A seq this process produced and handled itself (with the node's id when known). */
  local(seq: number, id: string | null = null): void {
    this.feed.noteLocal(seq, id);
  }

  /** Numbers this process's sequence allocator reserved and will never use. */
  abandoned(first: number, last: number): void {
    for (let s = first; s <= last; s += 1) this.feed.noteAbandoned(s);
  }

  get watermark(): number {
    return this.feed.watermark;
  }

  /** The feed's watermark, holes and passes, and how many nodes were loaded. */
  statsOf() {
    return { ...this.feed.stats, loaded: this.loaded };
  }

  /** When the last pass started (ms); 0 before the first. */
  get lastPass(): number {
    return this.feed.lastPass;
  }

  async sync(): Promise<void> {
    await this.feed.sync();
    await this.pending;
  }

  private async apply(refs: SeqRef[]): Promise<void> {
    if (refs.length === 0) return;
    const bySeq = new Map(refs.map((r) => [r.id, r.seq]));
    const nodes = (await this.store.byIds(refs.map((r) => r.id))).sort((a, b) => (bySeq.get(a.id) ?? a.seq) - (bySeq.get(b.id) ?? b.seq));
    this.loaded += nodes.length;
    if (nodes.length === 0) return;
    this.pending = this.pending.then(() => this.handle(nodes)).catch((err: Error) => this.onError(err));
  }
}
