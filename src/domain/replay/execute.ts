import { LoreError } from '../../contract/errors';
import { WaitTimeout } from '../../engine/engine';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { nowIso, replayStores, type ReplayCtx } from './context';
import type { LearningFeed } from './learning-feed';
import { planIssues, planOf, planView, type Plan } from './plan';
import { startWorkflowRun } from '../runs/index';
import { recordPlaybookRun, resolvePlaybookRun, resultOf, runnableVersion } from './playbook-runs';
import type { Json, PlaybookDoc, RunDoc, RunMode, RunPurpose, RunRequestMode } from '../../model/replay/types';
import { pendingStepOf, runView } from './views';
import { PLAYBOOK_RUN_WORKFLOW, playbookRunWorkflowId, type PlaybookRunInput, type PlaybookRunResult } from './workflow-types';

/**
 * playbooks/run and playbooks/dispatch. Both start the same workflow (playbookRunWorkflow, one
 * per run, id `playbook-run-<run key>`); run waits for its result (up to wait_ms), dispatch
 * returns at once. The run is recorded as a replay run before the workflow starts, so runs/get
 * answers as soon as dispatch has. simulate runs nothing and starts no workflow: it returns the
 * resolved plan.
 */

export interface RunRequest {
  playbook_id: string;
  version?: number | undefined;
  mode: RunRequestMode;
  params: Json;
  max_steps?: number | undefined;
  run_id?: string | undefined;
  goal?: string | undefined;
  metadata?: Json | undefined;
  workspace?: { path: string } | undefined;
  host_step_timeout_ms?: number | undefined;
}

export interface Started {
  run: RunDoc;
  created: boolean;
  workflowId: string;
  doc: PlaybookDoc;
}

function simulateAnswer(doc: PlaybookDoc, plan: Plan) {
  return {
    run_id: null,
    workflow_id: null,
    playbook_id: doc.playbook_id,
    version: doc.version,
    mode: 'simulate' as const,
    status: 'simulated' as const,
    completed: true,
    summary: `simulated: ${plan.steps.length} step(s) resolved, nothing ran`,
    plan: planView(plan),
    issues: { strict: planIssues(plan, 'strict'), guided: planIssues(plan, 'guided') },
    steps: [],
    run: null,
  };
}

/** Validates the request, records the run and starts its workflow (a repeated run_id attaches to the run). */
export async function startPlaybookRun(
  c: ReplayCtx,
  ref: ScopeRef,
  req: RunRequest & { mode: RunMode },
  purpose: Exclude<RunPurpose, 'shadow_validation'>,
  actor: string,
): Promise<Started> {
  const { doc, active, plan, workspace } = await resolvePlaybookRun(c, ref, { ...req, purpose });
  const key = uuidv7(c.clock.now().getTime());
  const workflowId = playbookRunWorkflowId(key);
  const input: PlaybookRunInput = {
    tenant_id: ref.tenant_id,
    scope: ref.scope,
    actor,
    run_key: key,
    run_id: req.run_id ?? key,
    playbook_id: doc.playbook_id,
    version: doc.version,
    mode: req.mode,
    params: plan.params,
    max_steps: req.max_steps ?? null,
    purpose,
    goal: req.goal ?? null,
    metadata: req.metadata ?? null,
    workspace,
    host_step_timeout_ms: req.host_step_timeout_ms ?? null,
  };
  const { run, created } = await startWorkflowRun<RunDoc>(c.engine, {
    record: () => recordPlaybookRun(c, ref, input, { doc, active }, workflowId),
    workflow: () => ({
      workflowType: PLAYBOOK_RUN_WORKFLOW,
      workflowId,
      args: [input],
      labels: { tenant_id: ref.tenant_id, scope: ref.scope, kind: purpose === 'dispatch' ? 'playbook_dispatch' : 'playbook_run', playbook_id: doc.playbook_id },
      summary: `playbook ${doc.playbook_id} v${doc.version} (${req.mode}, ${purpose}): ${doc.name}`.slice(0, 200),
    }),
    compensate: async (r, reason) => {
      const at = nowIso(c);
      await replayStores(c.db, ref).runs.end(r._id, {
        status: 'failure',
        summary: `failure: ${reason}`,
        ended_at: at,
        updated_at: at,
        learning: { state: 'not_eligible', workflows_updated: [], reason: 'the run did not start', at },
      });
    },
  });
  // A repeated run_id attaches to the run: its own workflow.
  return { run, created, workflowId: created ? workflowId : run.playbook!.workflow_id, doc };
}

async function answerOf(c: ReplayCtx, ref: ScopeRef, s: Started, result: PlaybookRunResult | null, message?: string) {
  const { runs, steps } = replayStores(c.db, ref);
  const run = (await runs.getByKey(s.run._id)) ?? s.run;
  const all = await steps.list(run._id);
  const r = result ?? resultOf(run, all);
  return {
    run_id: run.run_id,
    workflow_id: s.workflowId,
    playbook_id: s.doc.playbook_id,
    version: s.doc.version,
    mode: run.playbook!.mode,
    status: run.status,
    completed: run.state === 'ended',
    ...(message ? { message } : {}),
    summary: run.summary ?? r.summary,
    steps: r.steps,
    pending_steps: run.state === 'ended' ? r.steps.filter((x) => x.status === 'pending') : [],
    pending_step: pendingStepOf(run, all),
    totals: r.totals,
    outputs: r.outputs,
    run: runView(run, all, undefined, c.uiLink),
  };
}

/** How often a guided run's wait looks whether the run now waits for the host. */
const HOST_WAIT_SLICE_MS = 1000;

/**
 * A guided run's result, or null as soon as the run waits for the host (the caller answers then:
 * nobody else can move the run on). Strict runs wait for the result only.
 */
async function resultOrHostWait(c: ReplayCtx, ref: ScopeRef, s: Started, mode: RunMode, waitMs: number): Promise<{ result: PlaybookRunResult | null; waiting: boolean }> {
  if (mode === 'strict') return { result: await c.engine.result<PlaybookRunResult>(s.workflowId, waitMs), waiting: false };
  const { runs, steps } = replayStores(c.db, ref);
  // Wall time, not the injected clock: a real wait for the workflow's result.
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeout(s.workflowId);
    try {
      return { result: await c.engine.result<PlaybookRunResult>(s.workflowId, Math.min(HOST_WAIT_SLICE_MS, left)), waiting: false };
    } catch (err) {
      if (!(err instanceof WaitTimeout)) throw err;
    }
    const run = await runs.getByKey(s.run._id);
    if (run && run.state === 'open' && pendingStepOf(run, await steps.list(run._id))) return { result: null, waiting: true };
  }
}

/** Simulate: nothing runs, so with no active version (and none named) the latest one is planned, and the answer says so. */
async function simulate(c: ReplayCtx, ref: ScopeRef, req: RunRequest) {
  const { doc, active } = await runnableVersion(c, ref, req.playbook_id, req.version, { latestWhenNoActive: true });
  const answer = simulateAnswer(doc, planOf(doc, req.params));
  if (req.version === undefined && !active) {
    return { ...answer, message: `playbook '${doc.playbook_id}' has no active version; simulated its latest version (${doc.version})` };
  }
  return answer;
}

export async function runPlaybook(c: ReplayCtx, feed: LearningFeed, ref: ScopeRef, req: RunRequest & { wait_ms: number }, actor: string) {
  if (req.mode === 'simulate') return simulate(c, ref, req);
  const started = await startPlaybookRun(c, ref, { ...req, mode: req.mode }, 'run', actor);
  let result: PlaybookRunResult | null = null;
  try {
    const r = await resultOrHostWait(c, ref, started, started.run.playbook?.mode ?? req.mode, req.wait_ms);
    if (r.waiting) return answerOf(c, ref, started, null, 'the run waits for the host at its pending_step: do it, then report it with playbooks/runs/steps/complete');
    result = r.result;
  } catch (err) {
    if (err instanceof WaitTimeout) return answerOf(c, ref, started, null, `the run is still going after ${req.wait_ms} ms; it goes on (poll replay/runs/get)`);
    if (!(err instanceof LoreError)) throw err;
    // The workflow failed (e.g. the version was rejected between our check and its start): the
    // run record says so; answer with it unless nothing was recorded.
    const run = await replayStores(c.db, ref).runs.getByKey(started.run._id);
    if (!run || run.state === 'open') throw err;
  }
  await feed.feedRun(ref, started.run._id).catch(() => null);
  return answerOf(c, ref, started, result);
}

export async function dispatchPlaybook(c: ReplayCtx, ref: ScopeRef, req: RunRequest, actor: string) {
  if (req.mode === 'simulate') return { ...(await simulate(c, ref, req)), dispatched: false };
  const started = await startPlaybookRun(c, ref, { ...req, mode: req.mode }, 'dispatch', actor);
  const { steps } = replayStores(c.db, ref);
  return {
    run_id: started.run.run_id,
    workflow_id: started.workflowId,
    playbook_id: started.doc.playbook_id,
    version: started.doc.version,
    mode: req.mode,
    status: started.run.status,
    dispatched: started.created,
    ...(started.created ? {} : { message: 'a run with this run_id exists already; this is it' }),
    run: runView(started.run, await steps.list(started.run._id), undefined, c.uiLink),
  };
}
