import path from 'node:path';
import { LoreError } from '../../contract/errors';
import type { Log } from '../../log';
import { LearningOutbox, stepId } from '../../store/replay/index';
import { refOf, type ScopeRef } from '../../store/scope';
import { sandboxStores } from '../sandbox/context';
import { createRunRecord } from '../sandbox/execute';
import { isTerminal } from '../../model/sandbox/records';
import { createSession } from '../sandbox/sessions';
import { probeArtifacts } from './artifact-probe';
import { nowIso, replayStores, type ReplaySettings, type ReplayStoreCtx } from './context';
import { insertPlaybookRun, newPlaybookRunDoc, recordPlaybookRun, resolvePlaybookRun, resultOf, summarize, type ResolvedPlaybookRun } from './playbook-runs';
import { expectationOf, matchCommand, matchHost, reasonsOf, signatureOf, type ArtifactFacts, type CommandOutcome } from './signature';
import { checkedCommand, commandOf, labelOf } from './steps';
import type { Json, SandboxAttempt, ShadowValidation, StepDoc } from '../../model/replay/types';
import {
  playbookRunWorkflowId,
  runSessionId,
  shadowValidationWorkflowId,
  stepSandboxRunId,
  type HostStepReport,
  type BeginResult,
  type CompleteStepResult,
  type FinishInput,
  type PlaybookRunInput,
  type PlaybookRunResult,
  type PrepareStepResult,
} from './workflow-types';

/**
 * What the playbook-run workflow's activities do (activities/replay.ts calls these). Each is
 * idempotent, keyed by run key + step index + attempt, so a retried activity finds its own work
 * instead of doing it twice.
 */

export interface RunnerCtx extends ReplayStoreCtx {
  config: ReplaySettings;
  log: Log;
}

/** Output read back for matching (the sandbox keeps all of it in its log entries). */
const MATCH_OUTPUT_BYTES = 1024 * 1024;

/**
 * Resolves the version and the parameters (resolvePlaybookRun, as the API did), records the run
 * unless the API did (recordPlaybookRun), creates the run's sandbox session, and writes every
 * planned step `queued` with its resolved input. A request that cannot run (no such playbook, a
 * rejected version, a missing parameter) ends the run `failure` with the reason and fails the
 * activity without retry.
 */
export async function beginRun(c: RunnerCtx, input: PlaybookRunInput): Promise<BeginResult> {
  const ref = refOf(input);
  const { runs, steps } = replayStores(c.db, ref);
  let run = await runs.getByKey(input.run_key);
  if (run && run.state === 'ended') {
    return {
      run_key: run._id,
      version: run.playbook?.version ?? 0,
      mode: input.mode,
      session_id: null,
      steps: [],
      max_steps: null,
      ended: resultOf(run, await steps.list(run._id)),
    };
  }
  // Runs started inside another workflow (automation) are recorded here: name their workflow.
  const workflowId = input.purpose === 'shadow_validation' ? shadowValidationWorkflowId(input.run_key) : playbookRunWorkflowId(input.run_key);
  const fail = async (err: unknown) => {
    if (!(err instanceof LoreError) || err.retryable) return;
    // Recorded either way, so the caller (e.g. an automation run) can read why it did not start.
    run ??= (
      await insertPlaybookRun(
        c,
        ref,
        newPlaybookRunDoc(c, input, { version: input.version, workflow_id: workflowId, active_at_start: false, session_id: null }, input.goal ?? input.playbook_id),
      )
    ).run;
    const at = nowIso(c);
    await runs.end(run._id, {
      status: 'failure',
      summary: `failure: the run could not start: ${err.message}`.slice(0, 2000),
      ended_at: at,
      updated_at: at,
      learning: notEligible('the run did not start', at),
    });
  };
  let resolved: ResolvedPlaybookRun;
  try {
    // The version the record names (the API resolved which one), else the input's, checked again
    // (a version rejected since the API's check does not run); the workspace against this
    // worker's LORE_SANDBOX_WORKSPACE_ROOTS (the API checked its own).
    resolved = await resolvePlaybookRun(c, ref, { ...input, version: run?.playbook?.version ?? input.version });
  } catch (err) {
    await fail(err);
    throw err;
  }
  const { doc, active, plan, workspace } = resolved;
  if (!run) run = (await recordPlaybookRun(c, ref, input, { doc, active }, workflowId)).run;
  const runKey = run._id;
  let sessionId: string | null = null;
  if (plan.steps.some((s) => s.kind === 'command')) {
    sessionId = runSessionId(runKey);
    await createSession(
      c,
      ref,
      { tenant_id: ref.tenant_id, scope: ref.scope, actor: input.actor, profile: doc.sandbox_profile, session_id: sessionId, ...(workspace ? { workspace } : {}) },
      input.actor,
    );
  }
  const at = nowIso(c);
  await steps.insertPlanned(
    plan.steps.map(
      (s): StepDoc => ({
        _id: stepId(runKey, s.step_index),
        run_key: runKey,
        run_id: run!.run_id,
        step_index: s.step_index,
        tool_name: s.tool_name,
        tool_input: s.tool_input,
        expected_output_signature: s.expected_output_signature,
        status: 'queued',
        output_signature: null,
        error: null,
        kind: s.kind,
        sandbox_run_id: null,
        attempts: [],
        match: null,
        metadata: null,
        actor: input.actor,
        started_at: null,
        ended_at: null,
        updated_at: at,
      }),
    ),
  );
  await runs.updateOpen(runKey, {
    playbook: { ...run.playbook!, version: doc.version, active_at_start: run.playbook!.active_at_start || active, session_id: sessionId, workspace },
    updated_at: at,
  });
  return {
    run_key: runKey,
    version: doc.version,
    mode: input.mode,
    session_id: sessionId,
    steps: plan.steps.map((s) => ({
      step_index: s.step_index,
      kind: s.kind,
      max_attempts: s.max_attempts,
      ...(s.backoff_ms > 0 ? { backoff_ms: s.backoff_ms } : {}),
      label: labelOf(s.tool_name, s.tool_input),
    })),
    max_steps: input.max_steps ?? null,
    ended: null,
    host_step_timeout_ms: input.host_step_timeout_ms ?? c.config.replay.hostStepTimeoutMs,
  };
}

const notEligible = (reason: string, at: string) => ({ state: 'not_eligible' as const, workflows_updated: [], reason, at });

/** Marks a host step that shadow validation cannot run. */
export async function skipStep(c: RunnerCtx, input: { tenant_id: string; scope: string; run_key: string; step_index: number; reason: string }): Promise<void> {
  const at = nowIso(c);
  await replayStores(c.db, refOf(input)).steps.transition(input.run_key, input.step_index, ['queued'], { status: 'skipped', error: input.reason, ended_at: at, updated_at: at });
}

/** Stores the sandbox run of one attempt of a command step (queued; the workflow starts it as a child). */
export async function prepareStep(c: RunnerCtx, input: { tenant_id: string; scope: string; run_key: string; step_index: number; attempt: number }): Promise<PrepareStepResult> {
  const ref = refOf(input);
  const { runs, steps } = replayStores(c.db, ref);
  const run = await runs.getByKey(input.run_key);
  const step = await steps.get(input.run_key, input.step_index);
  if (!run || !step) throw new LoreError('not_found', `step ${input.step_index} of playbook run '${input.run_key}' does not exist`, { run_key: input.run_key }, false);
  const sandboxRunId = stepSandboxRunId(run._id, input.step_index, input.attempt);
  const spec = commandOf(step.tool_name, step.tool_input);
  const command = spec ? checkedCommand(spec).command : null;
  const at = nowIso(c);
  const refuse = async (why: string): Promise<PrepareStepResult> => {
    await steps.update(run._id, input.step_index, { status: 'failed', error: why, ended_at: at, updated_at: at });
    return { refused: why, sandbox_run_id: sandboxRunId, workflow_id: '', wall_ms: 0 };
  };
  if (!command || !run.playbook?.session_id) return refuse('not a runnable command step');
  let created: Awaited<ReturnType<typeof createRunRecord>>;
  try {
    created = await createRunRecord(
      c,
      ref,
      {
        session_id: run.playbook.session_id,
        mode: 'async',
        action: { kind: 'command', argv: command.argv, ...(command.env ? { env: command.env } : {}) },
        run_id: sandboxRunId,
        limits: undefined,
        timeout_ms: command.timeout_ms,
      },
      run.actor,
    );
  } catch (err) {
    if (err instanceof LoreError && !err.retryable) return refuse(err.message);
    throw err;
  }
  const sb = created.run;
  const attempts: SandboxAttempt[] = [
    ...step.attempts.filter((a) => a.attempt !== input.attempt),
    { attempt: input.attempt, sandbox_run_id: sb.run_id, status: sb.status, exit_code: null, reason: null },
  ];
  attempts.sort((a, b) => a.attempt - b.attempt);
  await steps.update(run._id, input.step_index, { status: 'running', sandbox_run_id: sb.run_id, attempts, started_at: step.started_at ?? at, updated_at: at });
  return { refused: null, sandbox_run_id: sb.run_id, workflow_id: sb.workflow_id, wall_ms: sb.limits.wall_ms };
}

async function outcomeOf(c: RunnerCtx, ref: ScopeRef, sandboxRunId: string): Promise<CommandOutcome> {
  const { runs, logs } = sandboxStores(c.db, ref);
  const sb = await runs.get(sandboxRunId);
  if (!sb) return { status: 'failed', exit_code: null, signal: null, stdout: '', stderr: '', reason: `sandbox run '${sandboxRunId}' does not exist`, truncated: false };
  if (!isTerminal(sb.status)) {
    return { status: sb.status, exit_code: null, signal: null, stdout: '', stderr: '', reason: `its sandbox run is still ${sb.status} after its workflow ended`, truncated: false };
  }
  const text = { stdout: [] as string[], stderr: [] as string[] };
  const bytes = { stdout: 0, stderr: 0 };
  for await (const e of logs.iterate(sb._id)) {
    if (bytes[e.stream] + e.bytes > MATCH_OUTPUT_BYTES) continue;
    bytes[e.stream] += e.bytes;
    text[e.stream].push(e.text);
  }
  return { status: sb.status, exit_code: sb.exit_code, signal: sb.signal, stdout: text.stdout.join(''), stderr: text.stderr.join(''), reason: sb.reason, truncated: sb.truncated };
}

/** The host path of a run's session workdir (the sandbox's /work), where a command step's artifacts are looked for. */
async function workdirOf(c: RunnerCtx, ref: ScopeRef, sessionId: string | null): Promise<string | null> {
  if (!sessionId) return null;
  const session = await sandboxStores(c.db, ref).sessions.get(sessionId);
  return session ? path.join(c.config.sandbox.dir, session.workdir_name) : null;
}

/** Reads how the attempt's sandbox run ended and matches it against the step's expected signature. */
export async function completeStep(
  c: RunnerCtx,
  input: { tenant_id: string; scope: string; run_key: string; step_index: number; attempt: number; sandbox_run_id: string; last_attempt: boolean },
): Promise<CompleteStepResult> {
  const ref = refOf(input);
  const { runs, steps } = replayStores(c.db, ref);
  const run = (await runs.getByKey(input.run_key))!;
  const step = (await steps.get(input.run_key, input.step_index))!;
  const outcome = await outcomeOf(c, ref, input.sandbox_run_id);
  const wanted = expectationOf(step.expected_output_signature).artifacts;
  const facts = wanted.length > 0 ? await probeArtifacts(await workdirOf(c, ref, run.playbook?.session_id ?? null), wanted) : new Map();
  const match = matchCommand(step.expected_output_signature, outcome, run.playbook?.mode ?? 'strict', facts);
  const reasons = reasonsOf(match);
  const at = nowIso(c);
  const attempts = step.attempts.map((a) => (a.attempt === input.attempt ? { ...a, status: outcome.status, exit_code: outcome.exit_code, reason: outcome.reason } : a));
  const enforced = match.checks.filter((k) => k.enforced && !k.passed).map((k) => k.detail);
  const settled = match.matched || input.last_attempt;
  await steps.update(run._id, input.step_index, {
    attempts,
    output_signature: signatureOf(outcome),
    match,
    error: match.matched ? null : `${enforced.join('; ')}${settled ? '' : ` (attempt ${input.attempt}; trying again)`}`,
    ...(settled ? { status: match.matched ? 'success' : 'failed', ended_at: at } : {}),
    updated_at: at,
  });
  return { matched: match.matched, status: outcome.status, reasons };
}

/** A guided run reached a host step: it is `pending` (runs/get shows it as pending_step) until the host reports. */
export async function awaitHostStep(c: RunnerCtx, input: { tenant_id: string; scope: string; run_key: string; step_index: number }): Promise<void> {
  const at = nowIso(c);
  await replayStores(c.db, refOf(input)).steps.transition(input.run_key, input.step_index, ['queued'], {
    status: 'pending',
    waiting_since: at,
    host_report: null,
    error: null,
    started_at: at,
    updated_at: at,
  });
}

/** A host report's artifacts, for a run without a workspace to look in: listed counts as present. */
function reportedArtifacts(sig: Json | null): ArtifactFacts {
  const facts: ArtifactFacts = new Map();
  const list = Array.isArray(sig?.artifacts) ? (sig!.artifacts as unknown[]) : [];
  for (const a of list) {
    if (a && typeof a === 'object' && typeof (a as Json).path === 'string') {
      const h = (a as Json).sha256;
      facts.set((a as Json).path as string, { exists: true, sha256: typeof h === 'string' ? h.toLowerCase() : null });
    }
  }
  return facts;
}

/**
 * Judges a host step: the host's report (null when the wait timed out) against the step's
 * expected signature. Artifacts are looked for in the run's workspace when it has one, else in
 * what the host reported. Idempotent: a step already judged is answered as it is.
 */
export async function completeHostStep(
  c: RunnerCtx,
  input: { tenant_id: string; scope: string; run_key: string; step_index: number; report: HostStepReport | null; timeout_ms: number },
): Promise<CompleteStepResult> {
  const ref = refOf(input);
  const { runs, steps } = replayStores(c.db, ref);
  const run = (await runs.getByKey(input.run_key))!;
  const step = (await steps.get(input.run_key, input.step_index))!;
  if (step.status !== 'pending') return { matched: step.status === 'success', status: step.status, reasons: step.error ? [step.error] : [] };
  const at = nowIso(c);
  if (input.report === null) {
    const why = `no result from the host within ${Math.round(input.timeout_ms / 1000)} s (the host step timeout; LORE_PLAYBOOK_HOST_STEP_TIMEOUT or the run's host_step_timeout_ms)`;
    await steps.transition(run._id, input.step_index, ['pending'], { status: 'failed', error: why, ended_at: at, updated_at: at });
    return { matched: false, status: 'timed_out', reasons: [why] };
  }
  const r = input.report;
  const wanted = expectationOf(step.expected_output_signature).artifacts;
  const workspace = run.playbook?.workspace?.path ?? null;
  const facts = wanted.length === 0 ? new Map() : workspace ? await probeArtifacts(workspace, wanted) : reportedArtifacts(r.output_signature);
  const match = matchHost(step.expected_output_signature, { status: r.status, output_signature: r.output_signature, error: r.error }, run.playbook?.mode ?? 'guided', facts);
  const reasons = reasonsOf(match);
  await steps.transition(run._id, input.step_index, ['pending'], {
    status: match.matched ? 'success' : 'failed',
    output_signature: r.output_signature,
    match,
    error: match.matched ? null : reasons.join('; '),
    host_report: { status: r.status, output_signature: r.output_signature, error: r.error, actor: r.actor, at: r.at, report_id: r.report_id },
    ended_at: at,
    updated_at: at,
  });
  return { matched: match.matched, status: r.status, reasons };
}

/**
 * Ends the run: steps still running failed (cancelled with it), steps not reached skipped (or
 * pending for the host in guided mode), and the run's status and summary. A successful run of
 * the version that was active when it began is queued for workflow learning.
 */
export async function finishRun(c: RunnerCtx, input: FinishInput): Promise<PlaybookRunResult> {
  const ref = refOf(input);
  const { runs, steps } = replayStores(c.db, ref);
  let run = (await runs.getByKey(input.run_key))!;
  if (run.state === 'open') {
    const at = nowIso(c);
    const stopped = input.status === 'cancelled' ? 'cancelled with the run' : 'the run ended while it ran';
    await steps.settle(run._id, ['running'], { status: 'failed', error: stopped, ended_at: at, updated_at: at });
    // A host step the run was waiting for when it ended (cancelled, or stopped by its workflow).
    await steps.settle(run._id, ['pending'], {
      status: 'skipped',
      error: input.status === 'cancelled' ? 'the run was cancelled while this step waited for the host' : 'the run ended while this step waited for the host',
      ended_at: at,
      updated_at: at,
    });
    if (input.pending_from !== null) {
      await steps.settle(
        run._id,
        ['queued'],
        { status: 'pending', error: 'needs the host: do this step (guided mode), then the ones after it', updated_at: at },
        input.pending_from,
      );
    }
    await steps.settle(run._id, ['queued'], { status: 'skipped', error: input.status === 'cancelled' ? 'the run was cancelled' : 'not reached', updated_at: at });
    const all = await steps.list(run._id);
    const info = run.playbook!;
    const eligible = input.status === 'success' && info.purpose !== 'shadow_validation' && info.active_at_start;
    const learning = eligible
      ? { state: 'pending' as const, workflows_updated: [], reason: null, at }
      : notEligible(
          info.purpose === 'shadow_validation'
            ? 'shadow validations are not learned from'
            : input.status !== 'success'
              ? `the run ended ${input.status}`
              : 'the version was not the active one when the run began',
          at,
        );
    if (eligible) await new LearningOutbox(c.db).enqueue(ref, run._id, run.run_id, at);
    const ended = await runs.end(run._id, { status: input.status, summary: summarize(input.status, all, input.reason), ended_at: at, updated_at: at, learning });
    run = ended ?? (await runs.getByKey(run._id))!;
  }
  return resultOf(run, await steps.list(run._id));
}

/** Records a shadow validation's result on the version it validated (finished now). */
export async function recordShadowValidation(
  c: RunnerCtx,
  input: { tenant_id: string; scope: string; playbook_id: string; version: number; validation: ShadowValidation },
): Promise<ShadowValidation> {
  const at = nowIso(c);
  const validation = { ...input.validation, finished_at: input.validation.finished_at ?? at };
  await replayStores(c.db, refOf(input)).playbooks.update(input.playbook_id, input.version, { shadow_validation: validation, updated_at: at });
  return validation;
}
