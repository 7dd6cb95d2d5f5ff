/**
 * Workflows of the lifecycle family (deterministic code only; docs/forgetting.md).
 *
 * lifecycleScopeWorkflow: one run of the forgetting operator over one scope. It fixes the run's
 * clock in its first activity, then walks the scope in id order one page-activity at a time from
 * where the last run stopped, wrapping around once, until it has examined max_nodes nodes or the
 * whole scope, and records the cursor for the next run. Its workflow id is derived from the scope,
 * so an API-started run and a scheduled one never overlap on the same scope.
 *
 * lifecycleSweepWorkflow: what the Temporal Schedule starts. It walks the scope registry and runs
 * lifecycleScopeWorkflow as a child for each scope (a scope whose run is already in progress is
 * skipped), continuing as new every SCOPES_BEFORE_CONTINUE scopes to keep its history short.
 *
 * lifecycleNodesWorkflow: an on-demand run over named nodes — the nodes nodes/activate feedback
 * touched — so feedback is acted on within seconds instead of at the next sweep. One per scope at
 * a time (its own workflow id), one clock activity and one decide activity.
 *
 * Behaviour changes for running histories go behind patched().
 */
import { continueAsNew, executeChild, log, proxyActivities, uuid4 } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { LifecycleActivities } from '../activities/lifecycle';
import { DECISIONS_IN_RESULT, DEFAULT_MAX_NODES_PER_RUN, MAX_NODES_PER_NODES_RUN, MAX_NODES_PER_RUN_CAP, PAGE_SIZE } from '../src/domain/lifecycle/policy';
import {
  addRunCounts,
  emptyRunCounts,
  scopeWorkflowId,
  type DecisionView,
  type NodesRunInput,
  type NodesRunResult,
  type ScopeRunInput,
  type ScopeRunResult,
  type SweepInput,
  type SweepResult,
} from '../src/domain/lifecycle/run-types';
import { SA } from '../src/model/search-attributes';

const SCOPES_PER_PAGE = 50;
const SCOPES_BEFORE_CONTINUE = 200;

/** Begin, finish and list are small reads/writes: retry through a store hiccup. */
const bookkeeping = proxyActivities<LifecycleActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/** A page is PAGE_SIZE nodes, a few seconds of store writes; it heartbeats as it goes. */
const pages = proxyActivities<LifecycleActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    // A retry cannot cure a request the domain rejected.
    nonRetryableErrorTypes: ['invalid_request', 'not_found', 'invalid_state'],
  },
});

export async function lifecycleScopeWorkflow(input: ScopeRunInput): Promise<ScopeRunResult> {
  const max = Math.max(1, Math.min(Math.floor(input.max_nodes || DEFAULT_MAX_NODES_PER_RUN), MAX_NODES_PER_RUN_CAP));
  const wanted = Math.max(0, Math.min(input.sample ?? DECISIONS_IN_RESULT, DECISIONS_IN_RESULT));
  const begin = await bookkeeping.lifecycleBeginRun(input);
  const startedMid = begin.start_after !== null;
  let after = begin.start_after;
  let wrapped = false;
  let complete = false;
  let examined = 0;
  const counts = emptyRunCounts();
  const decisions: DecisionView[] = [];

  while (examined < max) {
    const page = await pages.lifecycleProcessPage({
      tenant_id: input.tenant_id,
      scope: input.scope,
      run_id: input.run_id,
      decided_at: begin.decided_at,
      dry_run: input.dry_run,
      after,
      before: wrapped ? begin.start_after : null,
      limit: Math.min(PAGE_SIZE, max - examined),
      sample: wanted - decisions.length,
    });
    examined += page.examined;
    addRunCounts(counts, page.counts);
    decisions.push(...page.decisions);
    after = page.last_id;
    if (page.exhausted) {
      if (startedMid && !wrapped) {
        // The end of the scope: go round once to the nodes before where this run started.
        wrapped = true;
        after = null;
        continue;
      }
      complete = true;
      break;
    }
  }
  const cursor = complete ? null : after;
  if (!input.dry_run) {
    await bookkeeping.lifecycleFinishRun({
      tenant_id: input.tenant_id,
      scope: input.scope,
      cursor,
      last_run: {
        run_id: input.run_id,
        decided_at: begin.decided_at,
        examined,
        complete,
        trigger: input.trigger,
        counts: { ...counts.actions },
      },
    });
  }
  return {
    run_id: input.run_id,
    tenant_id: input.tenant_id,
    scope: input.scope,
    dry_run: input.dry_run,
    trigger: input.trigger,
    decided_at: begin.decided_at,
    examined,
    complete,
    cursor,
    counts,
    decisions,
    decisions_truncated: decisions.length < examined,
  };
}

export async function lifecycleSweepWorkflow(input: SweepInput = {}): Promise<SweepResult> {
  const totals: SweepResult = input.totals ?? { scopes: 0, busy: 0, failed: 0, examined: 0, counts: emptyRunCounts() };
  let after = input.after_scope ?? null;
  let sinceStart = 0;
  for (;;) {
    const { scopes } = await bookkeeping.lifecycleListScopes({ after, limit: SCOPES_PER_PAGE });
    for (const s of scopes) {
      try {
        const r = await executeChild(lifecycleScopeWorkflow, {
          workflowId: scopeWorkflowId(s.tenant_id, s.scope),
          args: [
            {
              tenant_id: s.tenant_id,
              scope: s.scope,
              run_id: uuid4(),
              dry_run: false,
              max_nodes: input.max_nodes_per_scope ?? DEFAULT_MAX_NODES_PER_RUN,
              trigger: 'schedule',
              // The sweep's history holds every child's result: counts only.
              sample: 0,
            },
          ],
          typedSearchAttributes: [
            { key: SA.tenant, value: s.tenant_id },
            { key: SA.scope, value: s.scope },
            { key: SA.runKind, value: 'lifecycle' },
          ],
          staticSummary: `lifecycle run of ${s.tenant_id}/${s.scope} (scheduled)`,
        });
        totals.scopes += 1;
        totals.examined += r.examined;
        addRunCounts(totals.counts, r.counts);
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) {
          totals.busy += 1; // an API-started run is on this scope right now
        } else {
          totals.failed += 1;
          log.warn('lifecycle run of a scope failed; the sweep goes on', { scope_id: s.id, error: (err as Error).message });
        }
      }
      after = s.id;
      sinceStart += 1;
    }
    if (scopes.length < SCOPES_PER_PAGE) return totals;
    if (sinceStart >= SCOPES_BEFORE_CONTINUE) {
      await continueAsNew<typeof lifecycleSweepWorkflow>({ ...input, after_scope: after, totals });
    }
  }
}

export async function lifecycleNodesWorkflow(input: NodesRunInput): Promise<NodesRunResult> {
  const decided_at = await bookkeeping.lifecycleNow();
  const r = await pages.lifecycleDecideNodes({
    tenant_id: input.tenant_id,
    scope: input.scope,
    run_id: input.run_id,
    decided_at,
    node_ids: input.node_ids.slice(0, MAX_NODES_PER_NODES_RUN),
    sample: DECISIONS_IN_RESULT,
  });
  return { ...r, run_id: input.run_id, tenant_id: input.tenant_id, scope: input.scope, trigger: input.trigger, decided_at };
}
