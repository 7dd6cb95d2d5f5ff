import type { RouteInput } from '../../contract';
import { notFound } from '../../contract/errors';
import type { sandboxRoutes } from '../../contract/families/sandbox';
import type { ScopeRef } from '../../store/scope';
import { loadSandboxRun, sandboxStores, type SandboxCtx } from './context';
import { versionOf, type Until } from '../runs/wait';
import { readRunRecordWithWait } from '../runs/index';
import { isTerminal, type LogEntryDoc, type RunDoc } from '../../model/sandbox/records';
import { toRunWire } from './views';
import { reconcileSandboxRun } from './reconcile';
import { decodeCursor, encodeCursor } from '../memory/cursor';

type LogsInput = RouteInput<(typeof sandboxRoutes)['sandbox.runLogs']>;

/** runs/list: stored records, newest first (no reconciliation: a page must not query Temporal per run). */
export async function listRuns(c: SandboxCtx, ref: ScopeRef, input: { limit: number; cursor?: string | undefined; session_id?: string | undefined }) {
  const { runs, sessions } = sandboxStores(c.db, ref);
  // The runs of a session that does not exist: not_found, not an empty page (a mistyped id would look like "no runs").
  if (input.session_id !== undefined && !(await sessions.get(input.session_id))) {
    throw notFound('sandbox session', input.session_id, ref.scope, { session_id: input.session_id });
  }
  const before = input.cursor !== undefined ? decodeCursor(input.cursor, 'sandbox.runs.list') : undefined;
  const docs = await runs.list({ session_id: input.session_id, before, limit: input.limit + 1 });
  const shown = docs.slice(0, input.limit);
  return { runs: shown.map((r) => toRunWire(r, c.uiLink)), next_cursor: docs.length > input.limit ? encodeCursor('sandbox.runs.list', shown[shown.length - 1]!._id) : null };
}

type GetInput = { run_id: string; wait_ms?: number; until?: string | undefined };

/** Whether a run record satisfies `until`; a sandbox run never pauses, so paused_or_done is done. */
export function runHolds(until: Until, run: RunDoc): boolean {
  if ('changedFrom' in until) return versionOf(run) !== until.changedFrom;
  return until.condition === 'not_queued' ? run.status !== 'queued' : isTerminal(run.status);
}

/** runs/get; with wait_ms, once `until` holds or at the deadline (docs/sandbox.md, "Waiting for a run"). */
export async function getSandboxRun(c: SandboxCtx, ref: ScopeRef, input: GetInput, signal?: AbortSignal) {
  const { runs } = sandboxStores(c.db, ref);
  const read = async () => reconcileSandboxRun(c, runs, await loadSandboxRun(runs, input.run_id));
  const { doc: run, wait } = await readRunRecordWithWait(c.waiter, input, { family: 'sandbox', ref, runs }, read, runHolds, signal);
  return { run: toRunWire(run, c.uiLink), version: versionOf(run), ...(wait ? { wait } : {}) };
}

/**
 * One page of a run's log entries in seq order. The run is read before the entries: the worker
 * stores every entry before it records the end, so an ended run's entries are all there.
 */
export async function runLogs(c: SandboxCtx, ref: ScopeRef, input: LogsInput) {
  const { runs, logs } = sandboxStores(c.db, ref);
  const run = await reconcileSandboxRun(c, runs, await loadSandboxRun(runs, input.run_id));
  // The cursor is the seq of the next entry wanted.
  const from = input.cursor !== undefined ? Number(input.cursor) : 0;
  // One extra tells whether more entries are stored beyond this page.
  const found = await logs.page(run._id, { afterSeq: from - 1, limit: input.limit + 1, ...(input.stream ? { stream: input.stream } : {}) });
  const page = found.slice(0, input.limit);
  const more = found.length > input.limit;
  const ended = isTerminal(run.status);
  const next = page.length > 0 ? page[page.length - 1]!.seq + 1 : from;
  return {
    run_id: run.run_id,
    status: run.status,
    logs: page.map((e: LogEntryDoc) => ({ seq: e.seq, stream: e.stream, text: e.text, bytes: e.bytes, at: e.at })),
    // While the run goes on, the cursor lets a poller continue where it stopped.
    next_cursor: more || !ended ? String(next) : null,
    complete: ended && !more,
  };
}
