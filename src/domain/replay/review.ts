import { invalidState } from '../../contract/errors';
import { WaitTimeout } from '../../engine/engine';
import type { ScopeRef } from '../../store/scope';
import { uuidv7 } from '../../model/ids';
import { requireEnabled } from '../sandbox/context';
import { optionalWorkspace, type Workspace } from '../sandbox/workspace';
import { loadVersion, nowIso, replayStores, type ReplayCtx } from './context';
import { planIssues, planOf } from './plan';
import { announceActive, statusAnswer } from './playbooks';
import { goalOf, insertPlaybookRun, newPlaybookRunDoc, runnableVersion } from './playbook-runs';
import { setVersionStatus } from './status';
import type { Json, PlaybookDoc, PromoteTarget, ReviewAction, ShadowMode, ShadowValidation } from '../../model/replay/types';
import { validateContent } from './validate';
import { SHADOW_VALIDATION_WORKFLOW, shadowValidationWorkflowId, type PlaybookRunInput } from './workflow-types';

/**
 * playbooks/repair/review: the decision on a repaired version (a draft with repair_of).
 *
 * approve → target_status_on_approve (default shadow). With auto_shadow_validate the version is
 * validated first and the result recorded on it (shadow_validation): `execute_sandbox` really
 * runs the steps (a workflow: the same execution as a strict run, host steps skipped, in a fresh
 * sandbox session); `dry_run` checks them statically (commands allowed by the profile,
 * parameters resolvable, steps well formed). A validation that does not pass never blocks the
 * reviewer's approval to shadow, but it does block `active`: the version then becomes shadow and
 * activation_blocked says why.
 *
 * reject → rejected. Nothing else changes: the active version (if any) stays the one runs use.
 */

export interface ReviewInput {
  playbook_id: string;
  version?: number | undefined;
  action: ReviewAction;
  note?: string | undefined;
  auto_shadow_validate: boolean;
  shadow_validation_mode: ShadowMode;
  shadow_validation_params?: Json | undefined;
  target_status_on_approve: PromoteTarget;
  wait_ms: number;
  workspace?: { path: string } | undefined;
}

function dryRun(doc: PlaybookDoc, params: Json, at: string): ShadowValidation {
  const plan = planOf(doc, params);
  const issues = [...validateContent(doc.steps, doc.parameters), ...planIssues(plan, 'guided')].map((i) => `${i.path}: ${i.message}`);
  const hosts = plan.steps.filter((s) => s.kind === 'host').length;
  const status = issues.length > 0 ? 'failed' : hosts > 0 ? 'partial' : 'passed';
  return {
    mode: 'dry_run',
    status,
    run_id: null,
    workflow_id: null,
    started_at: at,
    finished_at: at,
    steps: plan.steps.map((s) => ({
      step_index: s.step_index,
      status: s.kind === 'host' ? 'not_run' : s.problems.length > 0 ? 'failed' : 'checked',
      matched: null,
      reasons: s.kind === 'host' ? ['host step: not checked'] : s.problems,
    })),
    issues,
    summary:
      status === 'failed'
        ? `failed: ${issues.length} problem(s) found without running anything`
        : `${status}: ${plan.steps.length - hosts} command step(s) checked statically${hosts ? `, ${hosts} host step(s) not checked` : ''}; nothing ran`,
  };
}

/** Runs the version in the sandbox as a shadow-validation workflow and waits for its result (up to waitMs). */
async function executeValidation(
  c: ReplayCtx,
  ref: ScopeRef,
  doc: PlaybookDoc,
  params: Json,
  actor: string,
  waitMs: number,
  workspace: Workspace | null,
): Promise<ShadowValidation> {
  const { playbooks } = replayStores(c.db, ref);
  const at = nowIso(c);
  const plan = planOf(doc, params);
  const issues = planIssues(plan, 'guided');
  if (issues.length > 0) {
    const failed: ShadowValidation = {
      ...dryRun(doc, params, at),
      mode: 'execute_sandbox',
      status: 'failed',
      summary: `failed: the validation could not run: ${issues.map((i) => i.message).join('; ')}`,
    };
    await playbooks.update(doc.playbook_id, doc.version, { shadow_validation: failed, updated_at: at });
    return failed;
  }
  if (plan.steps.some((s) => s.kind === 'command')) requireEnabled(c.config);
  const key = uuidv7(c.clock.now().getTime());
  const workflowId = shadowValidationWorkflowId(key);
  const run: PlaybookRunInput = {
    tenant_id: ref.tenant_id,
    scope: ref.scope,
    actor,
    run_key: key,
    run_id: `shadow-${key}`,
    playbook_id: doc.playbook_id,
    version: doc.version,
    mode: 'strict',
    params: plan.params,
    purpose: 'shadow_validation',
    goal: `shadow validation of playbook ${doc.playbook_id} version ${doc.version}`,
    workspace,
  };
  const goal = await goalOf(c, ref, doc.source_run_id, doc.name, run.goal);
  await insertPlaybookRun(c, ref, newPlaybookRunDoc(c, run, { version: doc.version, workflow_id: workflowId, active_at_start: false, session_id: null }, goal));
  const running: ShadowValidation = {
    mode: 'execute_sandbox',
    status: 'running',
    run_id: run.run_id,
    workflow_id: workflowId,
    started_at: at,
    finished_at: null,
    steps: [],
    issues: [],
    summary: 'running',
  };
  await playbooks.update(doc.playbook_id, doc.version, { shadow_validation: running, updated_at: at });
  await c.engine.start({
    workflowType: SHADOW_VALIDATION_WORKFLOW,
    workflowId,
    args: [{ run, started_at: at, workflow_id: workflowId }],
    labels: { tenant_id: ref.tenant_id, scope: ref.scope, kind: 'shadow_validation', playbook_id: doc.playbook_id },
    summary: `shadow validation of playbook ${doc.playbook_id} v${doc.version}`.slice(0, 200),
  });
  try {
    return await c.engine.result<ShadowValidation>(workflowId, waitMs);
  } catch (err) {
    if (!(err instanceof WaitTimeout)) throw err;
    return { ...running, summary: `running: still going after ${waitMs} ms; the result will be recorded on the version (playbooks/get)` };
  }
}

export async function reviewRepair(c: ReplayCtx, ref: ScopeRef, input: ReviewInput, actor: string) {
  const { playbooks, active } = replayStores(c.db, ref);
  const doc = await loadVersion(playbooks, input.playbook_id, input.version);
  if (doc.repair_of === null) {
    throw invalidState(`playbook '${doc.playbook_id}' version ${doc.version} is not a repair; only repaired versions are reviewed (use promote)`, 'not_a_repair', {
      playbook_id: doc.playbook_id,
      version: doc.version,
    });
  }
  const pointer = await active.get(doc.playbook_id);
  if (doc.status !== 'draft' || pointer === doc.version) {
    throw invalidState(
      `playbook '${doc.playbook_id}' version ${doc.version} was already reviewed (it is ${pointer === doc.version ? 'active' : doc.status})`,
      pointer === doc.version ? 'active' : doc.status,
      {
        playbook_id: doc.playbook_id,
        version: doc.version,
      },
    );
  }
  // A workspace that cannot be used is the caller's mistake: refused before anything changes.
  const workspace =
    input.action === 'approve' && input.auto_shadow_validate && input.shadow_validation_mode === 'execute_sandbox' ? optionalWorkspace(c.config, input.workspace) : null;
  const at = nowIso(c);
  const review = { action: input.action, actor, note: input.note ?? null, at };
  if (input.action === 'reject') {
    const r = await setVersionStatus(c, ref, doc.playbook_id, doc.version, 'rejected', { actor, note: input.note ?? null, via: 'review', expected: 'draft', patch: { review } });
    return { ...statusAnswer(r, null), action: input.action, shadow_validation: r.doc.shadow_validation, activation_blocked: null };
  }

  let validation: ShadowValidation | null = null;
  if (input.auto_shadow_validate) {
    const params = input.shadow_validation_params ?? {};
    if (input.shadow_validation_mode === 'dry_run') {
      validation = dryRun(doc, params, at);
      await playbooks.update(doc.playbook_id, doc.version, { shadow_validation: validation, updated_at: at });
    } else {
      await runnableVersion(c, ref, doc.playbook_id, doc.version);
      validation = await executeValidation(c, ref, doc, params, actor, input.wait_ms, workspace);
    }
  }
  let target = input.target_status_on_approve;
  let blocked: string | null = null;
  if (target === 'active' && validation && validation.status !== 'passed') {
    target = 'shadow';
    blocked = `shadow validation ${validation.status}: ${validation.summary}; the version was set to shadow instead of active`;
  }
  const r = await setVersionStatus(c, ref, doc.playbook_id, doc.version, target, { actor, note: input.note ?? null, via: 'review', expected: 'draft', patch: { review } });
  // Approving to draft changes no status; the decision is still recorded.
  if (!r.changed) r.doc = (await playbooks.update(doc.playbook_id, doc.version, { review, updated_at: at })) ?? r.doc;
  return { ...statusAnswer(r, await announceActive(c, ref, r)), action: input.action, shadow_validation: r.doc.shadow_validation ?? validation, activation_blocked: blocked };
}
