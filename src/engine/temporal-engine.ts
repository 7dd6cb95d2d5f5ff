import {
  Client,
  Connection,
  type WorkflowClientInterceptor,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError } from '@temporalio/common';
import { LoreError } from '../contract/errors';
import { SA, SEARCH_ATTRIBUTE_NAMES } from '../model/search-attributes';
import type { Engine, RunLabels, ScheduleDescription, ScheduleRequest, StartRequest, WorkflowDescription, WorkflowState } from './engine';
import { WaitTimeout } from './engine';
import { failureKind, fromFailure } from './failures';

export interface EngineObserver {
  workflowStarted(type: string): void;
  workflowFailed(type: string, reason: string): void;
}

const STATE: Record<string, WorkflowState> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed_out',
  CONTINUED_AS_NEW: 'continued_as_new',
};

function searchAttributes(labels: RunLabels) {
  const pairs = [
    { key: SA.tenant, value: labels.tenant_id },
    { key: SA.scope, value: labels.scope },
    { key: SA.runKind, value: labels.kind },
  ];
  if (labels.automation_id) pairs.push({ key: SA.automationId, value: labels.automation_id });
  if (labels.playbook_id) pairs.push({ key: SA.playbookId, value: labels.playbook_id });
  return pairs;
}

/** The Engine port on Temporal's client. The only module in src/ that imports @temporalio/client. */
export class TemporalEngine implements Engine {
  private constructor(
    readonly client: Client,
    readonly connection: Connection,
    readonly namespace: string,
    readonly taskQueue: string,
    private readonly observer: EngineObserver,
  ) {}

  static async connect(opts: {
    address: string;
    namespace: string;
    taskQueue: string;
    observer: EngineObserver;
    /** Workflow client interceptors (tracing: src/telemetry puts the trace context into workflow headers). */
    interceptors?: unknown[];
  }): Promise<TemporalEngine> {
    const connection = await Connection.connect({ address: opts.address, connectTimeout: 10_000 });
    const workflow = (opts.interceptors ?? []) as WorkflowClientInterceptor[];
    const client = new Client({ connection, namespace: opts.namespace, ...(workflow.length > 0 ? { interceptors: { workflow } } : {}) });
    return new TemporalEngine(client, connection, opts.namespace, opts.taskQueue, opts.observer);
  }

  /** Registers Lore's search attributes when missing (a cluster; the dev server gets them as flags). */
  async ensureSearchAttributes(): Promise<void> {
    const existing = await this.connection.operatorService.listSearchAttributes({ namespace: this.namespace });
    const have = new Set(Object.keys(existing.customAttributes ?? {}));
    const missing = SEARCH_ATTRIBUTE_NAMES.filter((n) => !have.has(n));
    if (missing.length === 0) return;
    await this.connection.operatorService.addSearchAttributes({
      namespace: this.namespace,
      // 2 = INDEXED_VALUE_TYPE_KEYWORD
      searchAttributes: Object.fromEntries(missing.map((n) => [n, 2])),
    });
  }

  async serverVersion(): Promise<string | null> {
    const info = await this.connection.workflowService.getSystemInfo({});
    return info.serverVersion || null;
  }

  /** Pollers on the task queue: how /health knows a worker is alive. */
  async pollerCount(): Promise<number> {
    const r = await this.connection.workflowService.describeTaskQueue({
      namespace: this.namespace,
      taskQueue: { name: this.taskQueue },
      taskQueueType: 1, // WORKFLOW
    });
    const cutoff = Date.now() - 70_000;
    return (r.pollers ?? []).filter((p) => {
      const t = p.lastAccessTime?.seconds;
      return t === undefined || t === null || Number(t) * 1000 >= cutoff;
    }).length;
  }

  private handle(workflowId: string): WorkflowHandle {
    return this.client.workflow.getHandle(workflowId);
  }

  async start(req: StartRequest): Promise<{ workflowId: string; runId: string }> {
    try {
      const handle = await this.client.workflow.start(req.workflowType, {
        taskQueue: this.taskQueue,
        workflowId: req.workflowId,
        args: req.args,
        typedSearchAttributes: searchAttributes(req.labels),
        staticSummary: req.summary,
        staticDetails: req.details,
        workflowIdReusePolicy: req.rejectDuplicate ? WorkflowIdReusePolicy.REJECT_DUPLICATE : WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      });
      this.observer.workflowStarted(req.workflowType);
      return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        throw new LoreError('conflict', `a run with id '${req.workflowId}' already exists`, { workflow_id: req.workflowId });
      }
      throw err;
    }
  }

  async execute<T>(req: StartRequest, timeoutMs?: number): Promise<T> {
    await this.start(req);
    return this.resultOf<T>(req.workflowId, req.workflowType, timeoutMs);
  }

  async result<T>(workflowId: string, timeoutMs?: number): Promise<T> {
    return this.resultOf<T>(workflowId, null, timeoutMs);
  }

  private async resultOf<T>(workflowId: string, type: string | null, timeoutMs?: number): Promise<T> {
    const wait = async () => {
      try {
        return (await this.handle(workflowId).result()) as T;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw new LoreError('not_found', `run '${workflowId}' does not exist`, { workflow_id: workflowId });
        if (err instanceof WorkflowFailedError) {
          this.observer.workflowFailed(type ?? 'unknown', failureKind(err));
          const lore = fromFailure(err);
          if (lore) throw lore;
          throw new LoreError('internal', `run '${workflowId}' ${failureKind(err)}: ${err.cause?.message ?? err.message}`, { workflow_id: workflowId }, false);
        }
        throw err;
      }
    };
    if (!timeoutMs) return wait();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      return await this.client.withAbortSignal(abort.signal, wait);
    } catch (err) {
      if (abort.signal.aborted) throw new WaitTimeout(workflowId);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async signal(workflowId: string, signal: string, payload: unknown): Promise<void> {
    try {
      await this.handle(workflowId).signal(signal, payload);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new LoreError('not_found', `run '${workflowId}' is not running`, { workflow_id: workflowId });
      throw err;
    }
  }

  async query<T>(workflowId: string, query: string, ...args: unknown[]): Promise<T> {
    try {
      return (await this.handle(workflowId).query(query, ...args)) as T;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new LoreError('not_found', `run '${workflowId}' does not exist`, { workflow_id: workflowId });
      throw err;
    }
  }

  async cancel(workflowId: string): Promise<void> {
    try {
      await this.handle(workflowId).cancel();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new LoreError('not_found', `run '${workflowId}' is not running`, { workflow_id: workflowId });
      throw err;
    }
  }

  async terminate(workflowId: string, reason: string): Promise<void> {
    try {
      await this.handle(workflowId).terminate(reason);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return;
      throw err;
    }
  }

  async describe(workflowId: string): Promise<WorkflowDescription | null> {
    try {
      const d = await this.handle(workflowId).describe();
      return {
        workflowId: d.workflowId,
        runId: d.runId,
        type: d.type,
        state: STATE[d.status.name] ?? 'running',
        startedAt: d.startTime.toISOString(),
        closedAt: d.closeTime ? d.closeTime.toISOString() : null,
      };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  }

  async ensureSchedule(req: ScheduleRequest): Promise<void> {
    const spec = { intervals: [{ every: req.intervalMs }] };
    const action = {
      type: 'startWorkflow' as const,
      workflowType: req.workflowType,
      workflowId: req.workflowId,
      args: req.args,
      taskQueue: this.taskQueue,
      typedSearchAttributes: searchAttributes(req.labels),
      staticSummary: req.summary,
    };
    // A missed run while the service was down is not worth a burst of catch-up runs.
    const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' };
    try {
      await this.client.schedule.create({ scheduleId: req.scheduleId, spec, action, policies });
      return;
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    const handle = this.client.schedule.getHandle(req.scheduleId);
    await handle.update((prev) => ({ ...prev, spec, action, policies: { ...prev.policies, ...policies }, state: { ...prev.state, paused: false } }));
  }

  async pauseSchedule(scheduleId: string, note: string): Promise<void> {
    try {
      const handle = this.client.schedule.getHandle(scheduleId);
      const d = await handle.describe();
      if (!d.state.paused) await handle.pause(note);
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return;
      throw err;
    }
  }

  async describeSchedule(scheduleId: string): Promise<ScheduleDescription | null> {
    try {
      const d = await this.client.schedule.getHandle(scheduleId).describe();
      const every = d.spec.intervals?.[0]?.every;
      return {
        scheduleId,
        workflowType: d.action.workflowType,
        intervalMs: typeof every === 'number' ? every : null,
        paused: d.state.paused,
        note: d.state.note ?? null,
        actions: d.info.numActionsTaken,
        nextActionTimes: d.info.nextActionTimes.map((t) => t.toISOString()),
      };
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return null;
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
