/**
 * Every patch id the workflows use (patched() from @temporalio/workflow; docs/design.md, "Changing a
 * workflow"). A patch marks, in a run's history, that the run took the new path at that point;
 * histories without the marker (runs started, or parts run, by older code) replay the old path.
 *
 * A patch may become deprecatePatch() once no run that started before it can still be open (e.g.
 * after a release that says so), and be removed a release later, together with the committed
 * histories (test/workflows/histories/<set>/) that still need the old path.
 */
export const PATCHES = {
  /** 2026-11 (issue 30): runs/resume may reject; a rejection fails the approval node. */
  approvalDecisions: 'lore-approval-decisions',
  /** 2026-11 (issue 30): approval nodes with `timeout` wait on a timer, then reject or fail. */
  approvalTimeout: 'lore-approval-timeout',
  /** 2026-11 (issue 30): the run's memo (status, waiting approvals, decisions) for the Temporal UI. */
  runMemo: 'lore-run-memo',
  /** 2026-12 (issue 41): a playbook step's backoff_ms (a repair's retry_policy) is waited before each retry of the step. */
  stepBackoff: 'lore-replay-step-backoff',
} as const;
