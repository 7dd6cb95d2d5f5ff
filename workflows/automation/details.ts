/**
 * What the Temporal UI shows about a run beyond its static summary: the current details (a query,
 * no history event) and the memo (a history event, so behind a patch: runs that reached this point
 * with older code did not write it). Both say which approval waits for what, and who decided what.
 */
import { patched, setCurrentDetails, upsertMemo } from '@temporalio/workflow';
import type { ResumeRecord } from '../../src/model/automation/records';
import { PATCHES } from '../patches';
import type { AutomationRun } from './run';

export function memo(fields: Record<string, unknown>): void {
  if (patched(PATCHES.runMemo)) upsertMemo(fields);
}

/** The approvals waiting now (none: the run is running). */
export function showWaiting(run: AutomationRun): void {
  const { input } = run;
  const list = [...run.waitingFor.entries()].map(([node_id, w]) => ({ node_id, ...w }));
  const lines = list.map(
    (w) =>
      `- approval node \`${w.node_id}\` (approval_key \`${w.approval_key}\`) waits for a decision since ${w.since}` +
      (w.expires_at ? `; at ${w.expires_at} it will ${w.on_timeout === 'fail' ? 'fail' : 'be rejected'}` : '; no deadline'),
  );
  setCurrentDetails(
    list.length > 0
      ? `**Paused**: automation \`${input.automation_id}\`, run \`${input.run_id}\`\n\n${lines.join('\n')}\n\nDecide with POST /v1/automations/runs/resume {"run_id": "${input.run_id}", "decision": "approve" | "reject", "reason": "…"}`
      : `**Running**: automation \`${input.automation_id}\`, run \`${input.run_id}\``,
  );
  memo({ lore_status: list.length > 0 ? 'paused' : 'running', lore_waiting: list });
}

export function showDecision(run: AutomationRun): void {
  memo({ lore_decisions: run.st.resumes.map(decisionMemo) });
}

/** The run's end, with the reason the record shows. */
export function showEnd(run: AutomationRun, final: string): void {
  const { input, st } = run;
  setCurrentDetails(`**${final}**: automation \`${input.automation_id}\`, run \`${input.run_id}\`: ${st.reason}`);
  memo({ lore_status: final, lore_waiting: [], lore_summary: st.reason });
}

/** A decision as the memo shows it (small: the memo travels with every describe of the workflow). */
function decisionMemo(r: ResumeRecord) {
  const reason = r.reason !== null && r.reason.length > 300 ? `${r.reason.slice(0, 300)}…` : r.reason;
  return { node_ids: r.node_ids, decision: r.decision ?? 'approve', actor: r.actor, at: r.at, reason, ...(r.timed_out ? { timed_out: true } : {}) };
}
