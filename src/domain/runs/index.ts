/**
 * The kit every family with workflow-backed runs (automation, replay's playbook runs, sandbox)
 * reads them with: load by run_id, reconcile against the engine, and runs/get's waiting. The
 * waiter itself is ./wait.ts.
 */
export { loadRunRecord, type RunRecords } from './load';
export { readRunRecordWithWait, readWithWait, runRecordsWaitSource, scopedWaitSource, type ReadWithWait, type WaitReport } from './read-with-wait';
export { NEVER_STARTED, RECONCILE_GRACE_MS, reconcileRun, type OpenRun } from './reconcile';
