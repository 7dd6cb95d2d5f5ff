import { LoreError, invalidState } from '../../contract/errors';
import type { ScopeRef } from '../../store/scope';
import { requireEnabled } from '../sandbox/context';
import { optionalWorkspace, type Workspace } from '../sandbox/workspace';
import { nowIso, replayStores, type ReplayCtx, type ReplayStoreCtx } from './context';
import { planIssues, planOf, type Plan } from './plan';
import { validationFailed } from './validate';
import { sameJson } from './json';
import type { PlaybookDoc, PlaybookRunInfo, RunDoc, StepDoc } from '../../model/replay/types';
import { effectiveStatus } from './views';
import type { PlaybookRunInput, PlaybookRunResult, PlaybookStepResult } from './workflow-types';

/**
 * The replay run record of a playbook execution. Every playbook run, dispatch, automation node
 * and shadow validation is recorded as a replay run (source `playbook` or `shadow_validation`)
 * whose steps its workflow's activities write, so `replay/runs/get` shows it like a recorded run.
 */

export function newPlaybookRunDoc(
  c: ReplayStoreCtx,
  input: PlaybookRunInput,
  info: Omit<PlaybookRunInfo, 'playbook_id' | 'mode' | 'purpose' | 'params' | 'max_steps'>,
  goal: string,
): RunDoc {
  const at = nowIso(c);
  return {
    _id: input.run_key,
    run_id: input.run_id,
    goal,
    state: 'open',
    status: 'open',
    summary: null,
    source: input.purpose === 'shadow_validation' ? 'shadow_validation' : 'playbook',
    playbook: {
      playbook_id: input.playbook_id,
      mode: input.mode,
      purpose: input.purpose,
      params: input.params,
      max_steps: input.max_steps ?? null,
      workspace: input.workspace ?? null,
      ...info,
    },
    metadata: input.metadata ?? null,
    actor: input.actor,
    created_at: at,
    updated_at: at,
    ended_at: null,
    learning: null,
    // Wall time, not the injected clock: the reconcile grace period is measured against the engine's real start (created_wall_ms).
    created_wall_ms: Date.now(),
  };
}

/**
 * Inserts the run record; the same run_id again is the same run when it asks for the same
 * playbook, version, mode and params (an idempotent retry), else conflict.
 */
export async function insertPlaybookRun(c: ReplayStoreCtx, ref: ScopeRef, doc: RunDoc): Promise<{ run: RunDoc; created: boolean }> {
  const { runs } = replayStores(c.db, ref);
  const inserted = await runs.insert(doc);
  if (inserted) return { run: inserted, created: true };
  const existing = await runs.get(doc.run_id);
  if (!existing) throw new LoreError('conflict', `replay run '${doc.run_id}' could not be created; retry`, { run_id: doc.run_id }, true);
  const a = existing.playbook;
  const b = doc.playbook!;
  const same =
    a &&
    a.playbook_id === b.playbook_id &&
    a.mode === b.mode &&
    (b.version === null || a.version === b.version) &&
    sameJson(a.params, b.params) &&
    (a.workspace?.path ?? null) === (b.workspace?.path ?? null);
  if (!same) {
    throw new LoreError('conflict', `replay run '${doc.run_id}' exists with a different playbook, version, mode, params or workspace`, {
      run_id: doc.run_id,
      playbook_id: a?.playbook_id ?? null,
      version: a?.version ?? null,
    });
  }
  return { run: existing, created: false };
}

/**
 * The version a run uses: the one asked for, else the active one. Rejected and disabled versions
 * never run. A simulation (which runs nothing) takes the latest version when none is active
 * (`latestWhenNoActive`), so a freshly compiled playbook can be simulated before it is promoted.
 */
export async function runnableVersion(
  c: ReplayStoreCtx,
  ref: ScopeRef,
  playbookId: string,
  version: number | null | undefined,
  opts: { latestWhenNoActive?: boolean } = {},
): Promise<{ doc: PlaybookDoc; active: boolean }> {
  const { playbooks, active } = replayStores(c.db, ref);
  const pointer = await active.get(playbookId);
  let doc: PlaybookDoc | null;
  if (version === null || version === undefined) {
    if (pointer === null) {
      const any = await playbooks.latest(playbookId);
      if (!any) throw new LoreError('not_found', `playbook '${playbookId}' does not exist in scope '${ref.scope}'`, { playbook_id: playbookId });
      if (opts.latestWhenNoActive) {
        const status = effectiveStatus(any, pointer);
        if (status === 'rejected' || status === 'disabled') {
          throw invalidState(`playbook '${playbookId}' has no active version and its latest (${any.version}) is ${status}; name a version`, status, {
            playbook_id: playbookId,
            version: any.version,
          });
        }
        return { doc: any, active: false };
      }
      throw invalidState(`playbook '${playbookId}' has no active version; promote one, or name a version`, 'no_active_version', { playbook_id: playbookId });
    }
    doc = await playbooks.get(playbookId, pointer);
  } else {
    doc = await playbooks.get(playbookId, version);
  }
  if (!doc) {
    const exists = await playbooks.latest(playbookId);
    if (!exists) throw new LoreError('not_found', `playbook '${playbookId}' does not exist in scope '${ref.scope}'`, { playbook_id: playbookId });
    throw new LoreError('not_found', `playbook '${playbookId}' has no version ${version}`, { playbook_id: playbookId, version });
  }
  const status = effectiveStatus(doc, pointer);
  if (status === 'rejected' || status === 'disabled') {
    throw invalidState(`playbook '${playbookId}' version ${doc.version} is ${status} and does not run`, status, { playbook_id: playbookId, version: doc.version });
  }
  return { doc, active: pointer === doc.version };
}

/** What a playbook run runs: its version (checked runnable), the plan for its params, and its workspace. */
export interface ResolvedPlaybookRun {
  doc: PlaybookDoc;
  /** Whether the version was the active one. */
  active: boolean;
  plan: Plan;
  workspace: Workspace | null;
}

/**
 * Resolves what a playbook run runs, or says why it cannot: the version (named, else the active
 * one), the plan for the params (validation_failed when the mode cannot run it), the sandbox when
 * a step is a command, and the workspace against this process's LORE_SANDBOX_WORKSPACE_ROOTS. The
 * API resolves a request with it before recording the run; the run's first activity resolves the
 * version the record names (on the worker's roots), or the input's when nothing recorded the run.
 */
export async function resolvePlaybookRun(
  c: Pick<ReplayCtx, 'db' | 'clock' | 'config'>,
  ref: ScopeRef,
  req: Pick<PlaybookRunInput, 'playbook_id' | 'mode' | 'params' | 'purpose'> & { version?: number | null | undefined; workspace?: { path: string } | null | undefined },
): Promise<ResolvedPlaybookRun> {
  const { doc, active } = await runnableVersion(c, ref, req.playbook_id, req.version);
  const plan = planOf(doc, req.params);
  // Shadow validation skips host steps rather than refusing them.
  const issues = planIssues(plan, req.purpose === 'shadow_validation' ? 'guided' : req.mode);
  if (issues.length > 0)
    throw validationFailed(`playbook '${doc.playbook_id}' version ${doc.version} cannot run in ${req.mode} mode`, issues, {
      playbook_id: doc.playbook_id,
      version: doc.version,
    });
  if (plan.steps.some((s) => s.kind === 'command')) requireEnabled(c.config);
  const workspace = optionalWorkspace(c.config, req.workspace);
  return { doc, active, plan, workspace };
}

/** Records a resolved playbook run (open, its goal resolved): the same run_id again attaches to it (insertPlaybookRun). */
export async function recordPlaybookRun(
  c: ReplayStoreCtx,
  ref: ScopeRef,
  input: PlaybookRunInput,
  resolved: Pick<ResolvedPlaybookRun, 'doc' | 'active'>,
  workflowId: string,
): Promise<{ run: RunDoc; created: boolean }> {
  const { doc, active } = resolved;
  const goal = await goalOf(c, ref, doc.source_run_id, doc.name, input.goal);
  return insertPlaybookRun(c, ref, newPlaybookRunDoc(c, input, { version: doc.version, workflow_id: workflowId, active_at_start: active, session_id: null }, goal));
}

/** The goal of a playbook run: the caller's, else its playbook's source run goal, else the playbook name. */
export async function goalOf(c: ReplayStoreCtx, ref: ScopeRef, sourceRunId: string | null, name: string, given: string | null | undefined): Promise<string> {
  if (given) return given;
  const source = sourceRunId ? await replayStores(c.db, ref).runs.get(sourceRunId) : null;
  return source?.goal ?? name;
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);

export function stepResultOf(s: StepDoc, withInput: boolean): PlaybookStepResult {
  const out = s.output_signature;
  return {
    step_index: s.step_index,
    tool_name: s.tool_name,
    kind: s.kind ?? 'host',
    status: s.status,
    matched: s.match ? s.match.matched : null,
    attempts: s.attempts.length,
    sandbox_run_id: s.sandbox_run_id,
    exit_code: typeof out?.exit_code === 'number' ? out.exit_code : null,
    stdout: str(out?.summary),
    reasons: s.error ? [s.error] : [],
    ...(withInput ? { tool_input: s.tool_input } : {}),
  };
}

/** The workflow's result, read back from the run record (the store is the source of truth). */
export function resultOf(run: RunDoc, steps: StepDoc[]): PlaybookRunResult {
  const results = steps.map((s) => stepResultOf(s, s.status === 'pending'));
  const count = (st: string) => results.filter((r) => r.status === st).length;
  const outputs: Record<string, string> = {};
  for (const r of results) if (r.stdout !== null && r.kind === 'command') outputs[String(r.step_index)] = r.stdout;
  const status = run.status === 'open' ? 'failure' : run.status;
  return {
    run_id: run.run_id,
    run_key: run._id,
    playbook_id: run.playbook?.playbook_id ?? '',
    version: run.playbook?.version ?? 0,
    mode: run.playbook?.mode ?? 'strict',
    status,
    summary: run.summary ?? '',
    steps: results,
    totals: { steps: results.length, succeeded: count('success'), failed: count('failed'), skipped: count('skipped'), pending: count('pending') },
    outputs,
  };
}

/** A one-line account of how a run went, for run.summary. */
export function summarize(status: string, steps: StepDoc[], reason: string | null): string {
  const n = steps.length;
  const ok = steps.filter((s) => s.status === 'success').length;
  const failed = steps.find((s) => s.status === 'failed');
  const pending = steps.filter((s) => s.status === 'pending').length;
  const parts = [`${ok}/${n} steps succeeded`];
  if (failed) parts.push(`step ${failed.step_index} (${failed.tool_name}) failed${failed.error ? `: ${failed.error}` : ''}`);
  if (pending) parts.push(`${pending} step(s) pending for the host`);
  if (reason) parts.push(reason);
  return `${status}: ${parts.join('; ')}`.slice(0, 2000);
}
