import type { RouteInput } from '../../contract';
import { LoreError, notFound } from '../../contract/errors';
import type { sandboxRoutes } from '../../contract/families/sandbox';
import { WaitTimeout } from '../../engine/engine';
import type { ScopeRef } from '../../store/scope';
import { startWorkflowRun } from '../runs/index';
import type { SandboxRuns } from '../../store/sandbox/index';
import { uuidv7 } from '../../model/ids';
import { SANDBOX_WORKFLOW, loadSandboxRun, sandboxStores, workflowIdOf, type SandboxCtx } from './context';
import { resolveLimits } from './limits';
import { checkCommand } from './profiles';
import { isTerminal, type RunDoc } from '../../model/sandbox/records';
import { toRunWire } from './views';
import { reconcileSandboxRun } from './reconcile';
import { assertSandboxRunnable } from './status';

type ExecuteInput = RouteInput<(typeof sandboxRoutes)['sandbox.execute']>;

/** What the workflow gets: where to find the run; everything else is read from the store. */
export interface SandboxRunInput {
  tenant_id: string;
  scope: string;
  run_id: string;
  wall_ms: number;
}

const MAX_DEFAULT_WAIT_MS = 300_000;

export async function execute(c: SandboxCtx, ref: ScopeRef, input: ExecuteInput, actor: string) {
  const { runs } = sandboxStores(c.db, ref);
  await assertSandboxRunnable(c.config, c.db);
  const { run } = await startWorkflowRun<RunDoc>(c.engine, {
    record: () => createRunRecord(c, ref, input, actor),
    workflow: (r) => ({
      workflowType: SANDBOX_WORKFLOW,
      workflowId: r.workflow_id,
      args: [{ tenant_id: ref.tenant_id, scope: ref.scope, run_id: r.run_id, wall_ms: r.limits.wall_ms } satisfies SandboxRunInput],
      labels: { tenant_id: ref.tenant_id, scope: ref.scope, kind: 'sandbox' },
      summary: `sandbox: ${input.action.argv.join(' ').slice(0, 200)}`,
    }),
    compensate: async (r, reason) => {
      const at = c.clock.now().toISOString();
      await runs.finish(r.run_id, { status: 'failed', reason, finished_at: at, updated_at: at });
    },
  });

  if (input.mode === 'async' || isTerminal(run.status)) return answer(c, run);
  const waitMs = input.wait_ms ?? Math.min(run.limits.wall_ms + 15_000, MAX_DEFAULT_WAIT_MS);
  return answer(c, await waitForEnd(c, runs, run, waitMs), waitMs);
}

/**
 * Checks the session and the profile and stores the run `queued` (nothing starts it). `created:
 * false` when the run_id exists with the same command (an idempotent repeat). execute() starts
 * the run's workflow itself; replay's playbook steps start it as a child of their own workflow.
 */
export async function createRunRecord(
  c: Pick<SandboxCtx, 'db' | 'clock'>,
  ref: ScopeRef,
  input: Pick<ExecuteInput, 'session_id' | 'mode' | 'action' | 'run_id' | 'limits' | 'timeout_ms'>,
  actor: string,
): Promise<{ run: RunDoc; created: boolean }> {
  const { sessions, runs } = sandboxStores(c.db, ref);
  const session = await sessions.get(input.session_id);
  if (!session) throw notFound('sandbox session', input.session_id, ref.scope, { session_id: input.session_id });
  const { argv, env } = input.action;
  checkCommand(session.profile, argv, env);
  const limits = resolveLimits(session.limits, input.limits, input.timeout_ms !== undefined ? { wall_ms: input.timeout_ms } : undefined);

  const now = c.clock.now();
  const key = uuidv7(now.getTime());
  const runId = input.run_id ?? key;
  const at = now.toISOString();
  const doc: RunDoc = {
    _id: key,
    run_id: runId,
    session_id: session.session_id,
    session_key: session._id,
    profile: session.profile,
    mode: input.mode,
    status: 'queued',
    argv,
    env: env ?? {},
    limits,
    isolation_kind: session.isolation.kind,
    exit_code: null,
    signal: null,
    duration_ms: null,
    stdout_tail: '',
    stderr_tail: '',
    truncated: false,
    output_bytes: 0,
    dropped_bytes: 0,
    limit_hit: null,
    reason: null,
    log_entries: 0,
    artifact_count: 0,
    artifacts_skipped: [],
    isolation: null,
    cancel_requested: false,
    cancel_reason: null,
    workflow_id: workflowIdOf(key),
    attempts: 0,
    actor,
    created_at: at,
    started_at: null,
    finished_at: null,
    updated_at: at,
    // Wall time, not the injected clock: the reconcile grace period is measured against the engine's real start (RunDoc.enqueued_wall_ms).
    enqueued_wall_ms: Date.now(),
  };

  const inserted = await runs.insert(doc);
  if (!inserted) return { run: await repeatOf(runs, runId, doc), created: false };
  await sessions.touch(session._id, at);
  return { run: inserted, created: true };
}

/** The same run_id again: the same run when the command agrees (idempotent retry), else conflict. */
async function repeatOf(runs: SandboxRuns, runId: string, wanted: RunDoc): Promise<RunDoc> {
  const existing = await loadSandboxRun(runs, runId);
  const same =
    existing.session_id === wanted.session_id && JSON.stringify(existing.argv) === JSON.stringify(wanted.argv) && JSON.stringify(existing.env) === JSON.stringify(wanted.env);
  if (!same) {
    throw new LoreError('conflict', `sandbox run '${runId}' exists with a different session or command`, { run_id: runId, session_id: existing.session_id });
  }
  return existing;
}

/**
 * Waits for the run's workflow within waitMs, then answers from the store (the source of truth).
 * A wait that runs out leaves the run going; if this process dies meanwhile, the run still ends.
 */
export async function waitForEnd(c: SandboxCtx, runs: SandboxRuns, run: RunDoc, waitMs: number): Promise<RunDoc> {
  if (waitMs > 0) {
    try {
      await c.engine.result(run.workflow_id, waitMs);
    } catch (err) {
      // A failed or cancelled workflow has settled the record already; the store says how it ended.
      if (!(err instanceof WaitTimeout)) c.log.debug({ err, run_id: run.run_id }, 'sandbox run workflow ended with an error');
    }
  }
  return reconcileSandboxRun(c, runs, await loadSandboxRun(runs, run.run_id));
}

function answer(c: SandboxCtx, run: RunDoc, waitedMs?: number) {
  const done = isTerminal(run.status);
  return {
    run_id: run.run_id,
    completed: done,
    ...(done
      ? {}
      : {
          message:
            waitedMs === undefined
              ? `the run is ${run.status}; poll runs/get or runs/logs`
              : `the run is still ${run.status} after waiting ${waitedMs} ms; it goes on (poll runs/get)`,
        }),
    run: toRunWire(run, c.uiLink),
  };
}
