import { LoreError } from '../../contract/errors';
import { isTerminal, type RunDoc, type RunStatus } from '../../model/sandbox/records';
import { IsolationUnavailableError, SandboxSpecError, prepareWorkdir, runIsolated, syncWorkspace, withWorkdirLock, type RunOutcome } from '../../sandbox/isolation/index';
import type { RunPatch } from '../../store/sandbox/index';
import { refOf } from '../../store/scope';
import { collectArtifacts } from './collect-artifacts';
import { sandboxStores, type SandboxCtx } from './context';
import type { SandboxRunInput } from './execute';
import type { SandboxHost } from './host';
import { toRunnerLimits } from './limits';
import { LogWriter } from './log-writer';
import { resolveWorkspace } from './workspace';
import { recordWorkspaceChanges } from './workspace-diff';

/**
 * A sandbox run on the worker, from queued to its end (the sandboxRunCommand activity is the
 * adapter: heartbeat and cancellation wiring; workflows/sandbox.ts settles what this cannot).
 */

/** What the workflow learns of a run. */
export interface SandboxRunSummary {
  run_id: string;
  status: RunStatus;
}

/** How a run ends when its command activity could not record it (workflows/sandbox.ts). */
export interface SandboxSettleInput {
  tenant_id: string;
  scope: string;
  run_id: string;
  status: 'failed' | 'cancelled';
  reason: string;
  /** The activity was lost (heartbeat timeout): a run that never started may be tried again. */
  lost?: boolean;
}

/** What the worker's command runner uses. */
export type CommandRunCtx = Pick<SandboxCtx, 'config' | 'db' | 'clock' | 'log'>;

/** How the activity running the command is wired to the engine. */
export interface CommandWiring {
  /** The worker's sandbox host (the first run may wait for its isolation probe). */
  host: () => Promise<SandboxHost>;
  /** Aborts when the activity is asked to stop. */
  stop: AbortSignal;
  /** Whether the stop is the worker shutting down (else the caller cancelled); asked when `stop` aborts. */
  isShutdown: () => boolean;
  /** What the activity's heartbeat reports (phase, output counters); filled in as the run goes. */
  beat: Record<string, unknown>;
}

/** Output counters on the run record are refreshed this often while it runs. */
const PROGRESS_MS = 2000;

export const runSummary = (r: Pick<RunDoc, 'run_id' | 'status'>): SandboxRunSummary => ({ run_id: r.run_id, status: r.status });

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

/**
 * One sandbox command to its end: refuses what this worker cannot run safely (a run an earlier
 * attempt started, a cancelled or orphaned run, isolation that is unavailable or weaker than the
 * session's), prepares the workdir and workspace, runs the command isolated while its output goes
 * to the run's log, then stores artifacts, workspace changes and the outcome. `cancelled` is true
 * when the caller's cancel ended it (the activity reports itself cancelled then).
 */
export async function runSandboxCommand(c: CommandRunCtx, input: SandboxRunInput, w: CommandWiring): Promise<{ summary: SandboxRunSummary; cancelled: boolean }> {
  const { config, db, clock, log } = c;
  const now = () => clock.now().toISOString();
  const ended = (r: RunDoc) => ({ summary: runSummary(r), cancelled: false });
  const ref = refOf(input);
  const { runs, sessions, logs, artifacts } = sandboxStores(db, ref);
  const run = await runs.get(input.run_id);
  if (!run) throw new LoreError('not_found', `sandbox run '${input.run_id}' does not exist`, { run_id: input.run_id }, false);
  const end = async (patch: RunPatch & { status: RunStatus }) =>
    (await runs.finish(run.run_id, { ...patch, finished_at: now(), updated_at: now() })) ?? (await runs.get(run.run_id)) ?? run;
  /** Ends the run before its command started. */
  const refuse = async (patch: RunPatch & { status: RunStatus }) => ended(await end(patch));

  if (isTerminal(run.status)) return ended(run);
  if (run.status === 'running') {
    // Started by an earlier attempt whose worker was lost: never start the command again.
    return refuse({ status: 'failed', reason: 'worker lost during the run; the command was not re-run' });
  }
  if (run.cancel_requested) return refuse({ status: 'cancelled', reason: 'cancelled before the command started' });
  const session = await sessions.getByKey(run.session_key);
  if (!session) return refuse({ status: 'failed', reason: `sandbox session '${run.session_id}' no longer exists` });
  let setUp: SandboxHost;
  try {
    // The first run may wait for the isolation probe.
    setUp = await w.host();
  } catch (err) {
    return refuse({ status: 'failed', reason: `the sandbox could not be set up on this worker: ${(err as Error).message}` });
  }
  // Isolated or refused: never unisolated unless this worker's operator chose it (LORE_SANDBOX_ISOLATION=none).
  const refusal =
    setUp.report.in_force === 'unavailable'
      ? (setUp.report.detail ?? 'sandbox isolation is unavailable on this worker')
      : run.isolation_kind === 'none' && setUp.report.in_force !== 'none'
        ? `the session was created without isolation, and this worker runs with LORE_SANDBOX_ISOLATION=${setUp.report.setting}: create a new session`
        : null;
  if (refusal) return refuse({ status: 'failed', reason: `refused: ${refusal}` });

  const started = await runs.markRunning(run.run_id, { started_at: now(), updated_at: now() });
  if (!started) return ended((await runs.get(run.run_id)) ?? run);

  let workdir: Awaited<ReturnType<typeof prepareWorkdir>>;
  try {
    // Never while workdir retention is removing the same workdir (retention.ts).
    workdir = await withWorkdirLock(session.workdir_name, () => prepareWorkdir(config.sandbox.dir, session.workdir_name));
  } catch (err) {
    return refuse({ status: 'failed', reason: `the session workdir could not be prepared: ${(err as Error).message}` });
  }
  // The workspace, checked against this worker's own LORE_SANDBOX_WORKSPACE_ROOTS (docs/sandbox.md, "Workspaces").
  let workspace: string | null = null;
  const overlay = session.workspace?.view === 'overlay';
  if (session.workspace) {
    try {
      workspace = resolveWorkspace(config, session.workspace).path;
    } catch (err) {
      return refuse({ status: 'failed', reason: `the workspace ${session.workspace.path} cannot be used on this worker: ${(err as Error).message}` });
    }
  }
  if (workspace && overlay && setUp.info?.workspace_view !== 'overlay') {
    // The workdir holds the session's overlay layer: a copy made into it would hide the project's later edits.
    const why = setUp.report.workspace_detail ?? 'its overlay probe failed';
    return refuse({ status: 'failed', reason: `refused: the session sees its workspace through an overlay, which this worker cannot mount (${why}): create a new session` });
  }
  if (workspace && !overlay) {
    // A copy: the host's latest edits are copied into the workdir before the command starts.
    // (An overlay is mounted by the runner for the run itself: nothing to copy or re-check.)
    w.beat.phase = 'copying the workspace';
    try {
      const where = workspace;
      const owner = workdir.sessionId !== null ? { uid: workdir.sessionId, gid: workdir.sessionId } : null;
      const hostPath = workdir.hostPath;
      const copied = await withWorkdirLock(session.workdir_name, () => syncWorkspace(where, hostPath, owner));
      log.debug({ run_id: run.run_id, ...copied }, 'sandbox: workspace brought up to date');
    } catch (err) {
      return refuse({ status: 'failed', reason: `the workspace ${workspace} could not be copied into the session workdir: ${(err as Error).message}` });
    }
  }

  // Why the activity was asked to stop: the caller cancelled, or the worker is shutting down.
  let stopCause: 'cancel' | 'shutdown' | null = null;
  const abort = new AbortController();
  const onAbort = () => {
    stopCause = w.isShutdown() ? 'shutdown' : 'cancel';
    abort.abort();
  };
  w.stop.addEventListener('abort', onAbort, { once: true });
  if (w.stop.aborted) onAbort();

  const writer = new LogWriter(logs, run._id, clock);
  let outputBytes = 0;
  w.beat.phase = 'running';
  const progress = setInterval(() => {
    w.beat.output_bytes = outputBytes;
    w.beat.log_entries = writer.entries;
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
    w.stop.removeEventListener('abort', onAbort);
  }

  await writer.close();
  const collected = await collectArtifacts(workdir.artifactsPath, run._id, startMs).catch((err: Error) => ({
    docs: [],
    skipped: [`(artifacts could not be collected: ${err.message})`],
  }));
  await artifacts.save(collected.docs);
  // What the session has changed in its workspace, for sessions/diff (workspace-diff.ts).
  w.beat.phase = 'reading the workspace changes';
  const changes = workspace
    ? await recordWorkspaceChanges(db, ref, { session, run, workdir: workdir.hostPath, workspace, at: now() }).catch((err: Error) => {
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
  return { summary: runSummary(final), cancelled: stopCause === 'cancel' && final.status === 'cancelled' };
}

/**
 * Records how a run ended when its command activity could not (cancelled before it started,
 * worker lost, activity failure). Idempotent: a run that already ended is left as it is.
 * `not_started`: the activity was lost before the command started, so trying again is safe.
 */
export async function settleSandboxRun(c: Pick<SandboxCtx, 'db' | 'clock'>, input: SandboxSettleInput): Promise<{ state: 'settled' | 'not_started'; summary: SandboxRunSummary }> {
  const { runs } = sandboxStores(c.db, refOf(input));
  const run = await runs.get(input.run_id);
  if (!run) return { state: 'settled', summary: { run_id: input.run_id, status: 'failed' } };
  if (isTerminal(run.status)) return { state: 'settled', summary: runSummary(run) };
  // Lost before it was marked running: the command never started, so trying again is safe.
  if (input.lost && run.status === 'queued' && !run.cancel_requested) return { state: 'not_started', summary: runSummary(run) };
  const at = c.clock.now().toISOString();
  const ended = (await runs.finish(run.run_id, { status: input.status, reason: input.reason, finished_at: at, updated_at: at })) ?? (await runs.get(run.run_id)) ?? run;
  return { state: 'settled', summary: runSummary(ended) };
}
