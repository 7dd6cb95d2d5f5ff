/**
 * Cross-process catch-up of the in-process recall index (docs/memory.md, "Catch-up").
 *
 * Every node mutation takes a number from one shared, dense sequence (store/memory/sequence.ts).
 * A process applies its own writes to its index synchronously and notes their seqs; before
 * serving a read it moves its watermark over its own seqs and asks the store for `seq > maxSeen`
 * (an indexed range of {id, seq} pairs, usually empty); only changes it does not hold are loaded.
 * Two things make a plain watermark unsafe:
 *
 * - Out-of-order commits. Seq S is allocated before S+1 but may commit after it; a reader that saw
 *   S+1 and moved its watermark past S would never see S. So every unseen seq below the highest
 *   seen is a *hole*, remembered with the time it was first noticed and re-read by `seq $in` on
 *   every catch-up until it turns up or expires (holeTtlMs, default 30 s).
 * - Overwritten seqs. An update gives a node a new seq, so an older seq of that node may never
 *   appear again (and a gap left by an allocation that never committed never will). Holes
 *   therefore expire, and the hole set is capped (oldest dropped first) so a burst cannot make
 *   reads pay for an unbounded `$in`.
 *
 * `apply` may answer with seqs it could not apply yet (a result that raced with a local write of
 * the same node, see RecallIndex.applyRemote); they are re-read like holes on the next pass.
 *
 * Reads share catch-ups: a read that arrives while one is in flight waits for the *next* one
 * (which starts after the current finishes), because the in-flight query may have been issued
 * before the write the reader wants to see was acknowledged. Passes never overlap.
 *
 * Head probe. A seq is allocated before its write is sent, so every write acknowledged before a
 * pass began carries a seq no higher than the sequence's head read during that pass. When the head
 * is not above the watermark (after skipping this process's own seqs), every such seq is at or
 * below the watermark: seen, written here, or a tracked hole (re-read below). The range query is
 * then skipped. The head is one exact lookup in the small counters collection, which the local
 * MongoDB-compatible server locks separately from the nodes collection; the range query would wait
 * behind every concurrent recall's load of its hits (that server serialises the queries of one
 * collection), and each recall waits for a whole pass, so this keeps concurrent recalls from
 * queueing behind each other's catch-up.
 */

/** Seqs this close below the start-up watermark may still be committing: watched as holes. */
export const STARTUP_HOLE_WINDOW = 1000;

export interface ChangeFeed<T extends { seq: number }> {
  /** Items with seq > afterSeq, ascending by seq, at most `limit`. */
  after(afterSeq: number, limit: number): Promise<T[]>;
  /** Items whose current seq is one of `seqs`. */
  at(seqs: number[]): Promise<T[]>;
  /**
   * Optional: the highest seq handed out so far (allocated, not necessarily committed). When it is
   * not above the watermark, the range query is skipped (see "Head probe" above).
   */
  head?(): Promise<number>;
}

export interface CatchUpOptions {
  /** Items per range query; a full batch is followed by another (default 1000). */
  batch?: number;
  /** How long an unseen seq is re-read before it is given up (default 30 000 ms). */
  holeTtlMs?: number;
  /** At most this many holes are tracked; the oldest are dropped first (default 1000). */
  maxHoles?: number;
  now?: () => number;
}

/**
 * `apply(items, mark)` receives what a query returned and the value `mark()` had just before the
 * query was issued, so the index can tell a result older than its own local writes; it returns
 * the seqs it skipped for that reason (to be re-read), or nothing.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: an apply that returns nothing is the common case
export type Apply<T> = (items: T[], mark: number) => Promise<number[] | void> | number[] | void;

export class CatchUp<T extends { seq: number }> {
  private maxSeen = 0;
  private readonly holes = new Map<number, number>(); // seq -> first noticed (ms); insertion order = age
  private readonly local = new Map<number, string | null>(); // seq -> id, for seqs above the watermark this process wrote and applied
  private current: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private readonly batch: number;
  private readonly ttl: number;
  private readonly maxHoles: number;
  private readonly now: () => number;
  private passes = 0;
  private holesFound = 0;
  private holesExpired = 0;
  private lastPassAt = 0;

  constructor(
    private readonly feed: ChangeFeed<T>,
    private readonly apply: Apply<T>,
    private readonly mark: () => number = () => 0,
    opts: CatchUpOptions = {},
  ) {
    this.batch = Math.max(1, opts.batch ?? 1000);
    this.ttl = opts.holeTtlMs ?? 30_000;
    this.maxHoles = Math.max(1, opts.maxHoles ?? 1000);
    this.now = opts.now ?? Date.now;
  }

  /**
   * Sets the starting point after a full load: `maxSeen` is the watermark; `recentUnseen` are seqs
   * below it that the load did not see but that may still commit (treated as holes).
   */
  init(maxSeen: number, recentUnseen: Iterable<number> = []): void {
    this.maxSeen = maxSeen;
    const at = this.now();
    for (const s of recentUnseen) if (s <= maxSeen) this.addHole(s, at);
  }

  /**
   * Loads everything through `scan` (items handed to `apply` as they come), then sets the starting
   * point: the highest seq seen, with the seqs within STARTUP_HOLE_WINDOW below the `watermark`
   * read before the scan that the scan did not see (they may still be committing) as holes.
   */
  async initFromScan<U extends { seq: number }>(watermark: number, scan: AsyncIterable<U>, apply: (item: U) => void): Promise<void> {
    const recent = new Set<number>();
    let maxSeq = watermark;
    for await (const item of scan) {
      apply(item);
      if (item.seq > watermark - STARTUP_HOLE_WINDOW) recent.add(item.seq);
      if (item.seq > maxSeq) maxSeq = item.seq;
    }
    const unseen: number[] = [];
    for (let s = Math.max(1, watermark - STARTUP_HOLE_WINDOW + 1); s <= maxSeq; s += 1) if (!recent.has(s)) unseen.push(s);
    this.init(maxSeq, unseen);
  }

  /**
   * A seq this process wrote and already applied (with the node's id): the watermark may pass it
   * without a query, and a query result carrying it for that node needs no load.
   */
  noteLocal(seq: number, id: string | null = null): void {
    if (seq > this.maxSeen) this.local.set(seq, id);
  }

  /**
   * A seq this process reserved and will never use (store/memory/sequence.ts): nothing will ever
   * carry it, so the watermark may pass it and it need not be re-read as a hole.
   */
  noteAbandoned(seq: number): void {
    if (seq > this.maxSeen) this.local.set(seq, null);
    else this.holes.delete(seq);
  }

  /** Whether `item` is one this process noted: same seq and, when both are known, same id. */
  private takeLocal(item: T): boolean {
    if (!this.local.has(item.seq)) return false;
    const id = this.local.get(item.seq);
    const itemId = (item as { id?: unknown }).id;
    if (id !== null && typeof itemId === 'string' && itemId !== id) return false;
    this.local.delete(item.seq);
    return true;
  }

  get watermark(): number {
    return this.maxSeen;
  }

  /** When the last pass started (ms, the injected clock); 0 before the first. */
  get lastPass(): number {
    return this.lastPassAt;
  }

  get stats(): { watermark: number; holes: number; local_pending: number; passes: number; holes_found: number; holes_expired: number } {
    return {
      watermark: this.maxSeen,
      holes: this.holes.size,
      local_pending: this.local.size,
      passes: this.passes,
      holes_found: this.holesFound,
      holes_expired: this.holesExpired,
    };
  }

  /** The tracked holes, oldest first (tests and diagnostics). */
  holeSeqs(): number[] {
    return [...this.holes.keys()];
  }

  /** Resolves once everything acknowledged before this call is applied. Passes never overlap. */
  sync(): Promise<void> {
    if (this.next) return this.next;
    if (this.current) {
      // A pass is in flight; its queries may predate our caller's write. Share the following one.
      this.next = this.current
        .catch(() => {})
        .then(() => {
          this.next = null;
          return this.startPass();
        });
      return this.next;
    }
    return this.startPass();
  }

  private startPass(): Promise<void> {
    const p: Promise<void> = this.pass().finally(() => {
      if (this.current === p) this.current = null;
    });
    this.current = p;
    return p;
  }

  private addHole(seq: number, at: number): void {
    if (this.holes.has(seq)) return;
    this.holes.set(seq, at);
    while (this.holes.size > this.maxHoles) {
      const oldest = this.holes.keys().next().value as number;
      this.holes.delete(oldest);
      this.holesExpired += 1;
    }
  }

  /** Moves the watermark over this process's own seqs directly above it. */
  private skipLocal(): void {
    while (this.local.has(this.maxSeen + 1)) {
      this.maxSeen += 1;
      this.local.delete(this.maxSeen);
    }
  }

  private async applyAndRequeue(items: T[], mark: number): Promise<void> {
    const again = await this.apply(items, mark);
    if (again && again.length > 0) {
      const at = this.now();
      for (const s of again) this.addHole(s, at);
    }
  }

  private async pass(): Promise<void> {
    this.passes += 1;
    this.lastPassAt = this.now();
    this.skipLocal();
    // New changes, in seq order, batch by batch (none to look for when the head is not above the watermark).
    let head = this.feed.head ? await this.feed.head() : Infinity;
    // Everything at or below the watermark was allocated before the head was read, so a head below
    // it means the counter is not what this process has been reading (e.g. a restored database
    // without its counters): trust the range query instead.
    if (head < this.maxSeen) head = Infinity;
    this.skipLocal(); // local writes acknowledged while the head was read
    for (; head > this.maxSeen; ) {
      this.skipLocal();
      const mark = this.mark();
      const items = await this.feed.after(this.maxSeen, this.batch);
      const at = this.now();
      const fresh: T[] = [];
      for (const item of items) {
        if (item.seq <= this.maxSeen) continue; // defensive: the feed promised ascending seq > maxSeen
        const gap = item.seq - this.maxSeen - 1;
        // Unseen seqs below this one are holes, unless this process wrote them (then we have them).
        for (let s = Math.max(this.maxSeen + 1, item.seq - this.maxHoles); s < item.seq; s += 1) {
          if (this.local.delete(s)) continue;
          this.addHole(s, at);
        }
        if (gap > this.maxHoles) this.holesExpired += gap - this.maxHoles;
        this.maxSeen = item.seq;
        if (!this.takeLocal(item)) fresh.push(item);
      }
      if (fresh.length > 0) await this.applyAndRequeue(fresh, mark);
      if (items.length < this.batch) break;
    }
    this.skipLocal();
    // Holes: commits that were still in flight when a higher seq was seen.
    if (this.holes.size > 0) {
      const mark = this.mark();
      const wanted = [...this.holes.keys()];
      const found = await this.feed.at(wanted);
      for (const item of found) {
        if (this.holes.delete(item.seq)) this.holesFound += 1;
      }
      if (found.length > 0) await this.applyAndRequeue(found, mark);
      const cutoff = this.now() - this.ttl;
      for (const [seq, first] of this.holes) {
        if (first > cutoff) break; // insertion order is age order
        this.holes.delete(seq);
        this.holesExpired += 1;
      }
    }
  }
}
