import { createHash } from 'node:crypto';
import type { Log } from '../../log';
import { WAIT_CONDITIONS, type WaitCondition } from '../../model/wait';

/**
 * Long-polling reads of run records (`runs/get` with `wait_ms` and `until`, docs/automation.md,
 * "Waiting for a run"). A run's state lives in the store: the workflow's activities write it (the
 * automation mirror, the sandbox runner, the playbook runner's bookkeeping), often from another
 * process (the worker), so there is nothing in the API process to be notified by, and the local
 * MongoDB-compatible server has no change streams. So the waiter polls the store, but cheaply:
 *
 * - all waiters of one family and scope share one reader, and every poll reads all the runs then
 *   due in ONE query (`run_id $in [...]`), however many clients wait on them;
 * - each waiter is checked 50 ms after it starts waiting, then less and less often, every 500 ms
 *   at most: a change is seen within half a second, and a run that does not change costs two
 *   batched reads a second for all its waiters together;
 * - nothing runs when nobody waits; a waiter whose client went away is dropped.
 *
 * A Temporal query or update per waiter would ask the worker (a workflow task per wait, and for an
 * update a history event each), which is the part of the system least able to take load from
 * readers; the store is what runs/get reads anyway.
 */

export const MAX_WAIT_MS = 30_000;
export { WAIT_CONDITIONS, type WaitCondition } from '../../model/wait';
/** `until` as parsed: a condition, or "changed from this version". */
export type Until = { condition: WaitCondition } | { changedFrom: string };

const VERSION = /^[0-9a-f]{16}$/;
export const isVersion = (s: string) => VERSION.test(s);

export function parseUntil(until: string): Until {
  return (WAIT_CONDITIONS as readonly string[]).includes(until) ? { condition: until as WaitCondition } : { changedFrom: until };
}

/** A token that changes whenever the record changes: a hash of what the store holds for it. */
export function versionOf(...parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

/** One family's records of one scope, read in batches by id. */
export interface WaitSource<T> {
  /** Identifies the family and scope: waiters with the same key share reads. */
  key: string;
  read(ids: string[]): Promise<Map<string, T>>;
}

const FIRST_CHECK_MS = 50;
const MAX_CHECK_MS = 500;
const GROWTH = 1.5;
/**
 * A waiter is read with the others of its group when it is due within half its own interval (at
 * least this): waiters that started apart fall into the same reads after a few checks.
 */
const COALESCE_MS = 40;

interface Waiter {
  id: string;
  holds: (doc: unknown) => boolean;
  dueAt: number;
  delay: number;
  resolve: (met: boolean) => void;
}

interface Group {
  read: (ids: string[]) => Promise<Map<string, unknown>>;
  waiters: Set<Waiter>;
  timer: NodeJS.Timeout | null;
  reading: boolean;
}

export class RunWaiter {
  private readonly groups = new Map<string, Group>();
  /** Batched reads made so far (benchmarks and tests look at it). */
  reads = 0;

  constructor(private readonly log: Log) {}

  /** Waiters currently waiting (all groups). */
  get waiting(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.waiters.size;
    return n;
  }

  /**
   * Resolves true as soon as `holds` is true of the record the source reads for `id`, false when
   * `timeoutMs` passes or `signal` aborts first. The caller has already checked once (the wait
   * starts only when the condition does not hold yet) and reads the record again afterwards.
   */
  until<T>(source: WaitSource<T>, id: string, holds: (doc: T | undefined) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (timeoutMs <= 0 || signal?.aborted) return Promise.resolve(false);
    let group = this.groups.get(source.key);
    if (!group) {
      group = { read: source.read as Group['read'], waiters: new Set(), timer: null, reading: false };
      this.groups.set(source.key, group);
    }
    const g = group;
    return new Promise<boolean>((resolve) => {
      const stop = (met: boolean) => {
        if (!g.waiters.delete(w)) return;
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        if (g.waiters.size === 0 && !g.reading) this.drop(source.key, g);
        resolve(met);
      };
      // Wall time, not the injected clock: these are real timer delays (a test clock set by hand must not stall or rush them).
      const w: Waiter = { id, holds: holds as (doc: unknown) => boolean, dueAt: Date.now() + FIRST_CHECK_MS, delay: FIRST_CHECK_MS, resolve: stop };
      const deadline = setTimeout(() => stop(false), timeoutMs);
      const onAbort = () => stop(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      g.waiters.add(w);
      this.schedule(source.key, g);
    });
  }

  private drop(key: string, g: Group): void {
    if (g.timer) clearTimeout(g.timer);
    g.timer = null;
    if (this.groups.get(key) === g) this.groups.delete(key);
  }

  private schedule(key: string, g: Group): void {
    if (g.reading || g.waiters.size === 0) return;
    let next = Infinity;
    for (const w of g.waiters) next = Math.min(next, w.dueAt);
    if (g.timer) clearTimeout(g.timer);
    g.timer = setTimeout(() => void this.poll(key, g), Math.max(0, next - Date.now()));
  }

  private async poll(key: string, g: Group): Promise<void> {
    g.timer = null;
    const now = Date.now();
    const due = [...g.waiters].filter((w) => w.dueAt <= now + Math.max(COALESCE_MS, w.delay / 2));
    if (due.length > 0) {
      g.reading = true;
      try {
        this.reads += 1;
        const docs = await g.read([...new Set(due.map((w) => w.id))]);
        for (const w of due) {
          if (w.holds(docs.get(w.id))) w.resolve(true);
          else {
            w.delay = Math.min(MAX_CHECK_MS, w.delay * GROWTH);
            w.dueAt = Date.now() + w.delay;
          }
        }
      } catch (err) {
        // The store hiccuped: the waiters keep waiting (their deadline still ends the wait).
        this.log.debug({ err }, 'run wait: a batched read failed; trying again');
        for (const w of due) w.dueAt = Date.now() + MAX_CHECK_MS;
      } finally {
        g.reading = false;
      }
    }
    if (g.waiters.size === 0) this.drop(key, g);
    else this.schedule(key, g);
  }
}
