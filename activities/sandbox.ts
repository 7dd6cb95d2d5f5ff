import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { LoreError } from '../src/contract/errors';
import { collectArtifacts } from '../src/domain/sandbox/collect-artifacts';
import { storesFor } from '../src/domain/sandbox/context';
import type { SandboxRunInput } from '../src/domain/sandbox/execute';
import { startSandboxHost, type SandboxHost } from '../src/domain/sandbox/host';
import { toRunnerLimits } from '../src/domain/sandbox/limits';
import { LogWriter } from '../src/domain/sandbox/log-writer';
import { isTerminal, type RunDoc, type RunStatus } from '../src/model/sandbox/records';
import { resolveWorkspace } from '../src/domain/sandbox/workspace';
import { recordWorkspaceChanges } from '../src/domain/sandbox/workspace-diff';
import { IsolationUnavailableError, SandboxSpecError, prepareWorkdir, runIsolated, syncWorkspace, withWorkdirLock, type RunOutcome } from '../src/sandbox/isolation/index';
import type { RunPatch } from '../src/store/sandbox/index';
import { scopeRef } from '../src/store/scope';
import type { ActivityDeps } from './deps';

export interface SandboxRunSummary {
  run_id: string;
  status: RunStatus;
}

export interface SandboxSettleInput {
  tenant_id: string;
  scope: string;
  run_id: string;
  status: 'failed' | 'cancelled';
  reason: string;
  /** The activity was lost (heartbeat timeout): a run that never started may be tried again. */
  lost?: boolean;
}

/** Heartbeats for the activity's whole life; cancellation is delivered with the heartbeat response. */
const HEARTBEAT_MS = 500;
/** Output counters on the run record are refreshed this often while it runs. */
const PROGRESS_MS = 2000;

const summary = (r: Pick<RunDoc, 'run_id' | 'status'>): SandboxRunSummary => ({ run_id: r.run_id, status: r.status });

/** The run record's fields from the runner's outcome. */
function outcomePatch(o: RunOutcome): RunPatch {
  return {
    status: o.status,
    exit_code: o.exit_code,
    signal: o.signal,
    duration_ms: o.duration_ms,
    stdout_tail: o.stdout_tail,
    stderr_tail: o.stderr_tail,
    truncated: o.truncated,
    output_bytes: o.output_bytes,
    dropped_bytes: o.dropped_bytes,
    limit_hit: o.limit_hit ?? null,
    reason: o.reason ?? (o.status === 'succeeded' ? 'exited with code 0' : null),
    isolation: {
      kind: o.isolation.kind,
      uid_isolation: o.isolation.uid_isolation,
      memory_limit: o.isolation.memory_limit,
      enforced: { ...o.isolation.enforced },
      weaker: o.isolation.weaker ?? null,
    },
  };
}

/** Activities of the sandbox family. */
export function createSandboxActivities(deps: ActivityDeps) {
  const { config, db, clock, log } = deps;
  // Probe isolation and publish it for the API as soon as the worker starts (not on the first run).
  let host: Promise<SandboxHost> | null = null;
  const hostReady = () =>
    (host ??= startSandboxHost({ config, db, log }).catch((err) => {
      host = null;
      throw err;
    }));
  void hostReady().catch((err) => log.error({ err }, 'sandbox: isolation probe or report failed'));

  const now = () => clock.now().toISOString();

  /** One sandbox command to its end. The activity below heartbeats `beat` (which this fills in) throughout. */
  async function runCommand(ctx: Context, input: SandboxRunInput, beat: Record<string, unknown>): Promise<SandboxRunSummary> {
    const { runs, sessions, logs, artifacts } = storesFor(db, scopeRef(input.tenant_id, input.scope));
    const run = await runs.get(input.run_id);
    if (!run) throw new LoreError('not_found', `sandbox run '${input.run_id}' does not exist`, { run_id: input.run_id }, false);
    const end = async (patch: RunPatch & { status: RunStatus }) =>
      (await runs.finish(run.run_id, { ...patch, finished_at: now(), updated_at: now() })) ?? (await runs.get(run.run_id)) ?? run;

    if (isTerminal(run.status)) return summary(run);
    if (run.status === 'running') {
      // Started by an earlier attempt whose worker was lost: never start the command again.
      return summary(await end({ status: 'failed', reason: 'worker lost during the run; the command was not re-run' }));
    }
    if (run.cancel_requested) return summary(await end({ status: 'cancelled', reason: 'cancelled before the command started' }));
    const session = await sessions.getByKey(run.session_key);
    if (!session) return summary(await end({ status: 'failed', reason: `sandbox session '${run.session_id}' no longer exists` }));
    let setUp: SandboxHost;
    try {
      // The first run may wait for the isolation probe.
      setUp = await hostReady();
    } catch (err) {
      return summary(await end({ status: 'failed', reason: `the sandbox could not be set up on this worker: ${(err as Error).message}` }));
    }
    // Isolated or refused: never unisolated unless this worker's operator chose it (LORE_SANDBOX_ISOLATION=none).
    const refusal =
      setUp.report.in_force === 'unavailable'
        ? (setUp.report.detail ?? 'sandbox isolation is unavailable on this worker')
        : run.isolation_kind === 'none' && setUp.report.in_force !== 'none'
          ? `the session was created without isolation, and this worker runs with LORE_SANDBOX_ISOLATION=${setUp.report.setting}: create a new session`
          : null;
    if (refusal) return summary(await end({ status: 'failed', reason: `refused: ${refusal}` }));

    const started = await runs.markRunning(run.run_id, { started_at: now(), updated_at: now() });
    if (!started) return summary((await runs.get(run.run_id)) ?? run);

    let workdir;
    try {
      // Never while workdir retention is removing the same workdir (retention.ts).
      workdir = await withWorkdirLock(session.workdir_name, () => prepareWorkdir(config.sandbox.dir, session.workdir_name));
    } catch (err) {
      return summary(await end({ status: 'failed', reason: `the session workdir could not be prepared: ${(err as Error).message}` }));
    }
    // The workspace, checked against this worker's own LORE_SANDBOX_WORKSPACE_ROOTS (docs/sandbox.md, "Workspaces").
    let workspace: string | null = null;
    const overlay = session.workspace?.view === 'overlay';
    if (session.workspace) {
      try {
        workspace = resolveWorkspace(config, session.workspace).path;
      } catch (err) {
        return summary(await end({ status: 'failed', reason: `the workspace ${session.workspace.path} cannot be used on this worker: ${(err as Error).message}` }));
      }
    }
    if (workspace && overlay && setUp.info?.workspace_view !== 'overlay') {
      // The workdir holds the session's overlay layer: a copy made into it would hide the project's later edits.
      const why = setUp.report.workspace_detail ?? 'its overlay probe failed';
      return summary(
        await end({ status: 'failed', reason: `refused: the session sees its workspace through an overlay, which this worker cannot mount (${why}): create a new session` }),
      );
    }
    if (workspace && !overlay) {
      // A copy: the host's latest edits are copied into the workdir before the command starts.
      // (An overlay is mounted by the runner for the run itself: nothing to copy or re-check.)
      beat.phase = 'copying the workspace';
      try {
        const where = workspace;
        const owner = workdir.sessionId !== null ? { uid: workdir.sessionId, gid: workdir.sessionId } : null;
        const hostPath = workdir.hostPath;
        const copied = await withWorkdirLock(session.workdir_name, () => syncWorkspace(where, hostPath, owner));
        log.debug({ run_id: run.run_id, ...copied }, 'sandbox: workspace brought up to date');
      } catch (err) {
        return summary(await end({ status: 'failed', reason: `the workspace ${workspace} could not be copied into the session workdir: ${(err as Error).message}` }));
      }
    }

    // Why the activity was asked to stop: the caller cancelled, or the worker is shutting down.
    let stopCause: 'cancel' | 'shutdown' | null = null;
    const abort = new AbortController();
    const onAbort = () => {
      stopCause = ctx.cancellationDetails?.workerShutdown ? 'shutdown' : 'cancel';
      abort.abort();
    };
    ctx.cancellationSignal.addEventListener('abort', onAbort, { once: true });
    if (ctx.cancellationSignal.aborted) onAbort();

    const writer = new LogWriter(logs, run._id, clock);
    let outputBytes = 0;
    beat.phase = 'running';
    const progress = setInterval(() => {
      beat.output_bytes = outputBytes;
      beat.log_entries = writer.entries;
      void runs.progress(run.run_id, { output_bytes: outputBytes, log_entries: writer.storedEntries, updated_at: now() }).catch(() => undefined);
    }, PROGRESS_MS);

    const startMs = Date.now();
    let outcome: RunOutcome | null = null;
    let failure: string | null = null;
    try {
      outcome = await runIsolated(
        {
          argv: run.argv,
          workdir: workdir.hostPath,
          env: run.env,
          limits: toRunnerLimits(run.limits),
          isolation: run.isolation_kind,
          // local-safe refuses shells at the API already; the runner checks again.
          ...(run.profile === 'local-safe' ? { shell: false } : {}),
          ...(workspace && overlay ? { workspace } : {}),
        },
        {
          onOutput: (stream, chunk) => {
            outputBytes += Buffer.byteLength(chunk);
            writer.push(stream, chunk);
          },
          signal: abort.signal,
        },
      );
    } catch (err) {
      failure =
        err instanceof SandboxSpecError
          ? `refused by the sandbox: ${err.message}`
          : err instanceof IsolationUnavailableError
            ? `isolation '${run.isolation_kind}' is not available on this worker: ${err.message}`
            : `the sandbox runner failed: ${(err as Error).message}`;
    } finally {
      clearInterval(progress);
      ctx.cancellationSignal.removeEventListener('abort', onAbort);
    }

    await writer.close();
    const collected = await collectArtifacts(workdir.artifactsPath, run._id, startMs).catch((err: Error) => ({
      docs: [],
      skipped: [`(artifacts could not be collected: ${err.message})`],
    }));
    await artifacts.save(collected.docs);
    // What the session has changed in its workspace, for sessions/diff (workspace-diff.ts).
    beat.phase = 'reading the workspace changes';
    const changes = workspace
      ? await recordWorkspaceChanges(db, scopeRef(input.tenant_id, input.scope), { session, run, workdir: workdir.hostPath, workspace, at: now() }).catch((err: Error) => {
          log.warn({ err, run_id: run.run_id }, 'sandbox: the workspace changes could not be read');
          return null;
        })
      : null;

    const patch: RunPatch & { status: RunStatus } = outcome
      ? (outcomePatch(outcome) as RunPatch & { status: RunStatus })
      : { status: 'failed', reason: failure ?? 'the sandbox runner failed', output_bytes: outputBytes };
    if (outcome?.status === 'cancelled') {
      if (stopCause === 'shutdown') {
        patch.status = 'failed';
        patch.reason = 'the worker shut down during the run: the process tree was killed and the command will not be re-run';
      } else {
        // The reason was stored by the cancel route after this activity read the run.
        const why = (await runs.get(run.run_id).catch(() => null))?.cancel_reason;
        patch.reason = `cancelled${why ? `: ${why}` : ''}; process tree killed`;
      }
    }
    if (writer.problem) patch.reason = `${patch.reason ?? ''} (${writer.problem})`.trim();
    const final = await end({
      ...patch,
      log_entries: writer.storedEntries,
      artifact_count: collected.docs.length,
      artifacts_skipped: collected.skipped.slice(0, 100),
      ...(workspace ? { workspace_changes: changes } : {}),
    });
    log.debug({ run_id: run.run_id, status: final.status, duration_ms: final.duration_ms }, 'sandbox run ended');
    // Report a cancelled activity as cancelled, so the workflow (and the Temporal UI) shows it.
    if (stopCause === 'cancel' && final.status === 'cancelled') throw new CancelledFailure('sandbox run cancelled');
    return summary(final);
  }

  return {
    /**
     * Runs one sandbox command to its end. Not retried (maximumAttempts 1, see workflows/sandbox.ts):
     * a command that may have had side effects is never started twice. Heartbeats every 500 ms;
     * cancellation (or worker shutdown) kills the whole process tree.
     */
    async sandboxRunCommand(input: SandboxRunInput): Promise<SandboxRunSummary> {
      const ctx = Context.current();
      // A heartbeat for the activity's whole life, not only while the command runs: on a loaded
      // machine the store round trips before and after the command can outlast the heartbeat
      // timeout, and a live run must never be settled as "worker lost".
      const beat: Record<string, unknown> = { phase: 'picked_up' };
      ctx.heartbeat(beat);
      const keepAlive = setInterval(() => ctx.heartbeat({ ...beat }), HEARTBEAT_MS);
      try {
        return await runCommand(ctx, input, beat);
      } finally {
        clearInterval(keepAlive);
      }
    },

    /**
     * Records how a run ended when its command activity could not (cancelled before it started,
     * worker lost, activity failure). Idempotent: a run that already ended is left as it is.
     */
    async sandboxSettleRun(input: SandboxSettleInput): Promise<{ state: 'settled' | 'not_started'; summary: SandboxRunSummary }> {
      const { runs } = storesFor(db, scopeRef(input.tenant_id, input.scope));
      const run = await runs.get(input.run_id);
      if (!run) return { state: 'settled', summary: { run_id: input.run_id, status: 'failed' } };
      if (isTerminal(run.status)) return { state: 'settled', summary: summary(run) };
      // Lost before it was marked running: the command never started, so trying again is safe.
      if (input.lost && run.status === 'queued' && !run.cancel_requested) return { state: 'not_started', summary: summary(run) };
      const at = now();
      const ended = (await runs.finish(run.run_id, { status: input.status, reason: input.reason, finished_at: at, updated_at: at })) ?? (await runs.get(run.run_id)) ?? run;
      return { state: 'settled', summary: summary(ended) };
    },
  };
}

export type SandboxActivities = ReturnType<typeof createSandboxActivities>;
