import { LoreError } from '../../contract/errors';
import { WaitTimeout, type StartRequest } from '../../engine/engine';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import type { LifecycleCtx } from './context';
import { DEFAULT_MAX_NODES_PER_RUN } from './policy';
import { SCOPE_WORKFLOW, scopeWorkflowId, type ScopeRunInput, type ScopeRunResult } from './run-types';

/**
 * POST /v1/memory/lifecycle/run: starts the scope's operator workflow and waits for it. The
 * workflow id is the scope's, so if a run of this scope is already going (another request, or
 * the schedule) this one waits for it to finish and then starts its own.
 */

const START_ATTEMPTS = 3;

export type RunOutcome = { status: 'completed'; workflow_id: string; result: ScopeRunResult } | { status: 'running'; workflow_id: string; run_id: string; dry_run: boolean };

export async function runLifecycle(c: LifecycleCtx, ref: ScopeRef, input: { dry_run: boolean; max_nodes?: number; wait_ms: number }): Promise<RunOutcome> {
  const workflowId = scopeWorkflowId(ref.tenant_id, ref.scope);
  const args: ScopeRunInput = {
    tenant_id: ref.tenant_id,
    scope: ref.scope,
    run_id: uuidv7(c.clock.now().getTime()),
    dry_run: input.dry_run,
    max_nodes: input.max_nodes ?? DEFAULT_MAX_NODES_PER_RUN,
    trigger: 'request',
  };
  const req: StartRequest = {
    workflowType: SCOPE_WORKFLOW,
    workflowId,
    args: [args],
    labels: { tenant_id: ref.tenant_id, scope: ref.scope, kind: 'lifecycle' },
    summary: `lifecycle ${input.dry_run ? 'dry run' : 'run'} of ${ref.tenant_id}/${ref.scope} (on request)`,
  };
  // Wall time, not the injected clock: a real deadline for this request's wait on the engine.
  const deadline = Date.now() + input.wait_ms;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await c.engine.start(req);
      break;
    } catch (err) {
      if (!(err instanceof LoreError && err.code === 'conflict') || attempt >= START_ATTEMPTS || Date.now() >= deadline) {
        if (err instanceof LoreError && err.code === 'conflict') {
          throw new LoreError('conflict', `a lifecycle run of scope '${ref.scope}' is in progress; try again when it ends`, { workflow_id: workflowId }, true);
        }
        throw err;
      }
      // Another run of this scope holds the id: wait for it, then start ours.
      await c.engine.result(workflowId, Math.max(1, deadline - Date.now())).catch(() => {});
    }
  }
  try {
    const result = await c.engine.result<ScopeRunResult>(workflowId, Math.max(1000, deadline - Date.now()));
    return { status: 'completed', workflow_id: workflowId, result };
  } catch (err) {
    if (err instanceof WaitTimeout) return { status: 'running', workflow_id: workflowId, run_id: args.run_id, dry_run: input.dry_run };
    throw err;
  }
}
