/**
 * Workflows of the replay family (deterministic code only; docs/replay.md).
 *
 * playbookRunWorkflow: one execution of one playbook version (playbooks/run waits for it,
 * playbooks/dispatch returns at once, automation runs it as a child). Activities record the run
 * as a replay run; each command step runs as a child sandboxRunWorkflow (one per attempt), so
 * cancelling the playbook run cancels the command in flight (its process tree dies) and every
 * command is visible in the Temporal UI. Steps run in order; the first step that does not match
 * its expected output signature (after its max_attempts) stops the run.
 *
 * Guided runs wait at each host step for the host's report (signal HOST_STEP_SIGNAL, sent by
 * playbooks/runs/steps/complete), up to a timeout, then judge it and go on. Runs that began before
 * that (histories without the patch marker) stop at the first host step as they did.
 *
 * playbookShadowValidationWorkflow: the same execution in strict mode on a fresh sandbox session,
 * host steps not run (reported `not_run`), then the result recorded on the validated version.
 *
 * Behaviour changes for running histories go behind patched().
 */

/** Patch ids (docs/replay.md, "Versioning"): each names a behaviour change of running histories. */
const PATCH_GUIDED_HOST_STEPS = 'lore-guided-host-steps-wait-for-the-host';
const PATCH_SHADOW_NOT_RUN = 'lore-shadow-validation-host-steps-not-run';

export const hostStepSignal = defineSignal<[HostStepReport]>(HOST_STEP_SIGNAL);
import { CancellationScope, condition, defineSignal, executeChild, isCancellation, patched, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { ReplayActivities } from '../activities/replay';
import type { ShadowValidation } from '../src/model/replay/types';
import {
  DEFAULT_HOST_STEP_TIMEOUT_MS,
  HOST_STEP_SIGNAL,
  type HostStepReport,
  type PlanStepRef,
  type PlaybookRunInput,
  type PlaybookRunResult,
} from '../src/domain/replay/workflow-types';
import { PATCHES } from './patches';
import { sandboxRunWorkflow } from './sandbox';
import { SA } from '../src/model/search-attributes';
import type { RunEndStatus } from '../src/model/replay/types';

/** Codes a retry cannot cure (LoreError codes carried as ApplicationFailure types). */
const NON_RETRYABLE = ['invalid_request', 'not_found', 'conflict', 'invalid_state', 'validation_failed', 'command_not_allowed', 'sandbox_disabled'];

/** Bookkeeping: small store reads and writes (begin may wait a few seconds for the sandbox host report). */
const book = proxyActivities<ReplayActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '15 seconds', maximumAttempts: 30, nonRetryableErrorTypes: NON_RETRYABLE },
});

type Ref = { tenant_id: string; scope: string };

/** One command step: up to max_attempts sandbox runs, each a child workflow. True when it matched. */
async function runCommandStep(input: PlaybookRunInput, runKey: string, step: PlanStepRef): Promise<boolean> {
  const ref: Ref = { tenant_id: input.tenant_id, scope: input.scope };
  for (let attempt = 1; attempt <= step.max_attempts; attempt++) {
    const prep = await book.replayPrepareStep({ ...ref, run_key: runKey, step_index: step.step_index, attempt });
    if (prep.refused !== null) return false;
    try {
      await executeChild(sandboxRunWorkflow, {
        workflowId: prep.workflow_id,
        args: [{ tenant_id: input.tenant_id, scope: input.scope, run_id: prep.sandbox_run_id, wall_ms: prep.wall_ms }],
        typedSearchAttributes: [
          { key: SA.tenant, value: input.tenant_id },
          { key: SA.scope, value: input.scope },
          { key: SA.runKind, value: 'sandbox' },
          { key: SA.playbookId, value: input.playbook_id },
        ],
        staticSummary: `playbook ${input.playbook_id} step ${step.step_index} (attempt ${attempt}): ${step.label}`,
      });
    } catch (err) {
      // Our own cancellation propagates; anything else (the command was cancelled on its own,
      // the child failed) is recorded on the sandbox run, which completeStep reads.
      if (isCancellation(err) && CancellationScope.current().consideredCancelled) throw err;
    }
    const done = await book.replayCompleteStep({
      ...ref,
      run_key: runKey,
      step_index: step.step_index,
      attempt,
      sandbox_run_id: prep.sandbox_run_id,
      last_attempt: attempt === step.max_attempts,
    });
    if (done.matched) return true;
    // The step's backoff before its next attempt (a timer: behind a patch; plans of older runs carry none).
    const backoff = step.backoff_ms ?? 0;
    if (attempt < step.max_attempts && backoff > 0 && patched(PATCHES.stepBackoff)) await sleep(backoff);
  }
  return false;
}

/**
 * One host step of a guided run: marked pending, then a wait for the host's report (the signal)
 * up to the timeout, then judged. True when the report matched the expected signature.
 */
async function runHostStep(ref: Ref, runKey: string, step: PlanStepRef, reports: Map<number, HostStepReport>, timeoutMs: number): Promise<boolean> {
  await book.replayAwaitHostStep({ ...ref, run_key: runKey, step_index: step.step_index });
  const arrived = () => reports.has(step.step_index);
  if (timeoutMs > 0) await condition(arrived, timeoutMs);
  else await condition(arrived);
  const done = await book.replayCompleteHostStep({ ...ref, run_key: runKey, step_index: step.step_index, report: reports.get(step.step_index) ?? null, timeout_ms: timeoutMs });
  return done.matched;
}

async function executePlaybook(input: PlaybookRunInput, skipHostSteps: boolean): Promise<PlaybookRunResult> {
  const ref: Ref = { tenant_id: input.tenant_id, scope: input.scope };
  // The host's reports, by step index; the first report of a step counts. Kept whenever it
  // arrives (it may come in the same task as the activity that marked the step pending).
  const reports = new Map<number, HostStepReport>();
  setHandler(hostStepSignal, (r) => {
    if (!reports.has(r.step_index)) reports.set(r.step_index, r);
  });
  const begin = await book.replayBeginRun(input);
  if (begin.ended) return begin.ended;
  const runKey = begin.run_key;
  let status: Exclude<RunEndStatus, 'cancelled'> = 'success';
  let pendingFrom: number | null = null;
  let reason: string | null = null;
  let skippedHost = 0;
  try {
    for (const step of begin.steps) {
      if (begin.max_steps !== null && step.step_index >= begin.max_steps) {
        status = 'partial';
        reason = `stopped after max_steps (${begin.max_steps})`;
        break;
      }
      if (step.kind === 'host') {
        if (skipHostSteps) {
          skippedHost += 1;
          await book.replaySkipStep({ ...ref, run_key: runKey, step_index: step.step_index, reason: 'host step: shadow validation runs command steps only' });
          continue;
        }
        if (patched(PATCH_GUIDED_HOST_STEPS)) {
          // guided: wait for the host to do this step and report it, then go on.
          if (!(await runHostStep(ref, runKey, step, reports, begin.host_step_timeout_ms ?? DEFAULT_HOST_STEP_TIMEOUT_MS))) {
            status = 'failure';
            break;
          }
          continue;
        }
        // Runs begun before the patch: the host does this step and everything after it.
        pendingFrom = step.step_index;
        status = 'partial';
        reason = `step ${step.step_index} needs the host`;
        break;
      }
      if (!(await runCommandStep(input, runKey, step))) {
        status = 'failure';
        break;
      }
    }
    if (status === 'success' && skippedHost > 0) {
      status = 'partial';
      reason = `${skippedHost} host step(s) were not validated`;
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => book.replayFinishRun({ ...ref, run_key: runKey, status: 'cancelled', pending_from: null, reason: 'the run was cancelled' }));
      throw err;
    }
    // A bookkeeping activity gave up: end the run as failed with the reason rather than leave it open.
    status = 'failure';
    reason = `the run could not continue: ${(err as Error).message}`;
  }
  return book.replayFinishRun({ ...ref, run_key: runKey, status, pending_from: pendingFrom, reason });
}

export async function playbookRunWorkflow(input: PlaybookRunInput): Promise<PlaybookRunResult> {
  return executePlaybook(input, false);
}

export interface ShadowValidationInput {
  run: PlaybookRunInput;
  /** When the review started it (the record keeps it). */
  started_at: string;
  workflow_id: string;
}

export async function playbookShadowValidationWorkflow(input: ShadowValidationInput): Promise<ShadowValidation> {
  const record = (validation: ShadowValidation, version: number) =>
    book.replayRecordShadowValidation({ tenant_id: input.run.tenant_id, scope: input.run.scope, playbook_id: input.run.playbook_id, version, validation });
  let result: PlaybookRunResult;
  try {
    result = await executePlaybook({ ...input.run, mode: 'strict', purpose: 'shadow_validation' }, true);
  } catch (err) {
    if (isCancellation(err)) throw err;
    // The validation could not even start (e.g. a parameter without a value): that is its result.
    const message = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
    return record(
      {
        mode: 'execute_sandbox',
        status: 'failed',
        run_id: input.run.run_id,
        workflow_id: input.workflow_id,
        started_at: input.started_at,
        finished_at: null,
        steps: [],
        issues: [message],
        summary: `failed: the validation run could not start: ${message}`,
      },
      input.run.version ?? 0,
    );
  }
  const failedSteps = result.steps.filter((s) => s.status === 'failed');
  // Host steps never ran: say so (`not_run`), so they are never read as passed.
  const notRun = patched(PATCH_SHADOW_NOT_RUN);
  const validation: ShadowValidation = {
    mode: 'execute_sandbox',
    status: result.status === 'success' ? 'passed' : result.status === 'partial' && failedSteps.length === 0 ? 'partial' : 'failed',
    run_id: result.run_id,
    workflow_id: input.workflow_id,
    started_at: input.started_at,
    finished_at: null,
    steps: result.steps.map((s) =>
      notRun && s.kind === 'host' && s.status === 'skipped'
        ? { step_index: s.step_index, status: 'not_run', matched: null, reasons: ['host step: only the host can do it; shadow validation runs command steps'] }
        : { step_index: s.step_index, status: s.status, matched: s.matched, reasons: s.reasons },
    ),
    issues: failedSteps.map((s) => `step ${s.step_index} (${s.tool_name}): ${s.reasons.join('; ') || 'failed'}`),
    summary: result.summary,
  };
  return record(validation, result.version);
}
