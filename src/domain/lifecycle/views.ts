import type { ForgettingSummary } from '../../contract/shapes/forgetting';
import type { RunOutcome } from './run';
import { emptyRunCounts } from './run-types';

/** The result fields of a run still running when memory/lifecycle/run answers: nothing decided yet. */
const emptyRunResultFields = () => ({ decided_at: null, examined: 0, complete: false, cursor: null, counts: emptyRunCounts(), decisions: [], decisions_truncated: false });

/** A lifecycle run as memory/lifecycle/run shows it, with the scope's forgetting summary after it. */
export function toRunWire(r: RunOutcome, forgetting_summary: ForgettingSummary) {
  if (r.status === 'running') {
    return { status: 'running' as const, run_id: r.run_id, workflow_id: r.workflow_id, dry_run: r.dry_run, ...emptyRunResultFields(), forgetting_summary };
  }
  const x = r.result;
  return {
    status: 'completed' as const,
    run_id: x.run_id,
    workflow_id: r.workflow_id,
    dry_run: x.dry_run,
    decided_at: x.decided_at,
    examined: x.examined,
    complete: x.complete,
    cursor: x.cursor,
    counts: x.counts,
    decisions: x.decisions,
    decisions_truncated: x.decisions_truncated,
    forgetting_summary,
  };
}
