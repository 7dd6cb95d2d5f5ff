/**
 * The kit every family with workflow-backed runs (automation, replay's playbook runs, sandbox)
 * starts and reads them with: start (record → start the workflow → compensate), load by run_id,
 * reconcile against the engine, and runs/get's waiting. The waiter itself is ./wait.ts.
 */
export { loadRunRecord, type RunRecords } from './load';
export { readRunRecordWithWait, readWithWait, runRecordsWaitSource, scopedWaitSource, type ReadWithWait, type WaitReport } from './read-with-wait';
export { startWorkflowRun, type RunStart } from './start';
export { NEVER_STARTED, RECONCILE_GRACE_MS, reconcileRun, type OpenRun } from './reconcile';
