import type { RunKind } from '../model/search-attributes';

/**
 * The engine port: what the domain may ask of the workflow engine. The domain never sees
 * Temporal's client; TemporalEngine implements this, tests may fake it.
 */

export interface RunLabels {
  tenant_id: string;
  scope: string;
  kind: RunKind;
  automation_id?: string;
  playbook_id?: string;
}

export interface StartRequest {
  workflowType: string;
  workflowId: string;
  args: unknown[];
  labels: RunLabels;
  /** Shown in the Temporal UI as the run's summary (one line). */
  summary?: string;
  /** Shown in the Temporal UI as the run's details (markdown, a few lines). */
  details?: string;
  /** Fail with conflict when a workflow with this id ran before (default: only if running). */
  rejectDuplicate?: boolean;
}

export type WorkflowState = 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'continued_as_new';

export interface WorkflowDescription {
  workflowId: string;
  runId: string;
  type: string;
  state: WorkflowState;
  startedAt: string;
  closedAt: string | null;
}

/** A recurring start of one workflow (a Temporal Schedule). */
export interface ScheduleRequest {
  scheduleId: string;
  workflowType: string;
  /** Id of each started run (the engine appends the start time). */
  workflowId: string;
  args: unknown[];
  intervalMs: number;
  labels: RunLabels;
  summary?: string;
}

export interface ScheduleDescription {
  scheduleId: string;
  workflowType: string;
  intervalMs: number | null;
  paused: boolean;
  note: string | null;
  /** Runs the schedule started so far. */
  actions: number;
  nextActionTimes: string[];
}

export interface Engine {
  /** Starts a workflow; returns as soon as the engine has accepted it. */
  start(req: StartRequest): Promise<{ workflowId: string; runId: string }>;
  /** Starts (or attaches to an already running) workflow and waits for its result. */
  execute<T>(req: StartRequest, timeoutMs?: number): Promise<T>;
  /** Waits for the result of a started workflow (LoreError on failure). */
  result<T>(workflowId: string, timeoutMs?: number): Promise<T>;
  signal(workflowId: string, signal: string, payload: unknown): Promise<void>;
  query<T>(workflowId: string, query: string, ...args: unknown[]): Promise<T>;
  cancel(workflowId: string): Promise<void>;
  terminate(workflowId: string, reason: string): Promise<void>;
  describe(workflowId: string): Promise<WorkflowDescription | null>;
  /**
   * Creates the schedule, or brings an existing one to this spec and unpauses it. Idempotent:
   * every process may call it at every start. Overlapping runs are skipped, not queued.
   */
  ensureSchedule(req: ScheduleRequest): Promise<void>;
  /** Pauses the schedule with a note saying why (no-op when it does not exist). */
  pauseSchedule(scheduleId: string, note: string): Promise<void>;
  describeSchedule(scheduleId: string): Promise<ScheduleDescription | null>;
}

/** Raised by Engine.result/execute when waiting exceeded the caller's timeout (the run goes on). */
export class WaitTimeout extends Error {
  constructor(readonly workflowId: string) {
    super(`workflow ${workflowId} is still running`);
    this.name = 'WaitTimeout';
  }
}
