import { notFound } from '../../contract/errors';
import type { ScopeRef } from '../../store/scope';

/** A family's run records in one scope, as far as loading one by run_id goes. */
export interface RunRecords<R> {
  readonly ref: ScopeRef;
  get(runId: string): Promise<R | null>;
}

/** The run, or not_found naming the kind of run, its id and the scope. */
export async function loadRunRecord<R>(runs: RunRecords<R>, what: string, runId: string): Promise<R> {
  const run = await runs.get(runId);
  if (!run) throw notFound(what, runId, runs.ref.scope, { run_id: runId });
  return run;
}
