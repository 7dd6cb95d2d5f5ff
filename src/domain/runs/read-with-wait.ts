import type { ScopeRef } from '../../store/scope';
import { parseUntil, type RunWaiter, type Until, type WaitSource } from './wait';

/** What runs/get answers about a wait (docs/automation.md, "Waiting for a run"). */
export interface WaitReport {
  until: string;
  met: boolean;
  waited_ms: number;
}

export interface ReadWithWait<T> {
  /** Reads the record (and reconciles it): first, and again after a wait. */
  read: () => Promise<T>;
  /** The record's id in the wait source. */
  idOf: (doc: T) => string;
  /** Whether a record satisfies `until` (each family says what its conditions mean). */
  holds: (until: Until, doc: T) => boolean;
  /** Where waiters of the family and scope read (built only when a wait is needed). */
  source: () => WaitSource<T>;
}

/**
 * runs/get of a workflow-backed run: the record; with wait_ms, once `until` (default `done`) holds
 * or at the deadline, whichever comes first (a record that is gone ends the wait too: the read
 * after it then says not_found). Without a waiter, no wait.
 */
export async function readWithWait<T>(
  waiter: RunWaiter | undefined,
  input: { wait_ms?: number | undefined; until?: string | undefined },
  how: ReadWithWait<T>,
  signal?: AbortSignal,
): Promise<{ doc: T; wait?: WaitReport }> {
  let doc = await how.read();
  if (!input.wait_ms || input.wait_ms <= 0 || !waiter) return { doc };
  const name = input.until ?? 'done';
  const until = parseUntil(name);
  const t0 = Date.now();
  if (!how.holds(until, doc)) {
    await waiter.until(how.source(), how.idOf(doc), (d) => d === undefined || how.holds(until, d), input.wait_ms, signal);
    doc = await how.read();
  }
  return { doc, wait: { until: name, met: how.holds(until, doc), waited_ms: Date.now() - t0 } };
}

/** The wait source of one family's runs in one scope: every waiter of it shares one batched read. */
export function scopedWaitSource<T>(family: string, ref: ScopeRef, read: (ids: string[]) => Promise<Map<string, T>>): WaitSource<T> {
  return { key: `${family}\0${ref.tenant_id}\0${ref.scope}`, read };
}

/** The wait source of run records stored one document a run (automation, sandbox): read by run_id. */
export function runRecordsWaitSource<R extends { run_id: string }>(family: string, ref: ScopeRef, runs: { getMany(ids: string[]): Promise<R[]> }): WaitSource<R> {
  return scopedWaitSource(family, ref, async (ids) => new Map((await runs.getMany(ids)).map((r) => [r.run_id, r])));
}

/**
 * runs/get of a family that stores one document a run (automation, sandbox): `read` loads and
 * reconciles it by run_id, the wait reads the scope's records in batches.
 */
export function readRunRecordWithWait<R extends { run_id: string }>(
  waiter: RunWaiter | undefined,
  input: { run_id: string; wait_ms?: number | undefined; until?: string | undefined },
  records: { family: string; ref: ScopeRef; runs: { getMany(ids: string[]): Promise<R[]> } },
  read: () => Promise<R>,
  holds: (until: Until, run: R) => boolean,
  signal?: AbortSignal,
): Promise<{ doc: R; wait?: WaitReport }> {
  return readWithWait(waiter, input, { read, idOf: (r) => r.run_id, holds, source: () => runRecordsWaitSource(records.family, records.ref, records.runs) }, signal);
}
